/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_cadence's BPF side and its loader agree on. */
#ifndef __CADENCE_INTF_H
#define __CADENCE_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/topo_data.h>

/*
 * Compute domains: one per (LLC, core type). Domain d's queue is DSQ id d;
 * per-CPU queues (pinned tasks, preemption hand-offs) are SCXK_DSQ_CPU().
 */
#define CADENCE_MAX_DOMS 64
#define CADENCE_NO_DOM 0xffffffffU

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

/* Counters (scxk_stat_add), summed over CPUs by the loader */
enum cadence_stat {
	CADENCE_STAT_SCHED,	 /* tasks started running */
	CADENCE_STAT_LAT_CRI,	 /* ... of which latency-critical (>= average) */
	CADENCE_STAT_PERF_CRI,	 /* ... of which performance-critical */
	CADENCE_STAT_ON_BIG,	 /* ... of which on a big core (hybrid only) */
	CADENCE_STAT_DIRECT,	 /* placed on an idle CPU at wakeup */
	CADENCE_STAT_PINNED,	 /* queued on a CPU's own queue (pinned) */
	CADENCE_STAT_DOM,	 /* queued on a compute domain's queue */
	CADENCE_STAT_PREEMPT,	 /* preemptions by an IPI */
	CADENCE_STAT_YIELD,	 /* victims asked to yield at their next tick */
	CADENCE_STAT_DL_PREEMPT, /* preemptions by an earlier deadline after slice_min */
	CADENCE_STAT_HANDOFF,	 /* wakees queued behind a short-burst waker on its CPU */
	CADENCE_STAT_STEAL,	 /* tasks taken from another domain */
	CADENCE_STAT_SPILL,	 /* compacted-off CPUs woken for overflow work */
	CADENCE_STAT_UPGRADE,	 /* tasks kicked off a little core for an idle big one */
	CADENCE_STAT_LOCK_BOOST, /* contended futex acquisitions: holders boosted */
	CADENCE_STAT_SLICE_BOOST, /* slices boosted for long-running tasks */
	CADENCE_STAT_ACTIVE_NS,	 /* active CPUs x ns, for the average over a read */
	CADENCE_STAT_TIME_PM,	 /* CADENCE_NR_PM counters: ns spent in each mode */
	CADENCE_NR_STATS = CADENCE_STAT_TIME_PM + 3,
};

/* System state, written by the BPF timer, read (mmapped .bss) by the loader. */
struct cadence_sys {
	unsigned long long nr_queued;	  /* tasks waiting in all queues */
	unsigned long long nr_running;	  /* CPUs running a task */
	unsigned long long nr_active_cpus; /* CPUs compaction keeps active */
	unsigned long long slice_ns;	  /* the smoothed base slice */
	unsigned long long avg_lat_cri, max_lat_cri, thr_lat_cri;
	unsigned long long thr_perf_cri;
	unsigned long long util;	  /* average CPU utilisation, 1/1024 */
	unsigned long long required_cap;  /* compaction's estimate */
	unsigned long long avg_perf;	  /* average cpuperf target set, 1/1024 */
	unsigned int power_mode;	  /* enum cadence_power_mode */
	unsigned int nr_stealees;	  /* domains other domains steal from now */
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

#define CADENCE_SAMPLES_MAP "cadence_samples"
#define CADENCE_SAMPLE_CTL_MAP "cadence_smp_ctl"

#endif /* __CADENCE_INTF_H */
