// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_strata: dispatch. The queue choices ops.dispatch() makes: a layer's
 * queues (this LLC first), the layers that share CPUs by layer-level
 * fairness, antistall for any queue that waited too long, whether a task
 * may keep its CPU under the current allocation, and SMT exclusivity.
 */
#include "strata.bpf.h"

/* Whether @cpu must stay idle: its SMT sibling runs an exclusive layer's task. */
__hidden bool sibling_exclusive(s32 cpu)
{
	s32 sib = scxk_topo.cpus[SCXK_CPU_IDX(cpu)].sibling;
	struct cpu_ctx *cc;

	if (!scxk_topo.smt || sib < 0)
		return false;
	cc = scxk_percpu_ctx_of(&cpu_ctxs, sib);
	return cc && cc->running && cc->exclusive;
}

/* Layer @l's queues, this LLC first. */
__hidden bool consume_layer(u32 l, u32 llc)
{
	u32 nr = min(scxk_topo.nr_llcs, SCXK_MAX_LLCS), i;

	if (consume(STRATA_DSQ_LAYER(l, llc), l, llc))
		return true;
	bpf_for (i, 0, nr) {
		if (i != llc && consume(STRATA_DSQ_LAYER(l, i), l, i))
			return true;
	}
	return false;
}

/*
 * Layers that share CPUs (Open, Grouped spilling, Confined without CPUs):
 * preempting layers first, then the one that had least CPU for its weight.
 * Among the layers waiting here, none is more than one slice (the largest
 * of theirs, in layer-clock units) behind the furthest: while they keep
 * competing their clocks stay that close anyway, so weights still hold,
 * but time a layer spent idle, or running without competition, is not
 * owed to it or by the others (strata_lvtime_floor()).
 */
__hidden bool consume_shared(u32 llc, u32 skip)
{
	u32 i, best = STRATA_MAX_LAYERS, n = min(nr_layers, STRATA_MAX_LAYERS);
	u64 best_v = ~0ULL, max_v = 0, credit = 0, waiting = 0;
	bool best_pre = false;

	bpf_for (i, 0, n) {
		const volatile struct strata_layer_bpf *ly = &layers[LAYER_IDX(i)];
		u64 c, v = layer_lvtime[LAYER_IDX(i)];

		if (i == skip || eff_kind(i) == STRATA_CONFINED ||
		    !scx_bpf_dsq_nr_queued(STRATA_DSQ_LAYER(i, llc)))
			continue;
		waiting |= 1ULL << i;
		c = strata_layer_charge(layer_slice(i), ly->weight);
		if (c > credit)
			credit = c;
		if (v > max_v)
			max_v = v;
	}
	bpf_for (i, 0, n) {
		bool pre = layers[LAYER_IDX(i)].preempt;
		u64 v;

		if (!(waiting & (1ULL << i)))
			continue;
		/* Racy against stopping() on other CPUs: an error lasts one slice. */
		v = strata_lvtime_floor(layer_lvtime[LAYER_IDX(i)], max_v, credit);
		layer_lvtime[LAYER_IDX(i)] = v;
		if (best == STRATA_MAX_LAYERS || (pre && !best_pre) ||
		    (pre == best_pre && v < best_v)) {
			best = i;
			best_v = v;
			best_pre = pre;
		}
	}
	if (best < STRATA_MAX_LAYERS && consume(STRATA_DSQ_LAYER(best, llc), best, llc))
		return true;
	/* Nothing here: other LLCs' queues rather than idling. */
	bpf_for (i, 0, n) {
		if (i == skip || eff_kind(i) == STRATA_CONFINED)
			continue;
		if (consume_layer(i, llc))
			return true;
	}
	return false;
}

/* Any layer's queue, Confined ones too, this LLC first. */
__hidden bool consume_any(u32 llc)
{
	u32 i, n = min(nr_layers, STRATA_MAX_LAYERS);

	bpf_for (i, 0, n) {
		if (consume_layer(i, llc))
			return true;
	}
	return false;
}

/* Antistall: serve first any queue of this LLC that waited longer than allowed. */
__hidden bool antistall_consume(u32 llc)
{
	u64 now = scxk_now();
	u32 i, n = min(nr_layers, STRATA_MAX_LAYERS);

	if (!antistall_ns)
		return false;
	bpf_for (i, 0, n) {
		if (strata_waited_longer(*since_slot(i, llc), now, antistall_ns) &&
		    consume(STRATA_DSQ_LAYER(i, llc), i, llc)) {
			scxk_stat_inc(STRATA_STAT_ANTISTALL);
			return true;
		}
	}
	if (strata_waited_longer(*since_slot(STRATA_MAX_LAYERS, llc), now, antistall_ns) &&
	    consume(STRATA_DSQ_FB(llc), STRATA_MAX_LAYERS, llc)) {
		scxk_stat_inc(STRATA_STAT_ANTISTALL);
		return true;
	}
	return false;
}

/* May a layer-@l task keep running on @cpu under the current allocation? */
__hidden bool allowed_on(u32 l, s32 cpu)
{
	u8 own = cpu_owner[SCXK_CPU_IDX(cpu)];

	if (eff_kind(l) == STRATA_CONFINED)
		return own == l;
	return own == l || own == STRATA_OWNER_OPEN || !layers[LAYER_IDX(own)].protect;
}
