// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_strata - partition the machine into layers of tasks (layered-like).
 *
 * An operator's JSON config sorts tasks into at most 16 layers by cgroup,
 * name, parent name, nice, ids and kind; the first layer whose OR of AND
 * blocks matches wins, and the last layer catches the rest. Matching runs
 * here when a task starts and again when it is renamed, moved to another
 * cgroup or reniced.
 *
 * The loader owns the sizing: every --interval (0.1 s) it measures each
 * layer's CPU time, gives Confined and Grouped layers whole cores so their
 * CPUs stay within util_range, and leaves the rest to Open layers. It
 * publishes the result as a per-CPU owner table plus a generation number;
 * the first CPU to dispatch after a change rebuilds the kernel cpumasks.
 *
 * Here, a waking task takes an idle CPU it may use: Confined only its own,
 * Grouped its own then unowned or unprotected ones, Open unowned then
 * unprotected ones. Otherwise it queues on its layer's DSQ in its LLC (by
 * vtime, or FIFO), unless its layer preempts and a CPU it may use runs a
 * non-preempting layer's task. A CPU serves its owner's queues first, then
 * (unless the owner is protected) the shared layers in layer-vtime order,
 * preempting layers first; the per-LLC fallback queue of tasks with their
 * own affinity gets a guaranteed share, and any queue left waiting longer
 * than --antistall-sec is served first by whichever CPU gets there.
 *
 * Choose it to isolate known workloads from each other on one machine. Its
 * quality depends on the config: a layer confined too tightly runs slowly.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"
#include "policy.h"

/* ---- set by the loader before load ---- */
const volatile struct strata_layer_bpf layers[STRATA_MAX_LAYERS];
const volatile struct strata_match flat[STRATA_MAX_FLAT];
const volatile u32 nr_layers = 1;
const volatile u32 nr_flat;
const volatile u32 nr_online_cpus = 1;
const volatile u64 slice_ns = 20 * SCXK_NSEC_PER_MSEC;	     /* --slice-us */
const volatile u64 lo_fb_wait_ns = 10 * SCXK_NSEC_PER_MSEC; /* --lo-fb-wait-us */
const volatile u64 antistall_ns = 3 * SCXK_NSEC_PER_SEC;     /* --antistall-sec, 0 = off */

/* ---- pushed by the loader every interval (.bss is mmaped) ---- */
u8 cpu_owner[SCXK_MAX_CPUS];		/* layer index or STRATA_OWNER_OPEN */
u32 layer_nr_cpus[STRATA_MAX_LAYERS];
u64 alloc_gen;				/* bumped after cpu_owner changes */
u32 fb_boost;				/* fallback below its share: serve it first */
u32 fully_allocated;			/* no CPU left unowned (idle_confined) */
u32 cg_gen;				/* bumped after the cgroup map changes */

/* ---- read by the loader ---- */
s64 layer_nr_tasks[STRATA_MAX_LAYERS];

/* ---- state ---- */
static u64 applied_gen;
static u64 layer_vtime[STRATA_MAX_LAYERS];  /* per-layer task vtime "now" */
static u64 layer_lvtime[STRATA_MAX_LAYERS]; /* layer-level fairness between layers */
/* When each DSQ became non-empty or was last served (0 = empty): antistall. */
static u64 dsq_since[STRATA_MAX_LAYERS + 1][SCXK_MAX_LLCS];

#define MASK_OPEN STRATA_MAX_LAYERS	  /* CPUs no layer owns */
#define MASK_UNPROT (STRATA_MAX_LAYERS + 1) /* CPUs not owned by protected layers */
#define NR_MASKS (STRATA_MAX_LAYERS + 2)
#define LAYER_IDX(l) ((u32)(l) & (STRATA_MAX_LAYERS - 1))
#define LLC_IDX(l) ((u32)(l) & (SCXK_MAX_LLCS - 1))
/* A queued task's vtime is at most this many slices ahead of its layer's clock. */
#define STRATA_MAX_AHEAD_SLICES 4
/* Preemption looks at this many CPUs at most: bounded work in enqueue. */
#define PREEMPT_SCAN_MAX 64

