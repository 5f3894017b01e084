/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - scx_relay's decisions as pure functions, unit-tested on the
 * host (scheds/relay/tests/test_relay_policy.c) and called by main.c.
 *
 * The idea: every task has a virtual runtime (vruntime), its CPU time
 * divided by its weight, and runs in order of a deadline: the time it was
 * queued plus a lag, the lag being how far its vruntime is ahead of the
 * others plus the CPU time it has used since it last slept, weighted and
 * bounded. A task that sleeps often, like an interactive one, has used
 * little since its last sleep and so is served almost at once; a CPU hog
 * waits up to RELAY_RUNTIME_CAP_SLICES slices behind newer arrivals, never
 * longer, so nothing starves. A task waking from a long sleep may be at
 * most one slice behind the others in vruntime (bounded sleep credit).
 */
#ifndef __RELAY_POLICY_H
#define __RELAY_POLICY_H

#include <scxkit/sched_math.h>

/*
 * The longest lag a deadline gets, in slices (200 ms at the default
 * 20 ms): long enough to keep CPU hogs well behind tasks that sleep every
 * few milliseconds, short enough that a hog still runs several times a
 * second under any load and far from the 30 s watchdog timeout.
 */
#define RELAY_RUNTIME_CAP_SLICES 10

struct relay_params {
	u64 slice_ns;	  /* --slice-us: longest slice, and the sleep credit */
	u64 slice_min_ns; /* --slice-us-min: shortest slice under load */
};

/* A queued task as the heap orders it. */
struct relay_item {
	u64 deadline;
	u64 enq_ts; /* ties: first queued first */
	u64 vruntime;
	u64 enq_cnt;
	s32 pid;
	s32 cpu;
	u32 weight;
	u32 nr_cpus_allowed;
};

/**
 * relay_vruntime - the task's vruntime after charging its last run
 * @vtime: what was stored for it (0 for a task never dispatched)
 * @vnow: the scheduler's current vruntime (the furthest one dispatched)
 * @run_ns: CPU time used since its previous report
 * @weight: 1..10000, 100 for nice 0
 * @p: parameters
 *
 * A new task starts at @vnow; a sleeper is lifted to @vnow - slice.
 */
static inline u64 relay_vruntime(u64 vtime, u64 vnow, u64 run_ns, u32 weight,
				 const struct relay_params *p)
{
	if (!vtime)
		vtime = vnow;
	vtime = scxk_vtime_floor(vtime, vnow, p->slice_ns);
	return vtime + scxk_scale_by_weight_inv(run_ns, weight);
}

/**
 * relay_deadline - when the task should run, on the queue's clock
 * @enq_ts: when it was queued (CLOCK_MONOTONIC ns)
 * @vruntime: from relay_vruntime()
 * @vnow: the scheduler's current vruntime
 * @exec_runtime: CPU time used since it last slept
 * @weight: 1..10000
 * @p: parameters
 *
 * The task may wait behind others by its lag: how far its vruntime is
 * ahead of the most a sleeper may lag (at most one slice), plus its
 * weighted runtime since it last slept, all capped at
 * RELAY_RUNTIME_CAP_SLICES slices. Being a real time, the deadline also
 * bounds starvation: whatever is queued after it has a later one unless
 * it is queued less than the cap later.
 */
static inline u64 relay_deadline(u64 enq_ts, u64 vruntime, u64 vnow, u64 exec_runtime, u32 weight,
				 const struct relay_params *p)
{
	u64 cap = RELAY_RUNTIME_CAP_SLICES * p->slice_ns;
	u64 floor = vnow - p->slice_ns;
	u64 lag = scxk_time_before(floor, vruntime) ? vruntime - floor : 0;

	lag += scxk_scale_by_weight_inv(exec_runtime < cap ? exec_runtime : cap, weight);
	return enq_ts + (lag < cap ? lag : cap);
}

/**
 * relay_slice - how long the task may run: the longest slice shared among
 * the tasks waiting (so everyone gets a turn within about one slice),
 * scaled by weight, kept within [slice_min, slice]
 * @nr_waiting: tasks waiting for a CPU besides this one
 */
static inline u64 relay_slice(u64 nr_waiting, u32 weight, const struct relay_params *p)
{
	u64 s = scxk_scale_by_weight(p->slice_ns / (nr_waiting + 1), weight);

	return scxk_clamp(s, p->slice_min_ns, p->slice_ns);
}

/** relay_before - @a runs before @b: earlier deadline, then queued earlier, then pid */
static inline bool relay_before(const struct relay_item *a, const struct relay_item *b)
{
	if (a->deadline != b->deadline)
		return scxk_time_before(a->deadline, b->deadline);
	if (a->enq_ts != b->enq_ts)
		return a->enq_ts < b->enq_ts;
	return a->pid < b->pid;
}

/* A binary min-heap over caller-provided storage (no allocation). */
struct relay_heap {
	struct relay_item *items;
	u32 nr, cap;
};

/** relay_heap_push - add @it; false when the heap is full */
static inline bool relay_heap_push(struct relay_heap *h, const struct relay_item *it)
{
	u32 i = h->nr;

	if (h->nr >= h->cap)
		return false;
	h->nr++;
	while (i > 0) {
		u32 parent = (i - 1) / 2;

		if (!relay_before(it, &h->items[parent]))
			break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = *it;
	return true;
}

/** relay_heap_pop - remove the task that runs first into @out; false when empty */
static inline bool relay_heap_pop(struct relay_heap *h, struct relay_item *out)
{
	struct relay_item last;
	u32 i = 0;

	if (!h->nr)
		return false;
	*out = h->items[0];
	last = h->items[--h->nr];
	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && relay_before(&h->items[c + 1], &h->items[c]))
			c++;
		if (!relay_before(&h->items[c], &last))
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	if (h->nr)
		h->items[i] = last;
	return true;
}

#endif /* __RELAY_POLICY_H */
