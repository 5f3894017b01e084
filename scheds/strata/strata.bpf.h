/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strata.bpf.h - what the BPF files of scx_strata share: the per-task and
 * per-CPU state, the maps and globals several files read, the small
 * helpers every file uses (queue bookkeeping, a layer's kind and slice),
 * and the functions one file offers the others. strata.bpf.c defines
 * every global and map declared here (it defines STRATA_MAIN first); the
 * other files see them extern, and tools/bpf-link resolves them into one
 * object.
 */
#ifndef __STRATA_BPF_H
#define __STRATA_BPF_H

#include <scxkit/common.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"
#include "policy.h"

/*
 * The maps: defined in strata.bpf.c, extern in the other files (a map's
 * type is an anonymous struct, so it cannot be declared twice in one file).
 */
#ifdef STRATA_MAIN
#define __strata_shared
#else
#define __strata_shared extern
#endif

/* ---- set by the loader before load (strata.bpf.c) ---- */
extern const volatile struct strata_layer_bpf layers[STRATA_MAX_LAYERS];
extern const volatile struct strata_match flat[STRATA_MAX_FLAT];
extern const volatile u32 nr_layers, nr_flat;
extern const volatile bool match_ns, match_hint;
extern const volatile u64 slice_ns, lo_fb_wait_ns, antistall_ns;

/* ---- pushed by the loader every interval, read by it, state (strata.bpf.c) ---- */
extern u8 cpu_owner[SCXK_MAX_CPUS];
extern u32 layer_nr_cpus[STRATA_MAX_LAYERS];
extern u64 alloc_gen;
extern u32 fb_boost, fully_allocated, cg_gen, nr_online_cpus;
extern s64 layer_nr_tasks[STRATA_MAX_LAYERS];
extern u64 applied_gen;
extern u64 layer_lvtime[STRATA_MAX_LAYERS];
extern u64 dsq_since[STRATA_MAX_LAYERS + 1][SCXK_MAX_LLCS];

#define MASK_OPEN    STRATA_MAX_LAYERS	     /* CPUs no layer owns */
#define MASK_UNPROT  (STRATA_MAX_LAYERS + 1) /* CPUs not owned by protected layers */
#define NR_MASKS     (STRATA_MAX_LAYERS + 2)
#define LAYER_IDX(l) ((u32)(l) & (STRATA_MAX_LAYERS - 1))
#define LLC_IDX(l)   ((u32)(l) & (SCXK_MAX_LLCS - 1))
/* How often a task is matched again while AvgRuntime matchers follow its runs. */
#define STRATA_RUNTIME_REMATCH_NS (100 * SCXK_NSEC_PER_MSEC)

__strata_shared SCXK_MASK_SLOTS(masks, NR_MASKS);

__strata_shared struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STRATA_MAX_LAYERS);
	__type(key, u32);
	__type(value, struct strata_lstats);
} lstats SEC(".maps");

struct task_ctx {
	u32 layer;
	u32 cg_gen;  /* cg_gen when last matched */
	u64 comm[2]; /* comm when last matched: a rename re-matches */
	u64 cgid;    /* cgroup when last matched */
	u64 enq_at;
	u64 run_at;
	s32 last_cpu;
	bool fallback;		    /* custom affinity: served from the fallback DSQ */
	u64 avg_runtime;	    /* per schedule, EWMA (AvgRuntime matchers only) */
	u64 matched_at;		    /* when last matched */
	char join[STRATA_COMM_LEN]; /* CmdJoin: the layer name joined, "" for none */
	u64 hint;		    /* HintEquals: the task's hint when last matched */
};
__strata_shared SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct cpu_ctx {
	u32 layer;    /* of the running task */
	u32 perf_set; /* cpuperf level last set + 1 */
	bool running;
	bool preempt;	/* the running task's layer preempts */
	bool exclusive; /* ... keeps the SMT sibling idle */
	u64 fb_at;	/* when this CPU last looked at its fallback DSQ */
};
__strata_shared SCXK_PERCPU_CTX(cpu_ctxs, struct cpu_ctx);

/* ---- helpers ---- */

static struct task_ctx *task_ctx(struct task_struct *p)
{
	return scxk_task_storage(&task_ctxs, p, false);
}

static void lstat_add(u32 layer, u32 idx, u64 v)
{
	u32 key = LAYER_IDX(layer);
	struct strata_lstats *s = bpf_map_lookup_elem(&lstats, &key);

	if (s && idx < STRATA_NR_LSTATS)
		s->cnt[idx] += v;
}

static const struct cpumask *mask_of(u32 idx)
{
	return (const struct cpumask *)scxk_mask_slot_get(&masks, idx);
}

/* Confined/Grouped layers that own no CPU yet behave as Open: their tasks must run. */
static u32 eff_kind(u32 l)
{
	u32 kind = layers[LAYER_IDX(l)].kind;

	if (kind != STRATA_OPEN && !layer_nr_cpus[LAYER_IDX(l)])
		return STRATA_OPEN;
	return kind;
}

static u64 layer_slice(u32 l)
{
	u64 s = layers[LAYER_IDX(l)].slice_ns;

	return s ? s : slice_ns;
}

static u64 *since_slot(u32 l, u32 llc)
{
	u32 li = l >= STRATA_MAX_LAYERS ? STRATA_MAX_LAYERS : l;

	return &dsq_since[li][LLC_IDX(llc)];
}

/* Queue @p on @dsq, noting when the queue stopped being empty. */
static __always_inline void queue_on(struct task_struct *p, u32 l, u32 llc, u64 dsq, u64 slice,
				     u64 vtime, bool fifo, u64 enq_flags)
{
	u64 *since = since_slot(l, llc);

	if (!scx_bpf_dsq_nr_queued(dsq) || !*since)
		*since = scxk_now();
	if (fifo)
		scxk_dsq_insert(p, dsq, slice, enq_flags);
	else
		scxk_dsq_insert_vtime(p, dsq, slice, vtime, enq_flags);
}

/* Move the head of @dsq here; keep its age bookkeeping right. */
static bool consume(u64 dsq, u32 l, u32 llc)
{
	u64 *since = since_slot(l, llc);

	if (!scxk_dsq_move_to_local(dsq))
		return false;
	*since = scx_bpf_dsq_nr_queued(dsq) ? scxk_now() : 0;
	return true;
}

/* sizing.bpf.c */
__hidden void refresh_masks(void);

/* matching.bpf.c */
__hidden void rematch(struct task_struct *p, struct task_ctx *tctx, bool first);
__hidden void maybe_rematch(struct task_struct *p, struct task_ctx *tctx);

/* dispatch.bpf.c */
__hidden bool sibling_exclusive(s32 cpu);
__hidden bool consume_layer(u32 l, u32 llc);
__hidden bool consume_shared(u32 llc, u32 skip);
__hidden bool consume_any(u32 llc);
__hidden bool antistall_consume(u32 llc);
__hidden bool allowed_on(u32 l, s32 cpu);

#endif /* __STRATA_BPF_H */