SCXK_MASK_SLOTS(masks, NR_MASKS);

/* cgroup id -> bit per cgroup matcher that the cgroup's path satisfies (loader-filled) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STRATA_MAX_CGROUPS);
	__type(key, u64);
	__type(value, u64);
} cgrp_bits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STRATA_MAX_LAYERS);
	__type(key, u32);
	__type(value, struct strata_lstats);
} lstats SEC(".maps");

struct task_ctx {
	u32 layer;
	u32 cg_gen;	/* cg_gen when last matched */
	u64 comm[2];	/* comm when last matched: a rename re-matches */
	u64 cgid;	/* cgroup when last matched */
	u64 enq_at;
	u64 run_at;
	s32 last_cpu;
	bool fallback;	/* custom affinity: served from the fallback DSQ */
};
SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct cpu_ctx {
	u32 layer;	/* of the running task */
	u32 perf_set;	/* cpuperf level last set + 1 */
	bool running;
	bool preempt;	/* the running task's layer preempts */
	bool exclusive; /* ... keeps the SMT sibling idle */
	u64 fb_at;	/* when this CPU last looked at its fallback DSQ */
};
SCXK_PERCPU_CTX(cpu_ctxs, struct cpu_ctx);

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
static __always_inline void queue_on(struct task_struct *p, u32 l, u32 llc, u64 dsq, u64 slice, u64 vtime,
		     bool fifo, u64 enq_flags)
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

/* Rebuild the kernel cpumasks after the loader published a new allocation. */
static void refresh_masks(void)
{
	u64 gen = READ_ONCE(alloc_gen), old = applied_gen;
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS), i, cpu;

	if (gen == old || __sync_val_compare_and_swap(&applied_gen, old, gen) != old)
		return;
	bpf_for(i, 0, NR_MASKS) {
		struct bpf_cpumask *m;

		bpf_rcu_read_lock();
		m = scxk_mask_slot_get(&masks, i);
		if (m) {
			bpf_for(cpu, 0, nr) {
				u8 own = cpu_owner[SCXK_CPU_IDX(cpu)];
				bool set;

				if (i == MASK_OPEN)
					set = own == STRATA_OWNER_OPEN;
				else if (i == MASK_UNPROT)
					set = own == STRATA_OWNER_OPEN ||
					      !layers[LAYER_IDX(own)].protect;
				else
					set = own == i;
				if (set)
					bpf_cpumask_set_cpu(cpu, m);
				else
					bpf_cpumask_clear_cpu(cpu, m);
			}
		}
		bpf_rcu_read_unlock();
	}
}

/* ---- matching ---- */

struct tinfo {
	char comm[STRATA_COMM_LEN];
	char pcomm[STRATA_COMM_LEN];
	u64 cgbits;
	s32 nice;
	u32 uid, gid, pid, ppid, tgid;
	bool leader, kthread;
};

static __always_inline bool has_prefix(const char *s, const volatile char *pat)
{
#pragma unroll
	for (int j = 0; j < STRATA_COMM_LEN; j++) {
		char c = pat[j];

		if (!c)
			return true;
		if (s[j] != c)
			return false;
	}
	return true;
}

static bool eval(const volatile struct strata_match *m, const struct tinfo *ti)
{
	switch (m->kind) {
	case STRATA_M_ALWAYS:
		return true;
	case STRATA_M_CGROUP:
		return (ti->cgbits >> (m->cg_bit & 63)) & 1;
	case STRATA_M_COMM_PREFIX:
		return has_prefix(ti->comm, m->str);
	case STRATA_M_COMM_PREFIX_EXCL:
		return !has_prefix(ti->comm, m->str);
	case STRATA_M_PCOMM_PREFIX:
		return has_prefix(ti->pcomm, m->str);
	case STRATA_M_PCOMM_PREFIX_EXCL:
		return !has_prefix(ti->pcomm, m->str);
	case STRATA_M_NICE_ABOVE:
		return ti->nice > m->val;
	case STRATA_M_NICE_BELOW:
		return ti->nice < m->val;
	case STRATA_M_NICE_EQUALS:
		return ti->nice == m->val;
	case STRATA_M_UID:
		return ti->uid == (u32)m->val;
	case STRATA_M_GID:
		return ti->gid == (u32)m->val;
	case STRATA_M_PID:
		return ti->pid == (u32)m->val;
	case STRATA_M_PPID:
		return ti->ppid == (u32)m->val;
	case STRATA_M_TGID:
		return ti->tgid == (u32)m->val;
	case STRATA_M_GROUP_LEADER:
		return ti->leader == !!m->val;
	case STRATA_M_KTHREAD:
		return ti->kthread == !!m->val;
	}
	return false;
}

