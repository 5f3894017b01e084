/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - scx_cadence's arithmetic as pure functions, compiled both into
 * the BPF program and into the host unit tests (scheds/cadence/tests/test_cadence.c):
 * latency criticality, virtual deadlines, time slices, core compaction,
 * power-mode choice, frequency targets and the CPU preference order.
 *
 * Units: times in ns, capacities and utilisations in 1/1024, weights in
 * sched_ext units (100 = nice 0). Every divisor is checked.
 */
#ifndef __CADENCE_POLICY_H
#define __CADENCE_POLICY_H

#include <scxkit/sched_math.h>

#define CADENCE_SCALE 1024 /* fixed point 1.0 for capacities, utilisation, penalties */

/*
 * Frequencies (wakeups/waits per second) above this carry no more signal:
 * a 100 kHz task is as "chained" as a 1 MHz one. Same cap as LAVD.
 */
#define CADENCE_FREQ_MAX 100000ULL
/* Runtime resolution of the reverse-runtime factor: 500 us steps over 1 s. */
#define CADENCE_RUNTIME_STEP_NS (500 * SCXK_NSEC_PER_USEC)

/*
 * Boosts added to the weight factor of the criticality formula for what
 * the kernel tells us about a wakeup (LAVD's LAVD_LC_WEIGHT_BOOST_* values,
 * which its authors tuned on Steam Deck game traces).
 */
#define CADENCE_BOOST_WAKEUP  128
#define CADENCE_BOOST_SYNC    128
#define CADENCE_BOOST_IRQ     1024 /* woken from interrupt context (idle task) */
#define CADENCE_BOOST_SOFTIRQ 512  /* woken by ksoftirqd */
#define CADENCE_BOOST_RT      512  /* woken by an RT or deadline task */
#define CADENCE_BOOST_KTHREAD 256
#define CADENCE_BOOST_PINNED  256
#define CADENCE_BOOST_LOCK    128 /* holds a contended futex */

/* Waker -> wakee inheritance: 1/8 of the gap, at most 1/4 of the wakee's own. */
#define CADENCE_INH_GAP_SHIFT 3
#define CADENCE_INH_MAX_SHIFT 2

/* Deadline: base runtime every task is charged, plus up to this much awake time. */
#define CADENCE_DL_BASE_NS    (1 * SCXK_NSEC_PER_MSEC)
#define CADENCE_DL_ACC_MAX_NS (5 * SCXK_NSEC_PER_MSEC)
/*
 * Service lag bound (weighted ns): a greedy task is penalised in proportion
 * to how far its virtual time is ahead of the clock, saturating here at
 * 2x; a waking sleeper's credit is clamped to the same distance behind the
 * clock (LAVD: 500 ms; shorter here because our service clock runs at wall
 * speed per CPU). The clamp applies at wakeups only: a task that never
 * sleeps keeps the virtual time its weight gives it, or weights flatten.
 */
#define CADENCE_LAG_MAX_NS (100 * SCXK_NSEC_PER_MSEC)
/*
 * The compete window: how far beyond the logical clock a deadline may lie.
 * It is the worst queueing distance between the most and the least
 * critical task when every CPU is busy, and shrinks as tasks pile up.
 */
#define CADENCE_COMPETE_WINDOW_NS     (40 * SCXK_NSEC_PER_MSEC)
#define CADENCE_COMPETE_WINDOW_MIN_NS (1 * SCXK_NSEC_PER_MSEC)

/* The slice base: every runnable task should run once per target latency. */
#define CADENCE_TARGET_LATENCY_NS (10 * SCXK_NSEC_PER_MSEC)
/* A boosted slice: the task's usual run plus this margin, at most N x slice_max. */
#define CADENCE_SLICE_BOOST_MARGIN_NS (500 * SCXK_NSEC_PER_USEC)
#define CADENCE_SLICE_BOOST_MAX_MULT  8
/* The system counts as saturated above this utilisation (95%, as LAVD). */
#define CADENCE_SATURATED_UTIL (CADENCE_SCALE * 95 / 100)

/* Compaction: 25% capacity headroom; each CPU counts with half its capacity. */
#define CADENCE_HEADROOM_PCT	  25
#define CADENCE_CPU_CONTRIB_SHIFT 1

