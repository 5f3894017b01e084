// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence: criticality and deadlines. A task's latency and
 * performance criticality from its history and the pending wakeup, its
 * virtual deadline, and the preemptions a waking task may make (hand-off
 * to the waker's CPU, deadline preemption, preemption among the most
 * critical). The arithmetic itself is in policy.h, for the unit tests.
 */
#include "cadence.bpf.h"

/*
 * A victim whose slice ends sooner than this is asked to yield at its next
 * tick instead of being sent an IPI. Kept well under a tick (4 ms at
 * HZ=250), so that a critical task never waits most of a tick for a
 * victim that was about to stop anyway; an IPI costs microseconds.
 */
#define YIELD_HORIZON_NS (1 * SCXK_NSEC_PER_MSEC)

/* Criticality of a task now, from its history and the pending wakeup's boosts. */
__hidden void update_lat_cri(struct task_struct *p, struct task_ctx *tctx)
{
	u32 boost = tctx->boost;
	u64 lc;

	if (p->flags & PF_KTHREAD)
		boost += CADENCE_BOOST_KTHREAD;
	if (scxk_task_pinned(p))
		boost += CADENCE_BOOST_PINNED;
	if (tctx->lock_held)
		boost += CADENCE_BOOST_LOCK;
	lc = cadence_lat_cri(tctx->wait_freq, tctx->wake_freq, tctx->avg_runtime, p->scx.weight,
			     boost);
	tctx->lat_cri = cadence_inherit(lc, tctx->waker_lat_cri);
	tctx->perf_cri = cadence_perf_cri(tctx->wait_freq, tctx->wake_freq, tctx->run_freq,
					  tctx->avg_runtime, p->scx.weight);
}

__hidden u64 task_deadline(struct task_struct *p, struct task_ctx *tctx)
{
	u64 window = cadence_compete_window(sys.nr_active_cpus, sys.nr_queued);
	u64 clk = READ_ONCE(cur_clk);
	u64 penalty = cadence_greedy_penalty(tctx->svc, clk);

	tctx->dl_delta = cadence_deadline_delta(tctx->acc_runtime, penalty, tctx->lat_cri, window);
	/*
	 * Kernel threads (RCU's grace-period thread, the sched_ext watchdog's
	 * kworker, ksoftirqd) queue at the clock at the latest, ahead of every
	 * new arrival: in a wakeup storm the clock crawls, and a deadline even
	 * 1 ms out starved RCU for 20 s under TCG until the watchdog fired.
	 */
	if (p->flags & PF_KTHREAD) {
		tctx->dl_delta = 0;
		tctx->deadline = scxk_time_before(tctx->svc, clk) ? tctx->svc : clk;
		return tctx->deadline;
	}
	tctx->deadline = cadence_deadline(tctx->svc, tctx->dl_delta);
	return tctx->deadline;
}

/*
 * Any other waking @p may take its previous CPU, or the waking CPU, from a
 * task that earned a much later deadline, once that task has run
 * slice_min: sched_ext ends slices only at the tick (4 ms at HZ=250), so
 * without this an interactive wakeup waits most of a tick behind a CPU hog.
 * The deadlines' distances from the clock are compared, not the deadlines:
 * the clock runs ahead of a running task's deadline within a few schedules
 * elsewhere, so every wakee would look later than any task already running.
 * slice_min bounds the preemption rate per CPU. Only those two CPUs: they
 * are cache-warm, and a timer or same-CPU wakeup preempts without an IPI;
 * with two random victims as well (an IPI to another CPU for most wakeups)
 * a frame pipeline beside CPU hogs missed 5x more frames in a TCG guest.
 */
static bool try_deadline_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu,
				 u64 now)
{
	s32 cand[2] = {prev_cpu, bpf_get_smp_processor_id()}, cpu, later = -1;
	struct cpu_ctx *c;
	int i;

	/*
	 * A short runner takes a hog's CPU at once (preempt.bpf.h), rather
	 * than waiting up to a tick for it to yield.
	 */
	cpu = scxk_preempt_victim(p, prev_cpu, tctx->avg_runtime, tctx->dl_delta, slice_min_ns / 4);
	if (cpu >= 0 && (c = scxk_percpu_ctx_of(&cpu_ctxs, cpu)) && c->running && !c->lock_holder &&
	    !c->rt_busy && !c->yield_req) {
		c->yield_req = 1;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(tctx), SCX_ENQ_PREEMPT);
		scxk_stat_inc(CADENCE_STAT_DL_PREEMPT);
		return true;
	}
	bpf_for (i, 0, 2) {
		cpu = cand[i & 1];
		if ((i && cpu == prev_cpu) || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!c || !c->running || c->lock_holder || c->rt_busy || c->yield_req ||
		    !cadence_dl_preempts(tctx->dl_delta, c->curr_dl_delta))
			continue;
		if (now - c->run_start < slice_min_ns) {
			later = later < 0 ? cpu : later;
			continue;
		}
		/* Claimed: a second waker in the same window looks elsewhere. */
		c->yield_req = 1;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(tctx), SCX_ENQ_PREEMPT);
		scxk_stat_inc(CADENCE_STAT_DL_PREEMPT);
		return true;
	}
	/*
	 * The victim only just started: it yields at its next tick instead,
	 * with @p next in line there, rather than @p waiting in the domain
	 * queue for whichever slice ends first (up to slice + a tick).
	 */
	if (later >= 0 && (c = scxk_percpu_ctx_of(&cpu_ctxs, later))) {
		c->yield_req = 1;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | later, task_slice(tctx), 0);
		scxk_stat_inc(CADENCE_STAT_YIELD);
		return true;
	}
	return false;
}