static u64 task_cgid(struct task_struct *p)
{
	return BPF_CORE_READ(p, cgroups, dfl_cgrp, kn, id);
}

/* The first layer whose AND block all match; the last layer is the catch-all. */
static u32 match_layer(struct task_struct *p, u64 cgid)
{
	struct task_struct *leader = BPF_CORE_READ(p, group_leader);
	struct tinfo ti = {};
	u64 *bits;
	bool ok = true;
	u32 i;

	bpf_probe_read_kernel(ti.comm, sizeof(ti.comm), p->comm);
	if (leader)
		bpf_probe_read_kernel(ti.pcomm, sizeof(ti.pcomm), &leader->comm);
	bits = bpf_map_lookup_elem(&cgrp_bits, &cgid);
	ti.cgbits = bits ? *bits : 0;
	ti.nice = (s32)p->static_prio - 120; /* MAX_RT_PRIO + NICE_WIDTH / 2 */
	ti.uid = BPF_CORE_READ(p, cred, euid.val);
	ti.gid = BPF_CORE_READ(p, cred, egid.val);
	ti.pid = p->pid;
	ti.tgid = p->tgid;
	ti.ppid = BPF_CORE_READ(p, real_parent, tgid);
	ti.leader = p->pid == p->tgid;
	ti.kthread = p->flags & PF_KTHREAD;

	bpf_for(i, 0, nr_flat) {
		const volatile struct strata_match *m = &flat[i & (STRATA_MAX_FLAT - 1)];

		if (ok && !eval(m, &ti))
			ok = false;
		if (m->end_block) {
			if (ok)
				return m->layer;
			ok = true;
		}
	}
	return nr_layers - 1;
}

/* (Re)match @p; moves its task count when the layer changes. */
static void rematch(struct task_struct *p, struct task_ctx *tctx, bool first)
{
	u64 cgid = task_cgid(p);
	u32 l = LAYER_IDX(match_layer(p, cgid));

	bpf_probe_read_kernel(tctx->comm, sizeof(tctx->comm), p->comm);
	tctx->cgid = cgid;
	tctx->cg_gen = READ_ONCE(cg_gen);
	if (first) {
		tctx->layer = l;
		__sync_fetch_and_add(&layer_nr_tasks[l], 1);
		return;
	}
	if (l == tctx->layer)
		return;
	__sync_fetch_and_sub(&layer_nr_tasks[LAYER_IDX(tctx->layer)], 1);
	__sync_fetch_and_add(&layer_nr_tasks[l], 1);
	tctx->layer = l;
	scxk_stat_inc(STRATA_STAT_REMATCH);
}

/* A rename (exec, prctl) or a cgroup change since the last match? */
static void maybe_rematch(struct task_struct *p, struct task_ctx *tctx)
{
	u64 comm[2] = {};

	bpf_probe_read_kernel(comm, sizeof(comm), p->comm);
	if (comm[0] != tctx->comm[0] || comm[1] != tctx->comm[1] ||
	    tctx->cg_gen != READ_ONCE(cg_gen) || tctx->cgid != task_cgid(p))
		rematch(p, tctx, false);
}

/* Tasks whose own affinity leaves out CPUs the layers could give them. */
static bool custom_affinity(const struct task_struct *p)
{
	return p->nr_cpus_allowed < nr_online_cpus || scxk_migration_disabled(p);
}

