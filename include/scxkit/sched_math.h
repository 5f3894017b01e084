/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched_math.h - the arithmetic schedulers share, as pure functions that
 * compile for BPF and for the host, so tests/unit checks the very code that
 * runs in the kernel. No divisions by variables that may be zero: every
 * divisor is checked or clamped here, since a BPF program cannot trap.
 */
#ifndef __SCXKIT_SCHED_MATH_H
#define __SCXKIT_SCHED_MATH_H

#include <scxkit/types.h>

#define SCXK_NSEC_PER_USEC 1000ULL
#define SCXK_NSEC_PER_MSEC 1000000ULL
#define SCXK_NSEC_PER_SEC  1000000000ULL

/* sched_ext's task weight for nice 0 (p->scx.weight is 1..10000). */
#define SCXK_WEIGHT_DFL 100

/** scxk_time_before - wrap-safe "a happened before b" for u64 clocks */
static inline bool scxk_time_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/**
 * scxk_vtime_floor - bound the sleep credit of a waking task
 * @vtime: the task's own virtual time
 * @now_vtime: the queue's current virtual time (callers pass the furthest
 *             vtime that started running, or an average)
 * @max_credit: the most virtual time a sleeper may be ahead of others
 *
 * A task that slept for long would otherwise come back with a vtime far in
 * the past and monopolise the CPU until it caught up.
 *
 * Return: @vtime, or @now_vtime - @max_credit if that is later.
 */
static inline u64 scxk_vtime_floor(u64 vtime, u64 now_vtime, u64 max_credit)
{
	u64 floor = now_vtime - max_credit;

	/* No credit can be given before the clock has advanced that far. */
	if (now_vtime < max_credit)
		floor = 0;
	return scxk_time_before(vtime, floor) ? floor : vtime;
}

/**
 * scxk_scale_by_weight - @v scaled up for heavier (lower nice) tasks
 * Return: @v * @weight / SCXK_WEIGHT_DFL.
 */
static inline u64 scxk_scale_by_weight(u64 v, u32 weight)
{
	return v * weight / SCXK_WEIGHT_DFL;
}

/**
 * scxk_scale_by_weight_inv - @v scaled down for heavier tasks, which is how
 * a task's runtime turns into vruntime
 * Return: @v * SCXK_WEIGHT_DFL / @weight (@weight 0 is treated as 1).
 */
static inline u64 scxk_scale_by_weight_inv(u64 v, u32 weight)
{
	return v * SCXK_WEIGHT_DFL / (weight ? weight : 1);
}

/**
 * scxk_ewma - exponentially weighted moving average
 * @old: previous average
 * @sample: new sample
 * @shift: the new sample weighs 1/2^@shift (2 means 25%)
 *
 * Return: the new average, without overflow for any u64 inputs.
 */
static inline u64 scxk_ewma(u64 old, u64 sample, u32 shift)
{
	u64 mask, d;

	if (shift > 63)
		return old;
	/*
	 * Step by diff/2^shift rounded away from zero, so the average reaches
	 * the sample exactly instead of sticking a few units short (a plain
	 * old - old/4 + new/4 never decays below 3).
	 */
	mask = (1ULL << shift) - 1;
	if (sample >= old) {
		d = sample - old;
		return old + (d >> shift) + !!(d & mask);
	}
	d = old - sample;
	return old - (d >> shift) - !!(d & mask);
}

/**
 * scxk_calc_avg - the running average most policies use: 3/4 old, 1/4 new
 */
static inline u64 scxk_calc_avg(u64 old, u64 sample)
{
	return scxk_ewma(old, sample, 2);
}

/**
 * scxk_freq_update - events-per-second estimate from the time between two
 *                    events, smoothed
 * @old_freq: previous estimate (events per second)
 * @interval_ns: time since the previous event
 *
 * Return: the new estimate; an interval of 0 counts as 1 ns.
 */
static inline u64 scxk_freq_update(u64 old_freq, u64 interval_ns)
{
	u64 freq = SCXK_NSEC_PER_SEC / (interval_ns ? interval_ns : 1);

	return scxk_calc_avg(old_freq, freq);
}

/** scxk_clamp - @v limited to [@lo, @hi] (@hi wins when @lo > @hi) */
static inline u64 scxk_clamp(u64 v, u64 lo, u64 hi)
{
	if (v < lo)
		v = lo;
	return v > hi ? hi : v;
}

/** scxk_log2 - floor(log2(@v)) for @v >= 1, 0 for 0; loop-free for BPF */
static inline u32 scxk_log2(u64 v)
{
	u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/**
 * scxk_log2_bucket - bucket of @v in a log2 histogram
 * @v: the value
 * @lo: bucket 1 starts at 2^@lo
 * @nr: number of buckets (>= 1)
 *
 * Bucket 0 holds [0, 2^lo), bucket b holds [2^(lo+b-1), 2^(lo+b)), and the
 * last one everything from 2^(lo+nr-2) up.
 * Return: the bucket, < @nr.
 */
static inline u32 scxk_log2_bucket(u64 v, u32 lo, u32 nr)
{
	u32 b;

	if (v < (1ULL << lo))
		return 0;
	b = scxk_log2(v) - lo + 1;
	return b < nr - 1 ? b : nr - 1;
}

#endif /* __SCXKIT_SCHED_MATH_H */
