// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence: placement. Where a task runs: the idle-CPU search of
 * select_cpu and enqueue (preferred domain, whole idle cores, big cores for
 * the tasks that want them, compacted-off CPUs left asleep), waking a CPU
 * for work queued on a domain, and stealing between domains. Apart from
 * the ops so that cadence.bpf.c reads as the callbacks alone.
 */
#include "cadence.bpf.h"

/*
 * On a hybrid machine: should this task run on a big core? Performance-
 * critical tasks should, and so should any task that runs long per
 * schedule: a single-threaded game or build step stuck on a little core
 * while a big one idles is the failure upstream LAVD showed on Lunar Lake.
 */
static bool wants_big(struct task_ctx *tctx)
{
	return scxk_topo.hybrid &&
	       (tctx->want_big || is_perf_cri(tctx) || tctx->avg_runtime >= slice_min_ns);
}

/*
 * The domain a task should start looking in: where it ran, or a sync
 * waker's (the wakee consumes what the waker just wrote), switched to the
 * other core type of the same LLC when that suits the task better.
 */
static u32 pref_dom(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 wake_flags)
{
	s32 this_cpu = bpf_get_smp_processor_id();
	u32 d = dom_of(prev_cpu), twin;

	if ((wake_flags & SCX_WAKE_SYNC) && !no_wake_sync &&
	    bpf_cpumask_test_cpu(this_cpu, p->cpus_ptr))
		d = dom_of(this_cpu);
	if (!scxk_topo.hybrid)
		return d;
	twin = dom_twin[d & (CADENCE_MAX_DOMS - 1)];
	if (twin != CADENCE_NO_DOM && dom_big[d & (CADENCE_MAX_DOMS - 1)] != wants_big(tctx))
		d = twin & (CADENCE_MAX_DOMS - 1);
	return d;
}

/* Claim an idle CPU of @mask: a whole idle core first when SMT exists. */
static __always_inline s32 pick_idle_in(const struct cpumask *mask)
{
	s32 cpu;

	if (!mask)
		return -EBUSY;
	if (scxk_topo.smt && (cpu = scx_bpf_pick_idle_cpu(mask, SCX_PICK_IDLE_CORE)) >= 0)
		return cpu;
	return scx_bpf_pick_idle_cpu(mask, 0);
}

/*
 * An idle CPU for @p: the preferred domain's active CPUs (its previous CPU
 * if its whole core idles, a fully idle core, the previous CPU, any idle
 * CPU), then any active CPU. Compacted-off CPUs are left asleep; a big
 * core is always fair game for a task kicked off a little one.
 * Affinitized tasks ignore compaction: they may have no active CPU at all.
 */
__hidden s32 pick_idle_cpu(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu,
			   u64 wake_flags)
{
	const struct cpumask *dact, *idle_smt;
	u32 d;
	s32 cpu;
	bool core_idle;

	if (p->nr_cpus_allowed < nr_cpus)
		return scxk_pick_idle_cpu(p, prev_cpu, 0);
	/*
	 * Big-core tasks take any idle big core, compacted off or not, and
	 * rather wait in a big core's queue than move to a little one.
	 */
	if (wants_big(tctx)) {
		tctx->want_big = 0;
		if ((cpu = pick_idle_in((const struct cpumask *)mask_of(MASK_BIG))) >= 0)
			return cpu;
		if (scxk_cpu_is_big(prev_cpu))
			return -EBUSY;
	}

	d = pref_dom(p, tctx, prev_cpu, wake_flags);
	dact = (const struct cpumask *)mask_of(MASK_DOMACT(d));
	if (!dact)
		return -EBUSY;
	if (bpf_cpumask_test_cpu(prev_cpu, dact)) {
		if (scxk_topo.smt) {
			idle_smt = scx_bpf_get_idle_smtmask();
			core_idle = bpf_cpumask_test_cpu(prev_cpu, idle_smt);
			scx_bpf_put_idle_cpumask(idle_smt);
			if (core_idle && scx_bpf_test_and_clear_cpu_idle(prev_cpu))
				return prev_cpu;
			if ((cpu = scx_bpf_pick_idle_cpu(dact, SCX_PICK_IDLE_CORE)) >= 0)
				return cpu;
		}
		if (scx_bpf_test_and_clear_cpu_idle(prev_cpu))
			return prev_cpu;
	}
	if ((cpu = pick_idle_in(dact)) >= 0)
		return cpu;
	return pick_idle_in((const struct cpumask *)mask_of(MASK_ACTIVE));
}