/* ---- placement ---- */

static s32 pick_idle(struct task_struct *p, s32 prev_cpu, const struct cpumask *dom,
		     bool core_only)
{
	s32 cpu;

	if (!dom)
		return -EBUSY;
	if (!core_only && bpf_cpumask_test_cpu(prev_cpu, dom) &&
	    scx_bpf_test_and_clear_cpu_idle(prev_cpu))
		return prev_cpu;
	if (scxk_topo.smt && (cpu = scxk_pick_idle_in(p, dom, SCX_PICK_IDLE_CORE)) >= 0)
		return cpu;
	if (core_only && scxk_topo.smt)
		return -EBUSY;
	return scxk_pick_idle_in(p, dom, 0);
}

/* An idle CPU for layer @l's task, in the order the layer's kind allows. */
static s32 pick_layer_cpu(struct task_struct *p, u32 l, s32 prev_cpu, bool *spilled)
{
	const volatile struct strata_layer_bpf *ly = &layers[LAYER_IDX(l)];
	bool excl = ly->exclusive;
	u32 kind = eff_kind(l);
	s32 cpu;

	*spilled = false;
	/*
	 * Saturated, as when an interactive layer's wakeup must preempt: the
	 * searches below would find nothing, at two to four mask walks, on
	 * the path the waking task waits on. One look at the idle mask first.
	 */
	if (!scxk_any_idle_in(NULL))
		return -EBUSY;
	if (ly->placement == STRATA_PLACE_STICKY) {
		const struct cpumask *dom = kind == STRATA_OPEN ? mask_of(MASK_UNPROT) : mask_of(l);

		if (dom && bpf_cpumask_test_cpu(prev_cpu, dom) &&
		    scx_bpf_test_and_clear_cpu_idle(prev_cpu))
			return prev_cpu;
		return -EBUSY;
	}
	if (kind != STRATA_OPEN) {
		if ((cpu = pick_idle(p, prev_cpu, mask_of(l), excl)) >= 0 || kind == STRATA_CONFINED)
			return cpu;
		if (ly->idle_confined && !fully_allocated)
			return -EBUSY;
	}
	*spilled = kind != STRATA_OPEN;
	if ((cpu = pick_idle(p, prev_cpu, mask_of(MASK_OPEN), excl)) >= 0)
		return cpu;
	*spilled = true;
	return pick_idle(p, prev_cpu, mask_of(MASK_UNPROT), excl);
}

/* ---- callbacks, in the order the kernel calls them ---- */

s32 BPF_STRUCT_OPS(strata_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *cc;
	bool spilled;
	s32 cpu;

	if (!tctx || scxk_fault_drop(p))
		return prev_cpu;
	if (tctx->fallback || custom_affinity(p)) {
		cpu = scxk_pick_idle_cpu(p, prev_cpu, 0);
		return cpu >= 0 ? cpu : prev_cpu;
	}
	maybe_rematch(p, tctx);
	/* preempt_first: let enqueue preempt prev_cpu rather than wander off. */
	if (layers[LAYER_IDX(tctx->layer)].preempt_first &&
	    (cc = scxk_percpu_ctx_of(&cpu_ctxs, prev_cpu)) && cc->running && !cc->preempt)
		return prev_cpu;
	cpu = pick_layer_cpu(p, tctx->layer, prev_cpu, &spilled);
	if (cpu < 0)
		return prev_cpu;
	tctx->enq_at = scxk_now();
	scxk_dsq_insert(p, SCX_DSQ_LOCAL, layer_slice(tctx->layer), 0);
	lstat_add(tctx->layer, spilled ? STRATA_LS_SPILL : STRATA_LS_SEL_LOCAL, 1);
	return cpu;
}

