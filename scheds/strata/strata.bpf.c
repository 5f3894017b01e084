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
#define STRATA_MAIN
#include "strata.bpf.h"
#include <scxkit/fault.bpf.h> /* in this object only: it defines the switch */

/* ---- set by the loader before load ---- */
const volatile struct strata_layer_bpf layers[STRATA_MAX_LAYERS];
const volatile struct strata_match flat[STRATA_MAX_FLAT];
const volatile u32 nr_layers = 1;
const volatile u32 nr_flat;
/* Some layer has an AvgRuntime matcher: track run times and re-match. */
const volatile bool match_runtime;
const volatile bool match_ns;	/* NSEquals/NSPIDEquals: read the pid namespace */
const volatile bool match_hint; /* --task-hint-map: read hints, re-match when one changes */
const volatile u64 slice_ns = 20 * SCXK_NSEC_PER_MSEC;	    /* --slice-us */
const volatile u64 lo_fb_wait_ns = 10 * SCXK_NSEC_PER_MSEC; /* --lo-fb-wait-us */
const volatile u64 antistall_ns = 3 * SCXK_NSEC_PER_SEC;    /* --antistall-sec, 0 = off */

/* ---- pushed by the loader every interval (.bss is mmaped) ---- */
u8 cpu_owner[SCXK_MAX_CPUS]; /* layer index or STRATA_OWNER_OPEN */
u32 layer_nr_cpus[STRATA_MAX_LAYERS];
u64 alloc_gen;	     /* bumped after cpu_owner changes */
u32 fb_boost;	     /* fallback below its share: serve it first */
u32 fully_allocated; /* no CPU left unowned (idle_confined) */
u32 cg_gen;	     /* bumped after the cgroup map changes */
u32 nr_online_cpus;  /* seeded by the loader, kept by the hotplug callbacks */

/* ---- read by the loader (and written by it only before attach) ---- */
u64 hotplug_gen;	      /* bumped by each CPU going on/offline */
u8 cpu_online[SCXK_MAX_CPUS]; /* as the hotplug callbacks last said */
/*
 * Time a higher class (RT, deadline) held each CPU: the total of closed
 * spells, and when the open one began (0: ext has the CPU). Each slot is
 * written only on its own CPU, on bpf_ktime_get_ns()'s clock, which is the
 * loader's CLOCK_MONOTONIC.
 */
u64 cpu_held_ns[SCXK_MAX_CPUS];
u64 cpu_released_at[SCXK_MAX_CPUS];

/* ---- read by the loader ---- */
s64 layer_nr_tasks[STRATA_MAX_LAYERS];

/* A queued task's vtime is at most this many slices ahead of its layer's clock. */
#define STRATA_MAX_AHEAD_SLICES 4
/* Preemption looks at this many CPUs at most: bounded work in enqueue. */
#define PREEMPT_SCAN_MAX 64

/* ---- state ---- */
u64 applied_gen;			   /* the alloc_gen the masks show */
static u64 layer_vtime[STRATA_MAX_LAYERS]; /* per-layer task vtime "now" */
u64 layer_lvtime[STRATA_MAX_LAYERS];	   /* layer-level fairness between layers */
/* When each DSQ became non-empty or was last served (0 = empty): antistall. */
u64 dsq_since[STRATA_MAX_LAYERS + 1][SCXK_MAX_LLCS];

/* Tasks whose own affinity leaves out CPUs the layers could give them. */
static bool custom_affinity(const struct task_struct *p)
{
	return p->nr_cpus_allowed < nr_online_cpus || scxk_migration_disabled(p);
}

/* ---- placement ---- */

static s32 pick_idle(struct task_struct *p, s32 prev_cpu, const struct cpumask *dom, bool core_only)
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
		if ((cpu = pick_idle(p, prev_cpu, mask_of(l), excl)) >= 0 ||
		    kind == STRATA_CONFINED)
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
	bpf_for (i, 0, PREEMPT_SCAN_MAX) {
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
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
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
	/*
	 * Beside a higher class, a task that may run only here runs through
	 * the ext DL server, which finds it only on the local DSQ (see
	 * scxk_higher_class_runnable()); queued elsewhere, it waited for an
	 * empty pick to stop that server for good.
	 */
	if (scxk_task_pinned(p) && scxk_higher_class_runnable(prev_cpu)) {
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
			scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	/* Wakeups were re-matched in select_cpu; a preempted or expired task here. */
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		maybe_rematch(p, tctx);
	l = tctx->layer;
	tctx->enq_at = scxk_now();

	/* Not placed by select_cpu (new, preempted, re-queued): look for an idle CPU now. */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED) &&
	    (cpu = pick_layer_cpu(p, l, prev_cpu, &spilled)) >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, layer_slice(l), enq_flags);
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		lstat_add(l, spilled ? STRATA_LS_SPILL : STRATA_LS_ENQ_LOCAL, 1);
		return;
	}
	if (layers[LAYER_IDX(l)].preempt && (enq_flags & SCX_ENQ_WAKEUP) &&
	    try_preempt(p, l, prev_cpu, enq_flags))
		return;

	llc = queue_llc(l, prev_cpu);
	/* Not in any DSQ now, so dsq_vtime may change without upsetting an ordering. */
	vtime = strata_vtime_clamp(p->scx.dsq_vtime, layer_vtime[LAYER_IDX(l)], layer_slice(l),
				   STRATA_MAX_AHEAD_SLICES * layer_slice(l));
	p->scx.dsq_vtime = vtime;
	queue_on(p, l, llc, STRATA_DSQ_LAYER(l, llc), layer_slice(l), vtime,
		 layers[LAYER_IDX(l)].fifo, enq_flags);
	lstat_add(l, STRATA_LS_ENQ_DSQ, 1);
	kick_for_layer(l);
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
	/*
	 * Beside a higher class this CPU runs ext tasks only through the ext
	 * DL server, which stops at its first empty pick and starts again only
	 * once no ext task counts here: a task pinned here meanwhile starved
	 * (the watchdog ejected the scheduler). So prev runs on, or any
	 * layer's queued task runs here, rather than nothing.
	 */
	if (scxk_higher_class_runnable(cpu)) {
		if (scxk_prev_runnable(prev))
			scxk_task_set_slice(prev, slice_ns);
		else if (consume_any(llc))
			scxk_stat_inc(STRATA_STAT_HELD_ANY);
		return;
	}
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
			scxk_kick_cpu(sib, SCX_KICK_PREEMPT);
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
	u64 ran, now;
	u32 l;

	if (cc)
		cc->running = false;
	if (!tctx || !tctx->run_at)
		return;
	l = tctx->layer;
	now = scxk_now();
	ran = now - tctx->run_at;
	tctx->run_at = 0;
	/*
	 * AvgRuntime: the average moves with every run, so tasks are matched
	 * again as it does, at most every STRATA_RUNTIME_REMATCH_NS (as
	 * scx_layered refreshes such layers periodically).
	 */
	if (match_runtime) {
		tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
		if (now - tctx->matched_at > STRATA_RUNTIME_REMATCH_NS) {
			rematch(p, tctx, false);
			l = tctx->layer;
		}
	}
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

