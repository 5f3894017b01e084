/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_brisk's BPF side and its loader agree on. */
#ifndef __BRISK_INTF_H
#define __BRISK_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/topo_data.h>

/* Buckets of the log2 distributions in stats: [0] < 2^lo, [n-1] >= 2^(lo+n-2). */
#define BRISK_HIST_BUCKETS 8
#define BRISK_FREQ_HIST_LO 2   /* wakeups per second: <4, 4..7, ..., >=512 */
#define BRISK_SLICE_HIST_LO 7  /* slice in us: <128, 128..255, ..., >=16384 */

enum brisk_stat {
	BRISK_STAT_DIRECT,	/* placed on an idle CPU's local queue at wakeup */
	BRISK_STAT_PERCPU,	/* per-CPU queue (pinned tasks, preemption targets) */
	BRISK_STAT_NODE,	/* the NUMA node's shared queue */
	BRISK_STAT_KTHREAD,	/* per-CPU kthreads sent straight to their CPU */
	BRISK_STAT_STICKY,	/* very short tasks kept on their CPU (-S) */
	BRISK_STAT_PREEMPT,	/* preemptions asked for an interactive wakeup */
	BRISK_STAT_KEEP,	/* slice refilled: nothing else wanted the CPU */
	BRISK_STAT_SMT_MOVE,	/* left an SMT-contended core for an idle one */
	BRISK_STAT_WAKER_PULL,	/* moved towards a faster waker CPU */
	BRISK_STAT_THROTTLE,	/* idle-injection periods (-t) */
	BRISK_STAT_REENQ,	/* local queues handed back when an RT task took the CPU */
	BRISK_STAT_FREQ_HIST,	/* BRISK_HIST_BUCKETS counters from here */
	BRISK_STAT_SLICE_HIST = BRISK_STAT_FREQ_HIST + BRISK_HIST_BUCKETS,
	BRISK_NR_STATS = BRISK_STAT_SLICE_HIST + BRISK_HIST_BUCKETS,
};

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
	u32 perf_set;	   /* the level last handed to scx_bpf_cpuperf_set() + 1 */
	u32 running;	   /* 1 while a task runs here (summed for stats) */
};

#endif /* __BRISK_INTF_H */