/*
 * A waker that runs in short bursts (a pipeline stage handing over, a
 * client posting a request) is about to wait: queue @p first in line on
 * the waker's CPU, where it runs the moment the waker blocks, cache-warm
 * for what the waker produced, with no IPI and no victim. Without this a
 * chain of such tasks under saturation preempted a CPU hog elsewhere by
 * IPI at every hop, or waited up to a tick behind one that had just
 * started. Should the waker run on after all, it yields at its next tick.
 */
static bool try_handoff(struct task_struct *p, struct task_ctx *tctx, u64 now)
{
	struct task_struct *waker = bpf_get_current_task_btf();
	s32 cpu = bpf_get_smp_processor_id();
	struct task_ctx *wctx;
	struct cpu_ctx *c;

	if (waker == p || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr) ||
	    !(c = scxk_percpu_ctx_of(&cpu_ctxs, cpu)) || !c->running || c->yield_req ||
	    now - c->run_start >= slice_min_ns || !(wctx = task_ctx(waker)) ||
	    wctx->avg_runtime >= slice_min_ns)
		return false;
	c->yield_req = 1;
	scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(tctx), 0);
	scxk_stat_inc(CADENCE_STAT_HANDOFF);
	return true;
}

/*
 * Preempt for a waking @p among the most critical few: of two random
 * active CPUs running something less critical, the one that would run
 * longest; never a lock holder or a CPU an RT task took.
 */
__hidden bool try_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 now)
{
	u32 order = power_mode() == CADENCE_PM_POWERSAVE ? CADENCE_ORDER_SAVE : CADENCE_ORDER_PERF;
	u32 n = sys.active_pos, r = bpf_get_prandom_u32();
	s32 cand[2], victim = -1, cpu;
	u64 best_stop = 0;
	struct cpu_ctx *c;
	int i;

	/* Only within its share: a task ahead of the clock waits its turn. */
	if (no_preemption || cadence_greedy_penalty(tctx->svc, READ_ONCE(cur_clk)) > CADENCE_SCALE)
		return false;
	if (try_handoff(p, tctx, now))
		return true;
	if (tctx->lat_cri < sys.thr_lat_cri)
		return !no_dl_preempt && try_deadline_preempt(p, tctx, prev_cpu, now);
	if (!n || n > nr_cpus)
		n = nr_cpus;
	cand[0] = cpu_order[order & 1][SCXK_CPU_IDX(r % n)];
	cand[1] = cpu_order[order & 1][SCXK_CPU_IDX((r >> 16) % n)];
	for (i = 0; i < 2; i++) {
		cpu = cand[i];
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!c || !c->running || c->lock_holder || c->rt_busy || c->yield_req ||
		    c->curr_lat_cri >= tctx->lat_cri)
			continue;
		if (c->est_stop > best_stop) {
			best_stop = c->est_stop;
			victim = cpu;
		}
	}
	if (victim < 0 || !(c = scxk_percpu_ctx_of(&cpu_ctxs, victim)))
		return false;

	/*
	 * Straight to the victim's local queue: through the CPU's own DSQ the
	 * victim's dispatch would compare deadlines with its domain queue,
	 * where the clock's lead makes every older deadline look earlier, and
	 * the preemption would only swap one CPU hog for another.
	 */
	if (scxk_time_before(now + YIELD_HORIZON_NS, best_stop)) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | victim, task_slice(tctx), SCX_ENQ_PREEMPT);
		scxk_stat_inc(CADENCE_STAT_PREEMPT);
	} else {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | victim, task_slice(tctx), 0);
		c->yield_req = 1;
		/*
		 * The victim may have gone idle since we looked; an idle CPU
		 * does not tick, so wake it (a no-op when it is busy).
		 */
		scxk_kick_cpu(victim, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_YIELD);
	}
	return true;
}
