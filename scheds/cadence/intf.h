/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_cadence's BPF side and its loader agree on. */
#ifndef __CADENCE_INTF_H
#define __CADENCE_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/stats_ids.h>
#include <scxkit/topo_data.h>

/*
 * Compute domains: one per (LLC, core type). Domain d's queue is DSQ id d;
 * per-CPU queues (pinned tasks, preemption hand-offs) are SCXK_DSQ_CPU().
 */
#define CADENCE_MAX_DOMS 64
#define CADENCE_NO_DOM	 0xffffffffU

/* The sys_stat/compaction timer period (LAVD_SYS_STAT_INTERVAL_NS). */
#define CADENCE_TIMER_NS (10ULL * 1000 * 1000)

/* Preference orders in rodata: [0] performance, [1] powersave. */
#define CADENCE_ORDER_PERF 0
#define CADENCE_ORDER_SAVE 1

/* How the power mode is chosen */
enum cadence_pm_policy {
	CADENCE_PMP_FIXED,     /* --performance / --balanced / --powersave */
	CADENCE_PMP_AUTOPILOT, /* from load, in the BPF timer */
	CADENCE_PMP_AUTOPOWER, /* from the system power profile, by the loader */
};

/*
 * The stats, one line each, in the order clients see them (the columns are
 * explained in scxkit/stats_ids.h). VALs come from the BPF timer's struct
 * cadence_sys or are shares of the RAW counters, computed by the loader.
 */
#define CADENCE_STATS(S)                                                                           \
	S(VAL, CADENCE_NR_QUEUED_TASK, "nr_queued_task", U64, "",                                  \
	  "tasks waiting in the queues now")                                                       \
	S(VAL, CADENCE_NR_ACTIVE, "nr_active", U64, "", "tasks running now (busy CPUs)")           \
	S(VAL, CADENCE_NR_ACTIVE_CPUS, "nr_active_cpus", U64, "",                                  \
	  "online CPUs core compaction keeps active")                                              \
	S(VAL, CADENCE_AVG_ACTIVE_CPUS, "avg_active_cpus", FLOAT, "",                              \
	  "active CPUs, averaged since the previous read")                                         \
	S(RAW, CADENCE_STAT_ACTIVE_NS, "active_ns", U64, "ns",                                     \
	  "active CPUs x time, for avg_active_cpus")                                               \
	S(VAL, CADENCE_NR_CPUS, "nr_cpus", U64, "", "online CPUs")                                 \
	S(CNT, CADENCE_STAT_SCHED, "nr_sched", U64, "", "tasks started running")                   \
	S(CNT, CADENCE_STAT_PREEMPT, "nr_preempt", U64, "",                                        \
	  "preemptions by IPI for a critical task")                                                \
	S(CNT, CADENCE_STAT_YIELD, "nr_yield", U64, "",                                            \
	  "victims asked to yield at their next tick")                                             \
	S(CNT, CADENCE_STAT_DL_PREEMPT, "nr_dl_preempt", U64, "",                                  \
	  "preemptions by a waking task with an earlier deadline (victim ran slice_min)")          \
	S(CNT, CADENCE_STAT_HANDOFF, "nr_handoff", U64, "",                                        \
	  "wakees queued on a short-burst waker's CPU, to run when it waits")                      \
	S(RAW, CADENCE_STAT_LAT_CRI, "lat_cri", U64, "", "schedules of latency-critical tasks")    \
	S(RAW, CADENCE_STAT_PERF_CRI, "perf_cri", U64, "",                                         \
	  "schedules of performance-critical tasks")                                               \
	S(RAW, CADENCE_STAT_ON_BIG, "on_big", U64, "", "schedules on a big core (hybrid only)")    \
	S(VAL, CADENCE_PC_LC, "pc_lc", FLOAT, "",                                                  \
	  "% of schedules latency-critical (at or above average)")                                 \
	S(VAL, CADENCE_PC_PC, "pc_pc", FLOAT, "", "% of schedules performance-critical")           \
	S(VAL, CADENCE_PC_BIG, "pc_big", FLOAT, "",                                                \
	  "% of schedules on big cores (0 unless hybrid)")                                         \
	S(VAL, CADENCE_POWER_MODE, "power_mode", STRING, "", "performance, balanced or powersave") \
	/* one per enum cadence_power_mode, in its order: mode m is TIME_PM + m */                 \
	S(RAW, CADENCE_STAT_TIME_PM, "time_performance", U64, "ns", "time in performance mode")    \
	S(RAW, CADENCE_STAT_TIME_PM_1, "time_balanced", U64, "ns", "time in balanced mode")        \
	S(RAW, CADENCE_STAT_TIME_PM_2, "time_powersave", U64, "ns", "time in powersave mode")      \
	S(VAL, CADENCE_PC_PERFORMANCE, "pc_performance", FLOAT, "",                                \
	  "% of the time in performance mode")                                                     \
	S(VAL, CADENCE_PC_BALANCED, "pc_balanced", FLOAT, "", "% of the time in balanced mode")    \
	S(VAL, CADENCE_PC_POWERSAVE, "pc_powersave", FLOAT, "", "% of the time in powersave mode") \
	S(VAL, CADENCE_SLICE_US, "slice_us", U64, "", "the current base slice")                    \
	S(VAL, CADENCE_UTIL_PCT, "util_pct", FLOAT, "", "average CPU utilisation")                 \
	S(VAL, CADENCE_REQUIRED_CAP, "required_cap", U64, "1024 = one CPU",                        \
	  "capacity compaction provides for")                                                      \
	S(VAL, CADENCE_CPUPERF_PCT, "cpuperf_pct", FLOAT, "100 = max",                             \
	  "average performance target set")                                                        \
	S(VAL, CADENCE_AVG_LAT_CRI, "avg_lat_cri", U64, "", "average latency criticality")         \
	S(VAL, CADENCE_MAX_LAT_CRI, "max_lat_cri", U64, "",                                        \
	  "running maximum of latency criticality")                                                \
	S(VAL, CADENCE_THR_LAT_CRI, "thr_lat_cri", U64, "", "criticality needed to preempt")       \
	S(CNT, CADENCE_STAT_DIRECT, "direct", U64, "", "tasks placed on an idle CPU at once")      \
	S(CNT, CADENCE_STAT_PINNED, "pinned", U64, "", "tasks queued on their CPU's own queue")    \
	S(CNT, CADENCE_STAT_DOM, "dom", U64, "", "tasks queued on a compute domain's queue")       \
	S(CNT, CADENCE_STAT_STEAL, "steal", U64, "", "tasks taken from another domain")            \
	S(CNT, CADENCE_STAT_SPILL, "spill", U64, "", "compacted-off CPUs woken for overflow")      \
	S(CNT, CADENCE_STAT_UPGRADE, "upgrade", U64, "",                                           \
	  "tasks moved off a little core for an idle big one")                                     \
	S(CNT, CADENCE_STAT_LOCK_BOOST, "lock_boost", U64, "",                                     \
	  "contended futex acquisitions (holders boosted, not preempted)")                         \
	S(CNT, CADENCE_STAT_SLICE_BOOST, "slice_boost", U64, "",                                   \
	  "boosted slices for long-running tasks")                                                 \
	S(TOT, CADENCE_STAT_HOTPLUG, "hotplug", U64, "",                                           \
	  "CPUs gone offline or online since attach, handled without a restart")                   \
	S(VAL, CADENCE_FUTEX_BOOST, "futex_boost", U64, "",                                        \
	  "1 when the futex tracepoints are attached")