/* An affinity change: NumaNode may now say otherwise. */
void BPF_STRUCT_OPS(strata_set_cpumask, struct task_struct *p, const struct cpumask *cpumask)
{
	struct task_ctx *tctx = task_ctx(p);

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

/*
 * A higher class took this CPU. Tasks on its local DSQ would wait for the
 * ext DL server's next budget: they go back through enqueue, which keeps
 * the pinned ones here and queues the others where other CPUs see them.
 * The held time tells the loader to size the layers without this CPU (an
 * RT hog on the only CPU of a layer left that layer 5% of a CPU).
 */
void BPF_STRUCT_OPS(strata_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	cpu_released_at[SCXK_CPU_IDX(cpu)] = bpf_ktime_get_ns() ?: 1;
	scxk_reenqueue_local();
}

void BPF_STRUCT_OPS(strata_cpu_acquire, s32 cpu, struct scx_cpu_acquire_args *args)
{
	u32 i = SCXK_CPU_IDX(cpu);
	u64 at = cpu_released_at[i];

	if (!at)
		return;
	cpu_held_ns[i] += bpf_ktime_get_ns() - at;
	cpu_released_at[i] = 0;
}

/*
 * With both hotplug callbacks the kernel keeps the scheduler attached
 * through a CPU going offline or online. They run before sysfs shows the
 * change, so they keep their own cpu_online[]; the loader sees hotplug_gen
 * move at its next tick (50 ms) and sizes the layers over the CPUs online
 * then. Until that, a layer may still own an offline CPU: the kernel routes
 * a task placed there to the global DSQ, and an offline CPU is never idle.
 */
void BPF_STRUCT_OPS(strata_cpu_online, s32 cpu)
{
	cpu_online[SCXK_CPU_IDX(cpu)] = 1;
	__sync_fetch_and_add(&nr_online_cpus, 1);
	__sync_fetch_and_add(&hotplug_gen, 1);
	scxk_stat_inc(STRATA_STAT_HOTPLUG);
}

void BPF_STRUCT_OPS(strata_cpu_offline, s32 cpu)
{
	cpu_online[SCXK_CPU_IDX(cpu)] = 0;
	__sync_fetch_and_sub(&nr_online_cpus, 1);
	__sync_fetch_and_add(&hotplug_gen, 1);
	scxk_stat_inc(STRATA_STAT_HOTPLUG);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(strata_init)
{
	u32 i, llc, nr_llcs = min(scxk_topo.nr_llcs, SCXK_MAX_LLCS);
	u32 n = min(nr_layers, STRATA_MAX_LAYERS);
	s32 err;

	if ((err = scxk_topo_init()))
		return err;
	bpf_for (i, 0, NR_MASKS) {
		if ((err = scxk_mask_slot_new(&masks, i, NULL)))
			return err;
	}
	bpf_for (llc, 0, nr_llcs) {
		s32 node = -1;

		bpf_for (i, 0, n) {
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

SCXK_OPS_DEFINE(strata_ops, .select_cpu = (void *)strata_select_cpu,
		.enqueue = (void *)strata_enqueue, .dispatch = (void *)strata_dispatch,
		.running = (void *)strata_running, .stopping = (void *)strata_stopping,
		.yield = (void *)strata_yield, .set_weight = (void *)strata_set_weight,
		.set_cpumask = (void *)strata_set_cpumask,
		.cgroup_move = (void *)strata_cgroup_move, .enable = (void *)strata_enable,
		.init_task = (void *)strata_init_task, .exit_task = (void *)strata_exit_task,
		.cpu_acquire = (void *)strata_cpu_acquire,
		.cpu_release = (void *)strata_cpu_release, .cpu_online = (void *)strata_cpu_online,
		.cpu_offline = (void *)strata_cpu_offline, .init = (void *)strata_init,
		.exit = (void *)strata_exit, .flags = SCX_OPS_ENQ_EXITING | SCX_OPS_ENQ_LAST,
		.timeout_ms = 10000, .name = "strata");
