/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_brisk's BPF side and its loader agree on. */
#ifndef __BRISK_INTF_H
#define __BRISK_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/stats_ids.h>
#include <scxkit/topo_data.h>

/* Buckets of the log2 distributions in stats: [0] < 2^lo, [n-1] >= 2^(lo+n-2). */
#define BRISK_HIST_BUCKETS  8
#define BRISK_FREQ_HIST_LO  2 /* wakeups per second: <4, 4..7, ..., >=256 */
#define BRISK_SLICE_HIST_LO 7 /* slice in us: <128, 128..255, ..., >=8192 */

/*
 * The stats, one line each, in the order clients see them (the columns are
 * explained in scxkit/stats_ids.h). nr_running, nr_cpus, primary and mode
 * are set by the loader; every counter is served as a delta as it is.
 */
#define BRISK_STATS(S)                                                                             \
	S(VAL, BRISK_NR_RUNNING, "nr_running", U64, "", "CPUs running a task now")                 \
	S(VAL, BRISK_NR_CPUS, "nr_cpus", U64, "", "online CPUs")                                   \
	S(CNT, BRISK_STAT_DIRECT, "direct", U64, "", "tasks placed straight on an idle CPU")       \
	S(CNT, BRISK_STAT_PERCPU, "percpu", U64, "", "tasks queued on a CPU's own queue")          \
	S(CNT, BRISK_STAT_NODE, "node", U64, "", "tasks queued on their NUMA node's queue")        \
	S(CNT, BRISK_STAT_KTHREAD, "kthread", U64, "",                                             \
	  "per-CPU kthreads sent straight to their CPU")                                           \
	S(CNT, BRISK_STAT_STICKY, "sticky", U64, "", "short tasks kept on their CPU (-S)")         \
	S(CNT, BRISK_STAT_PREEMPT, "preempt", U64, "", "preemptions for waking interactive tasks") \
	S(CNT, BRISK_STAT_KEEP, "keep_running", U64, "",                                           \
	  "slices refilled: the task's deadline was still the earliest")                           \
	S(CNT, BRISK_STAT_SMT_MOVE, "smt_move", U64, "",                                           \
	  "tasks moved off an SMT-contended core or to an idle CPU")                               \
	S(CNT, BRISK_STAT_WAKER_PULL, "waker_pull", U64, "",                                       \
	  "wakees moved towards a faster waker CPU")                                               \
	S(CNT, BRISK_STAT_THROTTLE, "throttle", U64, "", "idle-injection periods (-t)")            \
	S(CNT, BRISK_STAT_REENQ, "reenq", U64, "",                                                 \
	  "times an RT/deadline task took a CPU and its queued tasks went elsewhere")              \
	S(TOT, BRISK_STAT_HOTPLUG, "hotplug", U64, "",                                             \
	  "CPUs gone offline or online since attach, handled without a restart")                   \
	BRISK_HIST_STATS(S, BRISK_STAT_FREQ_HIST, "wfreq_",                                        \
			 "wakeups/s: <4, 4-7, 8-15, 16-31, 32-63, 64-127, 128-255, >=256")         \
	BRISK_HIST_STATS(S, BRISK_STAT_SLICE_HIST, "slice_",                                       \
			 "us: <128, 128-255, 256-511, ..., >=8192")                                \
	S(VAL, BRISK_PRIMARY, "primary", STRING, "", "CPUs of the primary domain")                 \
	S(VAL, BRISK_MODE, "mode", STRING, "", "what -m resolved to")

/* The BRISK_HIST_BUCKETS counters of a log2 distribution: id + bucket. */
#define BRISK_HIST_STATS(S, id, prefix, buckets)                                                   \
	S(CNT, id, prefix "0", U64, buckets, "below the second bucket")                            \
	S(CNT, id##_1, prefix "1", U64, buckets, "bucket 1")                                       \
	S(CNT, id##_2, prefix "2", U64, buckets, "bucket 2")                                       \
	S(CNT, id##_3, prefix "3", U64, buckets, "bucket 3")                                       \
	S(CNT, id##_4, prefix "4", U64, buckets, "bucket 4")                                       \
	S(CNT, id##_5, prefix "5", U64, buckets, "bucket 5")                                       \
	S(CNT, id##_6, prefix "6", U64, buckets, "bucket 6")                                       \
	S(CNT, id##_7, prefix "7", U64, buckets, "the last bucket and above")

enum brisk_stat { BRISK_STATS(SCXK_STAT_COUNTER) BRISK_NR_STATS };
enum brisk_value { BRISK_STATS(SCXK_STAT_VALUE) BRISK_NR_VALUES };

/* The BPF side counts bucket b of a distribution as counter id + b. */
_Static_assert(BRISK_STAT_FREQ_HIST_7 - BRISK_STAT_FREQ_HIST == BRISK_HIST_BUCKETS - 1 &&
		       BRISK_STAT_SLICE_HIST_7 - BRISK_STAT_SLICE_HIST == BRISK_HIST_BUCKETS - 1,
	       "BRISK_HIST_STATS has one counter per bucket");

/* cpufreq policy (-f and the primary domain) */
enum brisk_cpufreq {
	BRISK_CPUFREQ_OFF,  /* leave the governor alone */
	BRISK_CPUFREQ_MAX,  /* performance level pinned at maximum */
	BRISK_CPUFREQ_MIN,  /* pinned at minimum (powersave domain) */
	BRISK_CPUFREQ_AUTO, /* follows each CPU's busy ratio (-f) */
};

/* Per-CPU state (map cpu_ctxs); the loader reads .running for stats. */
struct brisk_cpu_ctx {
	u64 curr_deadline; /* of the running task; ~0 when idle */
	u64 busy_ns;	   /* running time in the current cpufreq window */
	u64 window_start;
	u32 perf_target;
	u32 perf_set; /* the level last handed to scx_bpf_cpuperf_set() + 1 */
	u32 running;  /* 1 while a task runs here (summed for stats) */
};

#endif /* __BRISK_INTF_H */