/* Frequency: full speed from 85% busy on (schedutil-like headroom). */
#define CADENCE_PERF_FULL_UTIL (CADENCE_SCALE * 85 / 100)

enum cadence_power_mode {
	CADENCE_PM_PERFORMANCE,
	CADENCE_PM_BALANCED,
	CADENCE_PM_POWERSAVE,
	CADENCE_NR_PM,
};

/**
 * cadence_lat_cri - latency criticality of a task
 * @wait_freq: how often it sleeps waiting for something (per second)
 * @wake_freq: how often it wakes other tasks (per second)
 * @avg_runtime: its average run per schedule (ns)
 * @weight: p->scx.weight
 * @boost: sum of CADENCE_BOOST_* that apply to this wakeup
 *
 * A task in the middle of a chain both waits and wakes often, and runs
 * briefly: all three factors grow. The sum of logs is squared so that the
 * few tasks on a chain stand clearly apart from the many that are not.
 * Return: >= 1.
 */
static inline u64 cadence_lat_cri(u64 wait_freq, u64 wake_freq, u64 avg_runtime, u32 weight,
				  u32 boost)
{
	u64 wait_ft = (wait_freq < CADENCE_FREQ_MAX ? wait_freq : CADENCE_FREQ_MAX) + 1;
	u64 wake_ft = (wake_freq < CADENCE_FREQ_MAX ? wake_freq : CADENCE_FREQ_MAX) + 1;
	u64 run = avg_runtime < SCXK_NSEC_PER_SEC ? avg_runtime : SCXK_NSEC_PER_SEC;
	u64 runtime_ft = (SCXK_NSEC_PER_SEC - run) / CADENCE_RUNTIME_STEP_NS + 1;
	u64 weight_ft = (u64)weight * (1 + boost) + 1;
	u64 s = scxk_log2(wait_ft * wake_ft) + scxk_log2(runtime_ft * weight_ft);

	return s ? s * s : 1;
}

/**
 * cadence_inherit - a wakee's criticality after its waker's is passed on
 * @lat_cri: the wakee's own value
 * @waker_lat_cri: the waker's
 *
 * A chain is only as fast as its slowest link: a critical waker lends part
 * of its criticality to the task it hands work to (1/8 of the gap, at most
 * a quarter of the wakee's own), never the other way round.
 */
static inline u64 cadence_inherit(u64 lat_cri, u64 waker_lat_cri)
{
	u64 gap, give, cap;

	if (waker_lat_cri <= lat_cri)
		return lat_cri;
	gap = waker_lat_cri - lat_cri;
	give = gap >> CADENCE_INH_GAP_SHIFT;
	cap = lat_cri >> CADENCE_INH_MAX_SHIFT;
	return lat_cri + (give < cap ? give : cap);
}

/** cadence_normalize - @v relative to the running maximum, in 0..1024 */
static inline u32 cadence_normalize(u64 v, u64 max)
{
	if (!max || v >= max)
		return CADENCE_SCALE;
	return (u32)(v * CADENCE_SCALE / max);
}

/**
 * cadence_preempt_thresh - criticality a waking task needs to preempt
 * @max: running maximum of lat_cri
 * @avg: running average
 * @shift: --preempt-shift; only the top ~1/2^shift of the range qualifies
 */
static inline u64 cadence_preempt_thresh(u64 max, u64 avg, u32 shift)
{
	if (max <= avg)
		return max;
	return max - ((max - avg) >> (shift < 63 ? shift : 63));
}

/**
 * cadence_dl_preempts - whether a wakee whose deadline lies @wakee_delta
 * past the clock may preempt a task that got @curr_delta: only when it is
 * clearly more urgent (at most 3/4 of the distance), so peers with similar
 * deadlines do not preempt each other back and forth
 */
static inline bool cadence_dl_preempts(u64 wakee_delta, u64 curr_delta)
{
	return curr_delta && wakee_delta < curr_delta - (curr_delta >> 2);
}

