/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - scx_brisk's arithmetic, as pure functions shared by the BPF
 * program and the host unit tests (scheds/brisk/tests/test_brisk.c).
 *
 * Times are in ns, weights in sched_ext units (100 = nice 0).
 */
#ifndef __BRISK_POLICY_H
#define __BRISK_POLICY_H

#include <scxkit/sched_math.h>

/*
 * Wakeup frequency is counted per 100 ms and capped: beyond 16 wakeups per
 * 100 ms a task gains no more sleep credit. bpfland caps at 64; with a
 * 40 ms base credit that lets a busy waker jump 2.5 s of vruntime ahead,
 * and under load vruntime advances slowly (by 1/N of wall time with N
 * tasks per CPU), which starved low-weight kthreads past the watchdog in
 * hackbench storms. 16 keeps the ordering and bounds the jump to 640 ms.
 */
#define BRISK_FREQ_WINDOW_NS (100 * SCXK_NSEC_PER_MSEC)
#define BRISK_MAX_LAG_SCALE  16
/* Queue pressure at which the lag scale is halved, per CPU. */
#define BRISK_Q_THRESH_PER_CPU 4
/* With this much queued work a storm is on: sleep credit drops to 1x. The
 * kernel's watchdog fires at 30 s by default; a tenth of a 5 s window keeps
 * every queued task far from it. */
#define BRISK_STARVE_GUARD_NS (500 * SCXK_NSEC_PER_MSEC)
/* Tasks whose average run is below this are "sticky" with -S. */
#define BRISK_STICKY_NS (10 * SCXK_NSEC_PER_USEC)

/**
 * brisk_lag_scale - how many slice_lag of sleep credit a task may bank
 * @wakeup_freq: the task's wakeups per BRISK_FREQ_WINDOW_NS (EWMA)
 * @nr_queued: tasks waiting in the queues the task competes in
 * @nr_cpus: CPUs sharing those queues (>= 1)
 * @slice_max: the maximum slice
 *
 * Frequent sleepers (interactive tasks) get more credit, but the credit
 * shrinks as queues fill (q / (q + nr_queued)) and collapses to 1 when the
 * queued work alone would take BRISK_STARVE_GUARD_NS: a fork or message
 * storm wakes very often too, and must not look interactive.
 */
static inline u64 brisk_lag_scale(u64 wakeup_freq, u64 nr_queued, u64 nr_cpus, u64 slice_max)
{
	u64 q = BRISK_Q_THRESH_PER_CPU * (nr_cpus ? nr_cpus : 1);
	u64 scale = scxk_clamp(wakeup_freq, 1, BRISK_MAX_LAG_SCALE);

	if (nr_queued * slice_max >= BRISK_STARVE_GUARD_NS)
		return 1;
	scale = scale * q / (q + nr_queued);
	return scale ? scale : 1;
}

/**
 * brisk_lag_budget - the most vtime (sleep credit, and separately runtime
 * since wakeup) that may separate a task from the clock
 * @nr_queued: tasks waiting in the queues the task competes in
 * @nr_cpus: CPUs sharing those queues (>= 1)
 *
 * A queued task waits at most for the work queued ahead of it, and no task
 * is more than credit + awake vtime ahead of another, so the worst wait is
 * about (credit + awake) * nr_queued / nr_cpus. Capping each at half of
 * BRISK_STARVE_GUARD_NS * nr_cpus / nr_queued bounds that wait near
 * BRISK_STARVE_GUARD_NS however many tasks a storm queues (a fixed 40 ms
 * lag with 160 hackbench tasks on 2 CPUs allows over 6 s, which the
 * watchdog sees as a stall). Returns U64_MAX (no cap) when nothing waits.
 */
static inline u64 brisk_lag_budget(u64 nr_queued, u64 nr_cpus)
{
	if (!nr_queued)
		return ~0ULL;
	return BRISK_STARVE_GUARD_NS * (nr_cpus ? nr_cpus : 1) / (2 * nr_queued);
}

/**
 * brisk_vtime_ceil - keep a task's vruntime at most @lead ahead of the clock
 *
 * A light task's vruntime grows by runtime * 100 / weight: a nice 19 task
 * (weight 1) that runs one 4 ms tick jumps 400 ms ahead, and in a storm the
 * clock needs many seconds to catch up, long enough for the watchdog to
 * see a stall. Past @lead the excess is forgotten, which gives light tasks
 * a little more than their share only when they would otherwise starve.
 */
static inline u64 brisk_vtime_ceil(u64 vtime, u64 vtime_now, u64 lead)
{
	/* ~0: nothing queued, no bound (vtime_now + ~0 would wrap to just below the clock). */
	if (lead != ~0ULL && scxk_time_before(vtime_now + lead, vtime))
		return vtime_now + lead;
	return vtime;
}

/**
 * brisk_place - a waking task's vruntime: at most lag_scale * slice_lag
 * (scaled up for heavy tasks) behind the clock
 *
 * The caller stores the result as the task's vruntime. Only lifting the
 * queue key would leave sleepers' vruntimes far behind; then no task that
 * runs moves the clock (the maximum running vruntime) forward, and a task
 * once ahead of it waits for as long as a storm lasts.
 */
static inline u64 brisk_place(u64 vtime, u64 vtime_now, u64 slice_lag, u64 lag_scale, u32 weight)
{
	u64 credit = scxk_scale_by_weight(slice_lag * lag_scale,
					  weight > SCXK_WEIGHT_DFL ? weight : SCXK_WEIGHT_DFL);

	return scxk_vtime_floor(vtime, vtime_now, credit);
}