/* Preempt a non-preempting layer's task on a CPU @p's layer may use. */
static bool try_preempt(struct task_struct *p, u32 l, s32 prev_cpu, u64 enq_flags)
{
	const struct cpumask *dom =
		eff_kind(l) == STRATA_CONFINED ? mask_of(l) : mask_of(MASK_UNPROT);
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS), i;
	struct cpu_ctx *cc;
	s32 cpu;

	if (!dom || !nr)
		return false;
	bpf_for(i, 0, PREEMPT_SCAN_MAX) {
		if (i >= nr)
			break;
		cpu = ((u32)prev_cpu + i) % nr;
		if (!bpf_cpumask_test_cpu(cpu, dom) || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		cc = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!cc || !cc->running || cc->preempt)
			continue;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, layer_slice(l),
				enq_flags | SCX_ENQ_PREEMPT);
		lstat_add(l, STRATA_LS_PREEMPT, 1);
		return true;
	}
	lstat_add(l, STRATA_LS_PREEMPT_FAIL, 1);
	return false;
}

/* The LLC whose DSQ a layer-@l task queues on. */
static u32 queue_llc(u32 l, s32 prev_cpu)
{
	const struct cpumask *m;
	u32 cpu;

	if (eff_kind(l) == STRATA_CONFINED && (m = mask_of(l)) &&
	    !bpf_cpumask_test_cpu(prev_cpu, m)) {
		cpu = bpf_cpumask_any_distribute(m);
		if (cpu < SCXK_MAX_CPUS)
			return scxk_cpu_llc(cpu);
	}
	return scxk_cpu_llc(prev_cpu);
}

/* Wake an idle CPU that may serve layer @l's queue. */
static void kick_for_layer(u32 l)
{
	u32 kind = eff_kind(l);
	const struct cpumask *own = mask_of(l), *shared = mask_of(MASK_UNPROT);
	s32 cpu = -EBUSY;

	if (kind != STRATA_OPEN && own)
		cpu = scx_bpf_pick_idle_cpu(own, 0);
	if (cpu < 0 && kind != STRATA_CONFINED && shared)
		cpu = scx_bpf_pick_idle_cpu(shared, 0);
	if (cpu >= 0)
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
}

void BPF_STRUCT_OPS(strata_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 prev_cpu = scx_bpf_task_cpu(p), cpu;
	struct task_ctx *tctx = task_ctx(p);
	u32 l, llc = scxk_cpu_llc(prev_cpu);
	bool spilled;
	u64 vtime;

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return;
	/* Per-CPU kthreads (workqueues, ksoftirqd) cannot wait behind a layer. */
	if ((p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		scxk_stat_inc(STRATA_STAT_FB_LOCAL);
		return;
	}
	if (!tctx || custom_affinity(p)) {
		if (tctx)
			tctx->enq_at = scxk_now();
		queue_on(p, STRATA_MAX_LAYERS, llc, STRATA_DSQ_FB(llc), slice_ns, 0, true,
			 enq_flags);
		scxk_stat_inc(STRATA_STAT_FB_ENQ);
		if ((cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0)) >= 0)
			scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	/* Wakeups were re-matched in select_cpu; a preempted or expired task here. */
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		maybe_rematch(p, tctx);
	l = tctx->layer;
	tctx->enq_at = scxk_now();

	/* Not placed by select_cpu (new, preempted, re-queued): look for an idle CPU now. */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED) && (cpu = pick_layer_cpu(p, l, prev_cpu, &spilled)) >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, layer_slice(l), enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		lstat_add(l, spilled ? STRATA_LS_SPILL : STRATA_LS_ENQ_LOCAL, 1);
		return;
	}
	if (layers[LAYER_IDX(l)].preempt && (enq_flags & SCX_ENQ_WAKEUP) && try_preempt(p, l, prev_cpu, enq_flags))
		return;

	llc = queue_llc(l, prev_cpu);
	/* Not in any DSQ now, so dsq_vtime may change without upsetting an ordering. */
	vtime = strata_vtime_clamp(p->scx.dsq_vtime, layer_vtime[LAYER_IDX(l)], layer_slice(l),
				   STRATA_MAX_AHEAD_SLICES * layer_slice(l));
	p->scx.dsq_vtime = vtime;
	queue_on(p, l, llc, STRATA_DSQ_LAYER(l, llc), layer_slice(l), vtime, layers[LAYER_IDX(l)].fifo,
		 enq_flags);
	lstat_add(l, STRATA_LS_ENQ_DSQ, 1);
	kick_for_layer(l);
}