/**
 * cadence_greedy_penalty - deadline stretch for tasks that took more than
 * their fair share
 * @svc: the task's weighted service time (virtual time)
 * @clk: the clock: where the tasks that start running are
 *
 * Return: 1024 (no penalty) up to 2048 when the task is CADENCE_LAG_MAX_NS
 * or more ahead of the clock.
 */
static inline u64 cadence_greedy_penalty(u64 svc, u64 clk)
{
	u64 ahead;

	if (!scxk_time_before(clk, svc))
		return CADENCE_SCALE;
	ahead = svc - clk;
	if (ahead > CADENCE_LAG_MAX_NS)
		ahead = CADENCE_LAG_MAX_NS;
	return CADENCE_SCALE + ahead * CADENCE_SCALE / CADENCE_LAG_MAX_NS;
}

/**
 * cadence_svc_floor - bound the credit a sleeper brings back: its service
 * time is never more than CADENCE_LAG_MAX_NS behind @clk (the clock)
 */
static inline u64 cadence_svc_floor(u64 svc, u64 clk)
{
	return scxk_vtime_floor(svc, clk, CADENCE_LAG_MAX_NS);
}

/**
 * cadence_compete_window - how far past the logical clock deadlines spread
 * @nr_cpus: active CPUs
 * @nr_queued: tasks waiting
 *
 * Full window while every waiting task could have a CPU; shrinks by
 * nr_cpus/nr_queued beyond that, so a hackbench storm degrades towards
 * FIFO order and nobody waits behind an unbounded crowd of "critical" ones.
 */
static inline u64 cadence_compete_window(u64 nr_cpus, u64 nr_queued)
{
	u64 w;

	if (nr_queued <= nr_cpus || !nr_queued)
		return CADENCE_COMPETE_WINDOW_NS;
	w = CADENCE_COMPETE_WINDOW_NS * (nr_cpus ? nr_cpus : 1) / nr_queued;
	return w < CADENCE_COMPETE_WINDOW_MIN_NS ? CADENCE_COMPETE_WINDOW_MIN_NS : w;
}

/**
 * cadence_deadline_delta - distance of a task's deadline from the clock
 * @acc_runtime: time run since it last woke up
 * @penalty: cadence_greedy_penalty()
 * @lat_cri: its latency criticality (>= 1)
 * @window: cadence_compete_window()
 *
 * (base + awake runtime) x penalty / criticality: freshly woken, critical
 * tasks get the nearest deadlines. Capped at @window. This is the part of
 * the deadline that criticality decides (cadence_deadline()); the cap
 * bounds it alone, never the virtual time it is added to.
 */
static inline u64 cadence_deadline_delta(u64 acc_runtime, u64 penalty, u64 lat_cri, u64 window)
{
	u64 adj = CADENCE_DL_BASE_NS +
		  (acc_runtime < CADENCE_DL_ACC_MAX_NS ? acc_runtime : CADENCE_DL_ACC_MAX_NS);
	u64 d = adj * penalty / (lat_cri ? lat_cri : 1);

	return d < window ? d : window;
}

/**
 * cadence_deadline - a task's virtual deadline: its virtual time @svc (run
 * time / weight, flattened through its cgroups) plus @dl_delta
 * (cadence_deadline_delta())
 *
 * The virtual time makes the order fair: a task that has run more than its
 * weight allows queues behind the others by the difference, whatever CPU
 * it ran on, so CPU shares follow nice and cpu.weight. The criticality
 * delta, at most the compete window, decides among tasks near the same
 * virtual time, and waking sleepers sit at the clock less their bounded
 * credit (cadence_svc_floor()), so interactive tasks still run first, but
 * only within their cgroup's share.
 */
static inline u64 cadence_deadline(u64 svc, u64 dl_delta)
{
	return svc + dl_delta;
}

/**
 * cadence_clock_advance - the logical clock after a task with @deadline
 * starts running: it moves towards that deadline by 1/@nr_queued of the
 * distance (the more tasks wait, the slower time passes for each), and
 * never backwards.
 */
static inline u64 cadence_clock_advance(u64 clk, u64 deadline, u64 nr_queued)
{
	if (!scxk_time_before(clk, deadline))
		return clk;
	return clk + (deadline - clk) / (nr_queued ? nr_queued : 1);
}