/**
 * brisk_deadline - a task's new vruntime and its place in the queue
 * @vtime: in: the task's vruntime; out: kept within @lead ahead of the
 *         clock and at most @lag (@awake_cap when not a wakeup) behind it
 *         (what the task keeps)
 * @vtime_now: the scheduler's current vruntime
 * @awake_vtime: weighted runtime since the last wakeup
 * @lag: sleep credit, slice_lag * brisk_lag_scale(), as brisk_lag() caps it
 * @awake_cap: most awake time that counts, and how far behind the clock a
 *             requeued task may stay (the lag budget; ~0 when none queue)
 * @lead: how far ahead of the clock a light task's vruntime may run
 * @weight: task weight
 *
 * The deadline is the vruntime plus the weighted runtime used since the
 * task last woke up. Short, frequent sleepers come back with little
 * awake_vtime and the most credit, so they sort first; a CPU hog's
 * awake_vtime keeps growing. Heavier tasks get proportionally more
 * credit; lighter ones get no less than a nice-0 task, since their
 * vruntime already advances faster and less credit on top would push
 * them back beyond the watchdog. brisk.bpf.c's enqueue calls exactly this.
 */
static inline u64 brisk_deadline(u64 *vtime, u64 vtime_now, u64 awake_vtime, u64 lag, u64 awake_cap,
				 u64 lead, u32 weight, bool wakeup)
{
	*vtime = brisk_vtime_ceil(*vtime, vtime_now, lead);
	/*
	 * A wakeup gets the sleep credit. A requeue (slice over, preempted)
	 * keeps the vruntime it earned, so a heavy task behind by its share
	 * stays behind, but never more than the lag budget: the clock is the
	 * fastest running vruntime on any node, and tasks of a node queue that
	 * fell further behind would stay ahead of every waking task there,
	 * kworkers included (the sched_ext watchdog's own work starved for
	 * 30 s on 2 NUMA nodes).
	 */
	if (wakeup)
		*vtime = brisk_place(*vtime, vtime_now, lag, 1, weight);
	else if (awake_cap != ~0ULL)
		*vtime = brisk_place(*vtime, vtime_now, awake_cap, 1, weight);
	return *vtime + (awake_vtime > awake_cap ? awake_cap : awake_vtime);
}

/**
 * brisk_lag - the sleep credit a waking task gets: slice_lag * @scale,
 * within @budget; kernel threads always get the most (BRISK_MAX_LAG_SCALE),
 * since they do the system's housekeeping (including the sched_ext
 * watchdog's own check-in work) and no storm of user tasks may push them
 * back
 */
static inline u64 brisk_lag(u64 slice_lag, u64 scale, u64 budget, bool kthread)
{
	u64 lag = slice_lag * scale;

	if (kthread)
		return slice_lag * BRISK_MAX_LAG_SCALE;
	return lag > budget ? budget : lag;
}

/**
 * brisk_awake_vtime - add a run to the weighted runtime since wakeup,
 * capped at @slice_lag (whatever the weight) so that a long-running task's
 * deadline stays within reach
 */
static inline u64 brisk_awake_vtime(u64 awake_vtime, u64 ran_ns, u32 weight, u64 slice_lag)
{
	awake_vtime += scxk_scale_by_weight_inv(ran_ns, weight);
	return awake_vtime > slice_lag ? slice_lag : awake_vtime;
}

/**
 * brisk_slice - the time slice: slice_max scaled by weight, shared among
 * the waiting tasks, never below slice_min
 */
static inline u64 brisk_slice(u64 slice_max, u64 slice_min, u32 weight, u64 nr_waiting)
{
	u64 s = scxk_scale_by_weight(slice_max, weight) / (nr_waiting ? nr_waiting : 1);

	return s < slice_min ? slice_min : s;
}

/**
 * brisk_wakeup_freq - update the wakeups-per-100ms EWMA at a wakeup
 * @freq: the previous estimate
 * @since_last_ns: time since the previous wakeup
 */
static inline u64 brisk_wakeup_freq(u64 freq, u64 since_last_ns)
{
	u64 sample = BRISK_FREQ_WINDOW_NS / (since_last_ns ? since_last_ns : 1);

	return scxk_calc_avg(freq, sample > 1024 ? 1024 : sample);
}

/**
 * brisk_should_preempt - may a waking task with @deadline take a CPU whose
 * current task has @curr_deadline? Only with a clear lead (one slice_max of
 * vtime), so that equals do not ping-pong.
 */
static inline bool brisk_should_preempt(u64 deadline, u64 curr_deadline, u64 margin)
{
	return scxk_time_before(deadline + margin, curr_deadline);
}

/**
 * brisk_perf_target - cpufreq performance level (0..1024) from a CPU's busy
 * ratio: proportional, but full speed from 75% busy on, where a lower
 * frequency would cost latency (as schedutil's 1.25x headroom does)
 */
static inline u32 brisk_perf_target(u64 busy_ns, u64 window_ns)
{
	u64 perf;

	if (!window_ns)
		return 1024;
	perf = busy_ns * 1024 / window_ns;
	if (perf * 4 >= 1024 * 3)
		return 1024;
	return perf > 1024 ? 1024 : (u32)perf;
}

#endif /* __BRISK_POLICY_H */