/* Whether @cpu must stay idle: its SMT sibling runs an exclusive layer's task. */
static bool sibling_exclusive(s32 cpu)
{
	s32 sib = scxk_topo.cpus[SCXK_CPU_IDX(cpu)].sibling;
	struct cpu_ctx *cc;

	if (!scxk_topo.smt || sib < 0)
		return false;
	cc = scxk_percpu_ctx_of(&cpu_ctxs, sib);
	return cc && cc->running && cc->exclusive;
}

/* Layer @l's queues, this LLC first. */
static bool consume_layer(u32 l, u32 llc)
{
	u32 nr = min(scxk_topo.nr_llcs, SCXK_MAX_LLCS), i;

	if (consume(STRATA_DSQ_LAYER(l, llc), l, llc))
		return true;
	bpf_for(i, 0, nr) {
		if (i != llc && consume(STRATA_DSQ_LAYER(l, i), l, i))
			return true;
	}
	return false;
}

/*
 * Layers that share CPUs (Open, Grouped spilling, Confined without CPUs):
 * preempting layers first, then the one that had least CPU for its weight.
 */
static bool consume_shared(u32 llc, u32 skip)
{
	u32 i, best = STRATA_MAX_LAYERS, n = min(nr_layers, STRATA_MAX_LAYERS);
	u64 best_v = ~0ULL;
	bool best_pre = false;

	bpf_for(i, 0, n) {
		bool pre = layers[LAYER_IDX(i)].preempt;
		u64 v = layer_lvtime[LAYER_IDX(i)];

		if (i == skip || eff_kind(i) == STRATA_CONFINED ||
		    !scx_bpf_dsq_nr_queued(STRATA_DSQ_LAYER(i, llc)))
			continue;
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
	bpf_for(i, 0, n) {
		if (i == skip || eff_kind(i) == STRATA_CONFINED)
			continue;
		if (consume_layer(i, llc))
			return true;
	}
	return false;
}

/* Antistall: serve first any queue of this LLC that waited longer than allowed. */
static bool antistall_consume(u32 llc)
{
	u64 now = scxk_now();
	u32 i, n = min(nr_layers, STRATA_MAX_LAYERS);

	if (!antistall_ns)
		return false;
	bpf_for(i, 0, n) {
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
static bool allowed_on(u32 l, s32 cpu)
{
	u8 own = cpu_owner[SCXK_CPU_IDX(cpu)];

	if (eff_kind(l) == STRATA_CONFINED)
		return own == l;
	return own == l || own == STRATA_OWNER_OPEN || !layers[LAYER_IDX(own)].protect;
}

void BPF_STRUCT_OPS(strata_dispatch, s32 cpu, struct task_struct *prev)
{
	u32 llc = scxk_cpu_llc(cpu) & (SCXK_MAX_LLCS - 1), own;
	u64 fb = STRATA_DSQ_FB(llc), now = scxk_now();
	struct task_ctx *tctx;
	struct cpu_ctx *cc;

	refresh_masks();
	own = cpu_owner[SCXK_CPU_IDX(cpu)];
	/*
	 * Antistall and the fallback's share come before exclusivity: a task
	 * that only this CPU may run (pinned, so on the fallback queue) would
	 * otherwise wait for as long as the sibling's exclusive task runs, and
	 * the kernel's watchdog would eject the scheduler.
	 */
	if (antistall_consume(llc))
		return;
	/*
	 * The fallback's guaranteed share: every CPU looks at it first at
	 * least every lo_fb_wait, and always while fallback tasks got less
	 * than their share. Per CPU, because a task pinned to this CPU can
	 * only be run from here, however busy the other CPUs keep the queue.
	 */
	if ((cc = scxk_percpu_ctx(&cpu_ctxs)) && scx_bpf_dsq_nr_queued(fb) &&
	    (fb_boost || strata_waited_longer(cc->fb_at, now, lo_fb_wait_ns) || !cc->fb_at)) {
		cc->fb_at = now;
		if (consume(fb, STRATA_MAX_LAYERS, llc)) {
			scxk_stat_inc(STRATA_STAT_FB_BOOST);
			return;
		}
	}
	if (sibling_exclusive(cpu)) {
		lstat_add(own < STRATA_MAX_LAYERS ? own : 0, STRATA_LS_EXCL_IDLE, 1);
		return;
	}
	if (own < STRATA_MAX_LAYERS && own < nr_layers) {
		if (consume_layer(own, llc))
			return;
		if (layers[LAYER_IDX(own)].protect)
			goto fallback;
	}
	if (consume_shared(llc, own))
		return;
fallback:
	if (consume(fb, STRATA_MAX_LAYERS, llc))
		return;
	/* Nothing waits: prev runs on if its layer may still use this CPU. */
	if (!scxk_prev_runnable(prev) || !(tctx = task_ctx(prev)))
		return;
	/*
	 * A fallback task (custom affinity) runs on too. Returning without a
	 * slice makes the kernel queue it (SCX_OPS_ENQ_LAST) and idle this
	 * CPU, and no kick wakes the CPU for it: a task pinned here then ran
	 * only when an interrupt or antistall happened to come by.
	 */
	if (tctx->fallback) {
		scxk_task_set_slice(prev, slice_ns);
		return;
	}
	/* A task that never sleeps is only seen here: catch its renames. */
	maybe_rematch(prev, tctx);
	if (allowed_on(tctx->layer, cpu)) {
		scxk_task_set_slice(prev, layer_slice(tctx->layer));
		lstat_add(tctx->layer, STRATA_LS_KEEP, 1);
	}
}

void BPF_STRUCT_OPS(strata_running, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *cc = scxk_percpu_ctx(&cpu_ctxs);
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = scxk_now();
	u32 l, perf;

	if (!tctx || !cc)
		return;
	/*
	 * No rename check here, on every switch: select_cpu (wakeups), enqueue
	 * (re-queues) and dispatch (a task kept running) already cover every
	 * way back to a CPU.
	 */
	tctx->fallback = custom_affinity(p);
	l = tctx->layer;
	tctx->run_at = now;
	if (tctx->enq_at) {
		u32 b = strata_lat_bucket(now - tctx->enq_at);
		u32 key = l;
		struct strata_lstats *s = bpf_map_lookup_elem(&lstats, &key);

		if (s && b < STRATA_LAT_BUCKETS)
			s->lat[b]++;
		tctx->enq_at = 0;
	}
	if (tctx->last_cpu >= 0 && tctx->last_cpu != cpu)
		lstat_add(l, STRATA_LS_MIGRATION, 1);
	tctx->last_cpu = cpu;
	if (scxk_time_before(layer_vtime[LAYER_IDX(l)], p->scx.dsq_vtime))
		layer_vtime[LAYER_IDX(l)] = p->scx.dsq_vtime;

	cc->running = true;
	cc->layer = l;
	cc->preempt = !tctx->fallback && layers[LAYER_IDX(l)].preempt;
	cc->exclusive = !tctx->fallback && layers[LAYER_IDX(l)].exclusive;
	/* An exclusive task wants its core to itself: push the sibling off. */
	if (cc->exclusive && scxk_topo.smt) {
		s32 sib = scxk_topo.cpus[SCXK_CPU_IDX(cpu)].sibling;

		if (sib >= 0)
			scx_bpf_kick_cpu(sib, SCX_KICK_PREEMPT);
	}
	perf = layers[LAYER_IDX(l)].perf;
	if (perf && cc->perf_set != perf + 1) {
		scx_bpf_cpuperf_set(cpu, perf);
		cc->perf_set = perf + 1;
	}
}

void BPF_STRUCT_OPS(strata_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *cc = scxk_percpu_ctx(&cpu_ctxs);
	u64 ran;
	u32 l;

	if (cc)
		cc->running = false;
	if (!tctx || !tctx->run_at)
		return;
	l = tctx->layer;
	ran = scxk_now() - tctx->run_at;
	tctx->run_at = 0;
	if (tctx->fallback) {
		scxk_stat_add(STRATA_STAT_FB_RUNTIME, ran);
		return;
	}
	p->scx.dsq_vtime += strata_charge(ran, layers[LAYER_IDX(l)].min_exec_ns, p->scx.weight);
	layer_lvtime[LAYER_IDX(l)] += strata_layer_charge(ran, layers[LAYER_IDX(l)].weight);
	lstat_add(l, STRATA_LS_RUNTIME_NS, ran);
}

bool BPF_STRUCT_OPS(strata_yield, struct task_struct *from, struct task_struct *to)
{
	struct task_ctx *tctx = task_ctx(from);
	u32 pct = tctx ? layers[LAYER_IDX(tctx->layer)].yield_ignore_pct : 0;

	if (to)
		return false;
	scxk_task_set_slice(from, strata_yield_slice(from->scx.slice, pct));
	if (tctx)
		lstat_add(tctx->layer, STRATA_LS_YIELD, 1);
	return false;
}

void BPF_STRUCT_OPS(strata_set_weight, struct task_struct *p, u32 weight)
{
	struct task_ctx *tctx = task_ctx(p);

	/* A nice change: NiceAbove/NiceBelow/NiceEquals may now say otherwise. */
	if (tctx)
		rematch(p, tctx, false);
}

void BPF_STRUCT_OPS(strata_cgroup_move, struct task_struct *p, struct cgroup *from,
		    struct cgroup *to)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx)
		rematch(p, tctx, false);
}

void BPF_STRUCT_OPS(strata_enable, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);

	p->scx.dsq_vtime = tctx ? layer_vtime[LAYER_IDX(tctx->layer)] : 0;
}