enum cadence_stat { CADENCE_STATS(SCXK_STAT_COUNTER) CADENCE_NR_STATS };
enum cadence_value { CADENCE_STATS(SCXK_STAT_VALUE) CADENCE_NR_VALUES };

/* System state, written by the BPF timer, read (mmapped .bss) by the loader. */
struct cadence_sys {
	unsigned long long nr_queued;	   /* tasks waiting in all queues */
	unsigned long long nr_running;	   /* CPUs running a task */
	unsigned long long nr_active_cpus; /* online CPUs compaction keeps active */
	unsigned long long active_pos;	   /* ... the first this many of the CPU order */
	unsigned long long slice_ns;	   /* the smoothed base slice */
	unsigned long long avg_lat_cri, max_lat_cri, thr_lat_cri;
	unsigned long long thr_perf_cri;
	unsigned long long util;	 /* average CPU utilisation, 1/1024 */
	unsigned long long required_cap; /* compaction's estimate */
	unsigned long long avg_perf;	 /* average cpuperf target set, 1/1024 */
	unsigned int power_mode;	 /* enum cadence_power_mode */
	unsigned int nr_stealees;	 /* domains other domains steal from now */
};

/* One per-task sample for --monitor-sched-samples (ring buffer). */
struct cadence_sample {
	unsigned long long ts;
	int pid;
	int cpu;
	char comm[16];
	unsigned long long lat_cri, perf_cri;
	unsigned long long wait_freq, wake_freq;
	unsigned long long avg_runtime_ns;
	unsigned long long slice_ns;
	unsigned long long dl_delta_ns;
	unsigned int norm_lat_cri; /* 0..1024 of the running maximum */
	unsigned int dom;
	unsigned int big;
	unsigned int lock_holder;
};

/*
 * Sampling control, written by a --monitor-sched-samples client (found by
 * map name): samples flow until @until_ns, at most one per @interval_ns
 * per CPU, so nothing is produced while nobody reads.
 */
struct cadence_sample_ctl {
	unsigned long long until_ns;
	unsigned long long interval_ns;
};

#define CADENCE_SAMPLES_MAP    "cadence_samples"
#define CADENCE_SAMPLE_CTL_MAP "cadence_smp_ctl"

#endif /* __CADENCE_INTF_H */