/**
 * cadence_sys_slice - the base slice: the target latency shared among the
 * tasks that wait per active CPU, in [@min, @max]; @max when none wait
 */
static inline u64 cadence_sys_slice(u64 nr_cpus, u64 nr_queued, u64 min, u64 max)
{
	if (!nr_queued)
		return max;
	return scxk_clamp(CADENCE_TARGET_LATENCY_NS * (nr_cpus ? nr_cpus : 1) / nr_queued, min,
			  max);
}

/** cadence_slice_smooth - 7/8 old, 1/8 new, so the slice does not jitter */
static inline u64 cadence_slice_smooth(u64 old, u64 sample)
{
	return old ? scxk_ewma(old, sample, 3) : sample;
}

/**
 * cadence_task_slice - one task's slice
 * @base: the smoothed base slice
 * @avg_runtime: the task's usual run per schedule
 * @saturated: every CPU is busy and tasks wait
 * @slice_min, @slice_max: the option bounds
 *
 * A task that habitually runs longer than the base (a compiler, a game's
 * main thread) gets its usual run plus a margin, so it is not cut into
 * pieces that each pay a context switch, but only while CPUs are to spare
 * and never beyond CADENCE_SLICE_BOOST_MAX_MULT x slice_max.
 */
static inline u64 cadence_task_slice(u64 base, u64 avg_runtime, bool saturated, u64 slice_min,
				     u64 slice_max)
{
	if (saturated || avg_runtime < base)
		return base;
	return scxk_clamp(avg_runtime + CADENCE_SLICE_BOOST_MARGIN_NS, slice_min,
			  slice_max * CADENCE_SLICE_BOOST_MAX_MULT);
}

/**
 * cadence_required_cap - capacity the load needs, with headroom
 * @util_cap_sum: sum over CPUs of utilisation x capacity / 1024
 */
static inline u64 cadence_required_cap(u64 util_cap_sum)
{
	return util_cap_sum + util_cap_sum * CADENCE_HEADROOM_PCT / 100;
}

/** cadence_cpu_contrib - what one active CPU of @capacity counts for */
static inline u64 cadence_cpu_contrib(u32 capacity)
{
	return (capacity ? capacity : 1) >> CADENCE_CPU_CONTRIB_SHIFT;
}

/**
 * cadence_compact_add - add the next CPU of the preference order to the
 * active set; core compaction walks the order until this returns true
 * @sum: in/out: what the CPUs added so far count for (start at 0)
 * @capacity: the next CPU's capacity
 * @required: cadence_required_cap()
 *
 * The BPF timer's compact() calls it CPU by CPU; the first CPU always
 * stays active (the walk stops at it when nothing is required).
 * Return: true when the CPUs added so far cover @required.
 */
static inline bool cadence_compact_add(u64 *sum, u32 capacity, u64 required)
{
	*sum += cadence_cpu_contrib(capacity);
	return *sum >= required;
}

/**
 * cadence_autopilot - the power mode the load asks for
 * @required: cadence_required_cap()
 * @low: below it the machine is nearly idle: powersave
 * @high: above it the load is heavy: performance
 */
static inline u32 cadence_autopilot(u64 required, u64 low, u64 high)
{
	if (required < low)
		return CADENCE_PM_POWERSAVE;
	if (required > high)
		return CADENCE_PM_PERFORMANCE;
	return CADENCE_PM_BALANCED;
}

/**
 * cadence_perf_target - cpufreq performance level (1..1024) for a CPU
 * @util: the larger of its recent and average utilisation
 *
 * Proportional, but full speed from CADENCE_PERF_FULL_UTIL on, where a
 * slower clock would turn directly into latency.
 */
static inline u32 cadence_perf_target(u64 util)
{
	if (util >= CADENCE_PERF_FULL_UTIL)
		return CADENCE_SCALE;
	return util ? (u32)util : 1;
}

/**
 * cadence_perf_cri - performance criticality: how much a task gains from a
 * fast core. Chained tasks (wait/wake) that also use much CPU score high.
 */