s32 BPF_STRUCT_OPS(strata_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, true);

	if (!tctx)
		return -ENOMEM;
	tctx->last_cpu = -1;
	rematch(p, tctx, true);
	return 0;
}

void BPF_STRUCT_OPS(strata_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx)
		__sync_fetch_and_sub(&layer_nr_tasks[LAYER_IDX(tctx->layer)], 1);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(strata_init)
{
	u32 i, llc, nr_llcs = min(scxk_topo.nr_llcs, SCXK_MAX_LLCS);
	u32 n = min(nr_layers, STRATA_MAX_LAYERS);
	s32 err;

	if ((err = scxk_topo_init()))
		return err;
	bpf_for(i, 0, NR_MASKS) {
		if ((err = scxk_mask_slot_new(&masks, i, NULL)))
			return err;
	}
	bpf_for(llc, 0, nr_llcs) {
		s32 node = -1;

		bpf_for(i, 0, n) {
			if ((err = scx_bpf_create_dsq(STRATA_DSQ_LAYER(i, llc), node)))
				return err;
		}
		if ((err = scx_bpf_create_dsq(STRATA_DSQ_FB(llc), node)))
			return err;
	}
	applied_gen = 0;
	refresh_masks();
	return 0;
}

void BPF_STRUCT_OPS(strata_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(strata_ops,
		.select_cpu = (void *)strata_select_cpu,
		.enqueue = (void *)strata_enqueue,
		.dispatch = (void *)strata_dispatch,
		.running = (void *)strata_running,
		.stopping = (void *)strata_stopping,
		.yield = (void *)strata_yield,
		.set_weight = (void *)strata_set_weight,
		.cgroup_move = (void *)strata_cgroup_move,
		.enable = (void *)strata_enable,
		.init_task = (void *)strata_init_task,
		.exit_task = (void *)strata_exit_task,
		.init = (void *)strata_init,
		.exit = (void *)strata_exit,
		.flags = SCX_OPS_ENQ_EXITING | SCX_OPS_ENQ_LAST,
		.timeout_ms = 10000,
		.name = "strata");