/* Wake an idle CPU for work just queued on domain @d. */
__hidden void kick_for(struct task_struct *p, u32 d)
{
	const struct cpumask *dact = (const struct cpumask *)mask_of(MASK_DOMACT(d));
	s32 cpu = dact ? scx_bpf_pick_idle_cpu(dact, 0) : -EBUSY;

	if (cpu >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	/* More waiting than the active CPUs can take: spill to any idle CPU. */
	if (scx_bpf_dsq_nr_queued(d) > dom_nr_cpus[d] &&
	    (cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0)) >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_SPILL);
	}
}

/*
 * Take work from another domain: over-loaded ones (stealees) first when
 * @only_stealees, else the nearest domain with anything queued.
 */
__noinline bool steal(u32 d, bool only_stealees)
{
	u32 i, nd, nr = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS;

	bpf_for (i, 0, nr - 1) {
		nd = dom_nbr[d & (CADENCE_MAX_DOMS - 1)][i & (CADENCE_MAX_DOMS - 1)] &
		     (CADENCE_MAX_DOMS - 1);
		if (only_stealees && !dom_stealee[nd])
			continue;
		if (scx_bpf_dsq_nr_queued(nd) && scxk_dsq_move_to_local(nd)) {
			scxk_stat_inc(CADENCE_STAT_STEAL);
			return true;
		}
	}
	return false;
}

/*
 * How much earlier (in virtual time) another domain's head must be for
 * steal_earlier() to take it: one long slice, so that tasks of equal
 * weight do not hop between domains over the noise of a run.
 */
#define XDOM_MARGIN_NS (5 * SCXK_NSEC_PER_MSEC)

/*
 * Weight across domains. Each domain's queue is in virtual-time order, so
 * a domain is fair by weight within itself, but a domain of heavy tasks
 * beside one of light tasks would give each its own CPUs whatever the
 * weights: stealing by queue length does not see weight. A CPU about to
 * pick from its own domain (earliest deadline @local, or @prev's, ~0 when
 * both are empty) looks at one other domain, chosen at random, and takes
 * its head instead when that deadline is earlier by more than
 * XDOM_MARGIN_NS: tasks that are behind their share move to the CPUs of
 * those that are ahead, until the domains' virtual times meet. One head
 * peek per dispatch, on machines with several domains only.
 */
__hidden bool steal_earlier(u32 d, u64 local, struct task_struct *prev)
{
	u32 nr = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS, nd;
	struct task_ctx *tctx;
	u64 head;

	if (nr < 2)
		return false;
	if (scxk_prev_runnable(prev) && (tctx = task_ctx(prev)) &&
	    (local == ~0ULL || scxk_time_before(tctx->deadline, local)))
		local = tctx->deadline;
	if (local == ~0ULL)
		return false;
	nd = dom_nbr[d & (CADENCE_MAX_DOMS - 1)]
		    [(bpf_get_prandom_u32() % (nr - 1)) & (CADENCE_MAX_DOMS - 1)] &
	     (CADENCE_MAX_DOMS - 1);
	if (!scx_bpf_dsq_nr_queued(nd))
		return false;
	head = scxk_dsq_head_vtime(nd);
	if (!scxk_time_before(head + XDOM_MARGIN_NS, local) || !scxk_dsq_move_to_local(nd))
		return false;
	scxk_stat_inc(CADENCE_STAT_STEAL);
	return true;
}
