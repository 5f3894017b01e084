/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - scx_strata's per-event arithmetic, compiled both into the BPF
 * program and into the host unit tests (scheds/strata/tests/test_strata_alloc.c).
 */
#ifndef __STRATA_POLICY_H
#define __STRATA_POLICY_H

#include <scxkit/sched_math.h>

#include "intf.h"

/* Run-queue latency bucket of a wait of @wait_ns: 0 below 1 us, else 1 + log2(us). */
static inline u32 strata_lat_bucket(u64 wait_ns)
{
	return scxk_log2_bucket(wait_ns / SCXK_NSEC_PER_USEC, 0, STRATA_LAT_BUCKETS);
}

/*
 * Virtual time charged for a run of @ran_ns: at least @min_exec_ns, so a
 * layer of tasks that wake up, run a few microseconds and sleep again
 * ("min_exec_us") cannot flood its queue ahead of everything else; then
 * scaled by the task's weight like any vtime scheduler.
 */
static inline u64 strata_charge(u64 ran_ns, u64 min_exec_ns, u32 weight)
{
	if (ran_ns < min_exec_ns)
		ran_ns = min_exec_ns;
	return scxk_scale_by_weight_inv(ran_ns, weight);
}

/* The slice a yielding task keeps: @pct % of what was left ("yield_ignore"). */
static inline u64 strata_yield_slice(u64 slice_left, u32 pct)
{
	if (pct > 100)
		pct = 100;
	return slice_left * pct / 100;
}

/*
 * Whether a queue has been waiting too long: it became non-empty (or was
 * last served) at @since, which is 0 while it is empty.
 */
static inline bool strata_waited_longer(u64 since, u64 now, u64 limit_ns)
{
	return since && now > since && now - since > limit_ns;
}

/*
 * A task's vtime on entering its layer's queue: at most @max_credit behind
 * the layer's clock (sleep credit is bounded) and at most @max_ahead in
 * front of it. The ceiling matters after a re-match: vtime earned in a
 * busier layer must not make the task wait behind a whole other layer.
 */
static inline u64 strata_vtime_clamp(u64 vtime, u64 layer_now, u64 max_credit, u64 max_ahead)
{
	if ((s64)(vtime - layer_now) > (s64)max_ahead)
		return layer_now + max_ahead;
	return scxk_vtime_floor(vtime, layer_now, max_credit);
}

/*
 * A layer's clock when it competes for shared CPUs: at most @max_credit
 * behind @lv_max, the clock of the furthest layer it competes with.
 * Without the floor, a layer that sat idle (or ran a few kthreads) while
 * another ran for minutes comes back minutes behind, and its queue is
 * served before every other shared layer's until it has caught up: two
 * busy tasks in it starved the other layer's tasks past the watchdog
 * (issue 22).
 */
static inline u64 strata_lvtime_floor(u64 lvtime, u64 lv_max, u64 max_credit)
{
	return scxk_vtime_floor(lvtime, lv_max, max_credit);
}

/* Layer-vtime advance for @ran_ns of CPU time: heavier layers advance slower. */
static inline u64 strata_layer_charge(u64 ran_ns, u32 layer_weight)
{
	return ran_ns * SCXK_WEIGHT_DFL / (layer_weight ? layer_weight : SCXK_WEIGHT_DFL);
}

#endif /* __STRATA_POLICY_H */