static inline u64 cadence_perf_cri(u64 wait_freq, u64 wake_freq, u64 run_freq, u64 avg_runtime,
				   u32 weight)
{
	u64 wait_ft = (wait_freq < CADENCE_FREQ_MAX ? wait_freq : CADENCE_FREQ_MAX) + 1;
	u64 wake_ft = (wake_freq < CADENCE_FREQ_MAX ? wake_freq : CADENCE_FREQ_MAX) + 1;
	u64 rf = run_freq < CADENCE_FREQ_MAX ? run_freq : CADENCE_FREQ_MAX;
	u64 run = avg_runtime < SCXK_NSEC_PER_SEC ? avg_runtime : SCXK_NSEC_PER_SEC;
	/* CPU share in 1/1024: runs per second x time per run. */
	u64 share = rf * run / (SCXK_NSEC_PER_SEC / CADENCE_SCALE);

	return scxk_log2(wait_ft * wake_ft) + scxk_log2((share + 1) * (weight + 1));
}

/**
 * cadence_perf_thresh - perf_cri above which a task belongs on a big core
 * @min, @avg, @max: perf_cri statistics of recent schedules
 * @big_share: big cores' share of the active capacity (0..1024)
 *
 * Interpolated so that the share of tasks sent to big cores roughly
 * matches the share of capacity they hold: with mostly big capacity the
 * threshold falls towards @min, with little of it towards @max.
 */
static inline u64 cadence_perf_thresh(u64 min, u64 avg, u64 max, u32 big_share)
{
	const u32 half = CADENCE_SCALE / 2;

	if (big_share > CADENCE_SCALE)
		big_share = CADENCE_SCALE;
	if (min > avg)
		min = avg;
	if (max < avg)
		max = avg;
	if (big_share >= half)
		return avg - (avg - min) * (big_share - half) / half;
	return avg + (max - avg) * (half - big_share) / half;
}

#ifndef __bpf__
/* ---- host only: the CPU preference order, built by the loader ---- */

struct cadence_cpu_desc {
	int cpu;
	unsigned int capacity;
	int node, llc, core;
	int smt_rank; /* 0 for a core's first thread, 1.. for its siblings */
};

/* Returns <0 when @a goes before @b in the performance order. */
static inline int cadence_cmp_perf(const struct cadence_cpu_desc *a,
				   const struct cadence_cpu_desc *b)
{
	/* Fastest first; then stay on one node and one LLC; one thread per
	 * core before any sibling, since a sibling shares the core's units. */
	if (a->capacity != b->capacity)
		return a->capacity > b->capacity ? -1 : 1;
	if (a->node != b->node)
		return a->node - b->node;
	if (a->llc != b->llc)
		return a->llc - b->llc;
	if (a->smt_rank != b->smt_rank)
		return a->smt_rank - b->smt_rank;
	return a->cpu - b->cpu;
}

/* Returns <0 when @a goes before @b in the powersave order. */
static inline int cadence_cmp_save(const struct cadence_cpu_desc *a,
				   const struct cadence_cpu_desc *b)
{
	/* Most efficient (lowest capacity) first; fill a core's siblings
	 * before waking another core, so fewer cores leave deep idle. */
	if (a->capacity != b->capacity)
		return a->capacity < b->capacity ? -1 : 1;
	if (a->node != b->node)
		return a->node - b->node;
	if (a->llc != b->llc)
		return a->llc - b->llc;
	if (a->core != b->core)
		return a->core - b->core;
	return a->cpu - b->cpu;
}

/**
 * cadence_cpu_order - sort @n CPUs into a preference order
 * @cpus: descriptions, reordered in place (insertion sort: n is small and
 *        the result must be stable and deterministic)
 * @powersave: powersave order instead of the performance one
 */
static inline void cadence_cpu_order(struct cadence_cpu_desc *cpus, int n, bool powersave)
{
	for (int i = 1; i < n; i++) {
		struct cadence_cpu_desc k = cpus[i];
		int j = i - 1;

		while (j >= 0 && (powersave ? cadence_cmp_save(&k, &cpus[j])
					    : cadence_cmp_perf(&k, &cpus[j])) < 0) {
			cpus[j + 1] = cpus[j];
			j--;
		}
		cpus[j + 1] = k;
	}
}

#endif /* !__bpf__ */

#endif /* __CADENCE_POLICY_H */
