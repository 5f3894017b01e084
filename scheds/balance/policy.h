/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - scx_balance's per-task arithmetic, as pure functions shared by
 * the BPF program, the loader (which reads the duty cycles the BPF side
 * records) and the host unit tests (scheds/balance/tests/test_balance_policy.c).
 *
 * Times are in ns, weights in sched_ext units (100 = nice 0).
 */
#ifndef __BALANCE_POLICY_H
#define __BALANCE_POLICY_H

#include <scxkit/sched_math.h>

/* Fixed point of the duty cycle: BALANCE_RAVG_ONE means runnable all the time. */
#define BALANCE_RAVG_SHIFT 20
#define BALANCE_RAVG_ONE   (1ULL << BALANCE_RAVG_SHIFT)

/*
 * A running average that decays by half every half-life, like rusty's ravg
 * and the kernel's PELT (which uses a 32 ms half-life). @val is the average
 * up to @last; @active says what the signal has been since then.
 */
struct balance_ravg {
	u64 val;
	u64 last;
	u32 active;
	u32 pad;
};

/*
 * 2^(-k/16) in 1/65536 units, k = 0..16: the fractional half-lives, with
 * linear interpolation in between (error below 0.1%). No floating point
 * exists in BPF.
 */
static const u32 balance_exp2_neg16[17] = {
	65536, 62757, 60097, 57549, 55109, 52773, 50535, 48393, 46341,
	44376, 42495, 40693, 38968, 37316, 35734, 34219, 32768,
};

/**
 * balance_decay - @v after @dt ns of decay with half-life @half_life
 * Return: @v * 2^(-@dt / @half_life); 0 when @half_life is 0.
 */
static inline u64 balance_decay(u64 v, u64 dt, u64 half_life)
{
	u64 halves, pos, f;
	u32 k, r;

	if (!half_life)
		return 0;
	halves = dt / half_life;
	if (halves >= 64)
		return 0;
	v >>= halves;
	/* Position inside the half-life in 1/1024, then table + interpolation. */
	pos = (dt - halves * half_life) * 1024 / half_life;
	k = (u32)(pos >> 6) & 15;
	r = (u32)pos & 63;
	f = balance_exp2_neg16[k] -
	    (((u64)(balance_exp2_neg16[k] - balance_exp2_neg16[k + 1]) * r) >> 6);
	/* v < 2^BALANCE_RAVG_SHIFT+1 in practice; f < 2^17: no overflow. */
	return (v * f) >> 16;
}

/**
 * balance_ravg_advance - bring @r up to @now: decay the old average and add
 * the contribution of the state held since @r->last
 */
static inline void balance_ravg_advance(struct balance_ravg *r, u64 now, u64 half_life)
{
	u64 dt, v;

	if (!scxk_time_before(r->last, now)) {
		return;
	}
	dt = now - r->last;
	v = balance_decay(r->val, dt, half_life);
	if (r->active)
		v += BALANCE_RAVG_ONE - balance_decay(BALANCE_RAVG_ONE, dt, half_life);
	r->val = v > BALANCE_RAVG_ONE ? BALANCE_RAVG_ONE : v;
	r->last = now;
}

/** balance_ravg_set - the signal changes to @active at @now */
static inline void balance_ravg_set(struct balance_ravg *r, u64 now, u64 half_life, bool active)
{
	if (!r->last)
		r->last = now;
	balance_ravg_advance(r, now, half_life);
	r->active = active;
}

/**
 * balance_ravg_read - the average at @now without changing @r (the loader
 * extrapolates the entries the BPF side wrote some time ago)
 * Return: 0..BALANCE_RAVG_ONE.
 */
static inline u64 balance_ravg_read(const struct balance_ravg *r, u64 now, u64 half_life)
{
	struct balance_ravg tmp = *r;

	balance_ravg_advance(&tmp, now, half_life);
	return tmp.val;
}

/* Deadline: the most urgency (divisor of the runtime part) the wakeup rate earns. */
#define BALANCE_MAX_LAT_SCALE 8
/* Wakeups per second at which the first doubling is earned. */
#define BALANCE_LAT_FREQ_BASE 4

/**
 * balance_lat_scale - how urgent a task is from how often it wakes up:
 * 1 for tasks waking less than BALANCE_LAT_FREQ_BASE times a second, one
 * more per doubling of the rate above that, at most BALANCE_MAX_LAT_SCALE
 * (rusty derives a latency priority from log2 of its wakeup frequencies the
 * same way).
 */
static inline u32 balance_lat_scale(u64 wake_freq)
{
	u32 s = 1;
	u64 f = BALANCE_LAT_FREQ_BASE;

	while (s < BALANCE_MAX_LAT_SCALE && wake_freq >= f) {
		s++;
		f <<= 1;
	}
	return s;
}

/**
 * balance_deadline - a task's place in its domain's queue
 * @vtime: its vruntime, already clamped by balance_clamp_vtime()
 * @avg_runtime: its average run between sleeps
 * @weight: its weight
 * @wake_freq: its wakeups per second
 * @slice: the current slice, which bounds the runtime part
 *
 * vruntime plus the weighted time it is expected to run, divided by its
 * urgency: a task that wakes often and runs briefly sorts ahead of a CPU
 * hog with the same vruntime, and a hog's lead never exceeds one slice.
 */
static inline u64 balance_deadline(u64 vtime, u64 avg_runtime, u32 weight, u64 wake_freq, u64 slice)
{
	u64 run = avg_runtime < slice ? avg_runtime : slice;
	u64 off = scxk_scale_by_weight_inv(run, weight) / balance_lat_scale(wake_freq);

	return vtime + (off < slice ? off : slice);
}

/*
 * How far a task's vruntime may run ahead of its domain's clock. A nice-19
 * task (weight 1) is charged 100x its runtime; behind dozens of nice-0
 * tasks, an unbounded lead would keep it waiting for seconds and past the
 * watchdog (seen with khugepaged under hackbench). 100 ms of vtime is 100
 * nice-0 slices of 1 ms, still a tiny share for such a task.
 */
#define BALANCE_MAX_VTIME_LEAD (100 * SCXK_NSEC_PER_MSEC)

/**
 * balance_clamp_vtime - keep a task's vruntime within [one slice behind,
 * BALANCE_MAX_VTIME_LEAD ahead of] its domain's clock: bounded sleep credit,
 * and bounded waiting for light tasks
 * Return: the clamped vtime; *@clamped tells whether sleep credit was cut.
 */
static inline u64 balance_clamp_vtime(u64 vtime, u64 dom_vtime, u64 slice, bool *clamped)
{
	u64 v = scxk_vtime_floor(vtime, dom_vtime, slice);

	*clamped = v != vtime;
	if (scxk_time_before(dom_vtime + BALANCE_MAX_VTIME_LEAD, v))
		v = dom_vtime + BALANCE_MAX_VTIME_LEAD;
	return v;
}

#endif /* __BALANCE_POLICY_H */
