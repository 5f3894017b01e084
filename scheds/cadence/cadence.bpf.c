// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence - latency-criticality-aware virtual deadlines (LAVD-like),
 * for games and interactive work.
 *
 * A frame is a chain of short tasks that wake each other; the frame is as
 * late as the slowest hand-off. Each task gets a latency criticality from
 * how often it waits, how often it wakes others and how briefly it runs
 * (policy.h: cadence_lat_cri), boosted by what the kernel says about the
 * wakeup (interrupt, RT waker, sync wakeup, kthread, pinned, lock holder)
 * and partly inherited from a more critical waker. Tasks run in order of a
 * virtual deadline: virtual time + (base + awake time) x greedy penalty /
 * criticality, the second term capped by a compete window that shrinks as
 * queues fill, so a storm degrades to FIFO instead of starving anyone.
 * Virtual time is run time / weight, the weight flattened through the
 * task's cgroups (scxkit/cgweight.bpf.h), so nice and cpu.weight set the
 * CPU shares down the hierarchy; a waking sleeper's virtual time is raised
 * to at most CADENCE_LAG_MAX_NS behind the clock, and only critical tasks
 * within their share may preempt.
 *
 * Slices are a 10 ms target latency shared among waiting tasks, in
 * [--slice-min-us, --slice-max-us]; long runners get a bounded boost while
 * CPUs are to spare. Only the top ~1/2^--preempt-shift of the criticality
 * range may preempt, preferring to ask a victim to yield at its next tick.
 *
 * Power: every 10 ms a timer estimates the capacity the load needs and
 * keeps only that many CPUs active, in a preference order built by the
 * loader from topology; it also chooses the power mode (--autopilot) and
 * each CPU's performance target. One queue per compute domain (LLC x core
 * type), with stealing between domains by load.
 *
 * Choose it for games, compositors and audio beside background load, and
 * for laptops. Compaction costs some throughput under bursty load, and the
 * criticality heuristics can misjudge workloads that are not chains.
 */
#define CADENCE_MAIN
#include "cadence.bpf.h"
#include <scxkit/fault.bpf.h> /* in this object only: it defines the switch */

/* ---- knobs, set by the loader before load ---- */
const volatile u64 slice_max_ns = 5 * SCXK_NSEC_PER_MSEC;   /* --slice-max-us */
const volatile u64 slice_min_ns = 500 * SCXK_NSEC_PER_USEC; /* --slice-min-us */
const volatile u32 preempt_shift = 6;			    /* --preempt-shift */
const volatile u32 pm_policy = CADENCE_PMP_AUTOPILOT;
const volatile u32 pm_fixed = CADENCE_PM_BALANCED; /* for CADENCE_PMP_FIXED */
const volatile bool no_compaction, no_freq_scaling, no_preemption, no_wake_sync;
const volatile bool no_dl_preempt; /* --no-deadline-preempt */
const volatile bool no_slice_boost;
/* Autopilot thresholds on required capacity (loader: from the CPU capacities). */
const volatile u64 ap_low_cap = 512, ap_high_cap = 1024;

/* Topology as the loader laid it out. */
const volatile u32 nr_cpus = 1; /* online CPUs, in cpu_order */
const volatile u32 nr_doms = 1;
const volatile u32 cpu_dom[SCXK_MAX_CPUS];
const volatile u32 cpu_order[2][SCXK_MAX_CPUS]; /* CADENCE_ORDER_PERF / _SAVE */
const volatile u64 dom_bits[CADENCE_MAX_DOMS][SCXK_MASK_WORDS];
const volatile u32 dom_node[CADENCE_MAX_DOMS];
const volatile u32 dom_nr_cpus[CADENCE_MAX_DOMS];
const volatile bool dom_big[CADENCE_MAX_DOMS];
/* The same LLC's domain of the other core type, or CADENCE_NO_DOM. */
const volatile u32 dom_twin[CADENCE_MAX_DOMS];
/* Other domains, nearest first (same node before remote ones). */
const volatile u32 dom_nbr[CADENCE_MAX_DOMS][CADENCE_MAX_DOMS];

/* ---- shared with the loader ---- */
struct cadence_sys sys;
u32 pm_request = CADENCE_PM_BALANCED; /* --autopower: written by the loader */
u32 dom_stealee[CADENCE_MAX_DOMS];    /* 1 when over-loaded, by the timer */

/* ---- state ---- */
u64 cur_clk;	  /* the logical clock, in virtual time; only moves forward */
u32 active_epoch; /* bumped when the active set changes; bit 0 = order */

/* The MAX_RT_PRIO of include/linux/sched/prio.h: prio below this is RT or deadline. */
#define MAX_RT_PRIO 100

/* ---- helpers ---- */

static u32 nr_cpu_ids_max(void)
{
	return min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
}

static bool comm_is(const struct task_struct *p, const char *prefix, int len)
{
	for (int i = 0; i < len && i < 16; i++)
		if (p->comm[i] != prefix[i])
			return false;
	return true;
}

/* ---- callbacks, in the order the kernel calls them ---- */

s32 BPF_STRUCT_OPS(cadence_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 cpu;

	if (!tctx || scxk_fault_drop(p))
		return prev_cpu;
	tctx->boost = (wake_flags & SCX_WAKE_SYNC) ? CADENCE_BOOST_SYNC : 0;
	cpu = pick_idle_cpu(p, tctx, prev_cpu, wake_flags);
	if (cpu >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(tctx), 0);
		scxk_stat_inc(CADENCE_STAT_DIRECT);
		return cpu;
	}
	return prev_cpu;
}

void BPF_STRUCT_OPS(cadence_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_struct *waker;
	struct task_ctx *tctx = task_ctx(p), *wctx;
	u64 now = scxk_now();

	scxk_cgw_runnable(p);
	if (!tctx)
		return;
	tctx->acc_runtime = 0;
	tctx->waker_lat_cri = 0;
	if (!(enq_flags & SCX_ENQ_WAKEUP)) {
		tctx->boost = 0;
		update_lat_cri(p, tctx);
		return;
	}
	/* Long sleepers come back at most CADENCE_LAG_MAX_NS behind the clock. */
	tctx->svc = cadence_svc_floor(tctx->svc, start_vtime(scx_bpf_task_cpu(p)));
	tctx->boost += CADENCE_BOOST_WAKEUP;

	/*
	 * The waker is whatever runs here now. The idle task means an
	 * interrupt woke p (a device: input, audio, network); ksoftirqd
	 * means deferred interrupt work. Both sit at the head of a chain.
	 */
	waker = bpf_get_current_task_btf();
	if (!waker->pid)
		tctx->boost += CADENCE_BOOST_IRQ;
	else if ((waker->flags & PF_KTHREAD) && comm_is(waker, "ksoftirqd", 9))
		tctx->boost += CADENCE_BOOST_SOFTIRQ;
	if (waker->prio < MAX_RT_PRIO)
		tctx->boost += CADENCE_BOOST_RT;
	if (waker->pid && (wctx = task_ctx(waker))) {
		wctx->wake_freq = scxk_freq_update(wctx->wake_freq, now - wctx->last_wake_at);
		wctx->last_wake_at = now;
		tctx->waker_lat_cri = wctx->lat_cri;
	}
	update_lat_cri(p, tctx);
	tctx->boost = 0;
}

void BPF_STRUCT_OPS(cadence_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 prev_cpu = scx_bpf_task_cpu(p), cpu;
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *pc;
	u64 deadline, slice;
	u32 d;

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return;
	if (!tctx) {
		scxk_dsq_insert_vtime(p, dom_of(prev_cpu), slice_max_ns, READ_ONCE(cur_clk),
				      enq_flags);
		return;
	}
	/* Re-queued without a wakeup (preempted, slice over): the lock-holder
	 * boost may have changed since runnable() computed criticality. */
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		update_lat_cri(p, tctx);
	deadline = task_deadline(p, tctx);
	slice = task_slice(tctx);

	/*
	 * After an affinity change the previous CPU may be one the task can
	 * no longer use; queueing there would strand it where no allowed CPU
	 * looks (a runnable-task stall). Start from an allowed CPU instead.
	 */
	if (!scxk_migration_disabled(p) && !bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr)) {
		cpu = bpf_cpumask_any_distribute(p->cpus_ptr);
		if (cpu < 0 || (u32)cpu >= nr_cpu_ids_max())
			cpu = prev_cpu;
		prev_cpu = cpu;
	}

	/* Pinned tasks wait on their CPU's own queue; it is overflow-capable. */
	if (scxk_task_pinned(p)) {
		if ((enq_flags & SCX_ENQ_WAKEUP) && try_preempt(p, tctx, prev_cpu, scxk_now()))
			return;
		scxk_dsq_insert_vtime(p, SCXK_DSQ_CPU(prev_cpu), slice, deadline, enq_flags);
		scxk_kick_cpu(prev_cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_PINNED);
		return;
	}

	/* A big core idles while this task ran on a little one: move it. */
	pc = scxk_percpu_ctx_of(&cpu_ctxs, prev_cpu);
	if (pc && pc->upgrade_req) {
		pc->upgrade_req = 0;
		tctx->want_big = 1;
		scxk_stat_inc(CADENCE_STAT_UPGRADE);
	}

	/* Not placed by select_cpu (preempted, slice expired, new): look now. */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED) &&
	    (cpu = pick_idle_cpu(p, tctx, prev_cpu, 0)) >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice, enq_flags);
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_DIRECT);
		return;
	}
	if ((enq_flags & SCX_ENQ_WAKEUP) && try_preempt(p, tctx, prev_cpu, scxk_now()))
		return;

	d = dom_of(prev_cpu);
	scxk_dsq_insert_vtime(p, d, slice, deadline, enq_flags);
	scxk_stat_inc(CADENCE_STAT_DOM);
	kick_for(p, d);
}

/*
 * The kernel asks for the next task before it queues an expired @prev
 * again, so @prev would always give way to the head of the queue, even
 * when its deadline, charged for the run so far, is still the earliest:
 * with twice as many hogs as CPUs that caps every task at one slice in
 * two, whatever its weight (as scx_minimal found). Charge @prev now and let
 * it go on when it is still first in line. Only with tasks queued here:
 * an empty queue is the "nothing waits" case of cadence_dispatch().
 */
static bool keep_prev(struct task_struct *prev, u64 head)
{
	struct task_ctx *tctx;
	struct cpu_ctx *c;
	u64 now, svc, dl;

	if (head == ~0ULL || !scxk_prev_runnable(prev) || !(tctx = task_ctx(prev)) ||
	    !(c = scxk_percpu_ctx(&cpu_ctxs)))
		return false;
	now = scxk_now();
	svc = tctx->svc + scxk_cgw_charge_prev(prev, now - c->charged_at);
	dl = cadence_deadline(svc, tctx->dl_delta);
	if (scxk_time_before(head, dl))
		return false;
	tctx->svc = svc;
	tctx->deadline = dl;
	c->charged_at = now;
	c->curr_svc = svc;
	scxk_task_set_slice(prev, task_slice(tctx));
	c->est_stop = now + prev->scx.slice;
	return true;
}

void BPF_STRUCT_OPS(cadence_dispatch, s32 cpu, struct task_struct *prev)
{
	u64 cpu_dsq = SCXK_DSQ_CPU(cpu), head;
	u32 d = dom_of(cpu);
	struct task_ctx *tctx;

	/* An under-loaded domain helps an over-loaded one first. */
	if (nr_doms > 1 && sys.nr_stealees && !dom_stealee[d] && steal(d, true))
		return;
	head = scxk_dsq_earliest_head(cpu_dsq, d);
	/* Weight across domains: take a much earlier deadline from another. */
	if (nr_doms > 1 && steal_earlier(d, head, prev))
		return;
	if (keep_prev(prev, head))
		return;
	/* Earliest deadline of this CPU's queue and its domain's. */
	if (scxk_dsq_move_earliest(cpu_dsq, d))
		return;
	/* Nothing here: never idle while another domain has work. */
	if (nr_doms > 1 && steal(d, false))
		return;
	/* Nothing waits anywhere: prev keeps the CPU with a fresh slice. */
	if (scxk_prev_runnable(prev) && (tctx = task_ctx(prev)))
		scxk_task_set_slice(prev, task_slice(tctx));
}

void BPF_STRUCT_OPS(cadence_running, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = scxk_now(), clk, nclk;
	int i;

	if (!c)
		return;
	c->running = 1;
	c->run_start = now;
	c->charged_at = now;
	c->acct_at = now;
	c->est_stop = now + p->scx.slice;
	c->yield_req = 0;
	c->pinned = scxk_task_pinned(p);
	scxk_curr_running(now, tctx ? tctx->avg_runtime : 0, tctx ? tctx->dl_delta : 0);
	update_cpuperf(cpu, c);
	scxk_stat_inc(CADENCE_STAT_SCHED);
	if (scxk_cpu_is_big(cpu))
		scxk_stat_inc(CADENCE_STAT_ON_BIG);
	if (!tctx) {
		c->curr_lat_cri = 0;
		c->curr_dl_delta = 0;
		c->lock_holder = 0;
		return;
	}
	tctx->run_freq = scxk_freq_update(tctx->run_freq, now - tctx->last_run_at);
	tctx->last_run_at = now;
	c->curr_lat_cri = tctx->lat_cri;
	c->curr_dl_delta = tctx->dl_delta;
	c->curr_svc = tctx->svc;
	c->lock_holder = tctx->lock_held;
	if (tctx->lat_cri >= sys.avg_lat_cri)
		scxk_stat_inc(CADENCE_STAT_LAT_CRI);
	if (is_perf_cri(tctx))
		scxk_stat_inc(CADENCE_STAT_PERF_CRI);

	c->lc_sum += tctx->lat_cri;
	c->lc_nr++;
	if (tctx->lat_cri > c->lc_max)
		c->lc_max = tctx->lat_cri;
	c->pc_sum += tctx->perf_cri;
	if (tctx->perf_cri > c->pc_max)
		c->pc_max = tctx->perf_cri;
	if (!c->pc_min || tctx->perf_cri < c->pc_min)
		c->pc_min = tctx->perf_cri;

	/* Advance the logical clock towards this deadline; only forwards. */
	for (i = 0; i < 3; i++) {
		clk = READ_ONCE(cur_clk);
		nclk = cadence_clock_advance(clk, tctx->deadline, sys.nr_queued + 1);
		if (nclk == clk || __sync_val_compare_and_swap(&cur_clk, clk, nclk) == clk)
			break;
	}
	emit_sample(p, tctx, c, cpu, now);
}

void BPF_STRUCT_OPS(cadence_tick, struct task_struct *p)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	struct task_ctx *tctx;
	u64 now = scxk_now();

	if (!c)
		return;
	c->busy_ns += now - c->acct_at;
	c->acct_at = now;
	/*
	 * FUTEX_WAIT returning 0 also ends a condvar or barrier wait, so the
	 * "lock" may never be given back by a FUTEX_WAKE: a thread that passed
	 * a start barrier once would otherwise stay boosted and shielded for
	 * good. Real critical sections are short; drop the status after
	 * slice_max of CPU time. c->lock_holder mirrors the mark, so ticks of
	 * other tasks skip the task-storage lookup.
	 */
	if (c->lock_holder && (tctx = task_ctx(p)) && tctx->lock_held &&
	    tctx->lock_ran + (now - c->run_start) > slice_max_ns) {
		tctx->lock_held = 0;
		c->lock_holder = 0;
	}
	/* A more critical task waits on this CPU's queue: yield now. */
	if (c->yield_req) {
		c->yield_req = 0;
		scxk_task_set_slice(p, 0);
	}
}

void BPF_STRUCT_OPS(cadence_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	u64 now = scxk_now(), ran;

	if (!c)
		return;
	c->busy_ns += now - c->acct_at;
	c->acct_at = now;
	c->running = 0;
	c->lock_holder = 0;
	scxk_curr_stopping();
	c->curr_lat_cri = 0;
	if (!tctx)
		return;
	ran = now - c->run_start;
	tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
	tctx->acc_runtime += ran;
	tctx->svc += scxk_cgw_charge(p, now - c->charged_at);
	/* Going to sleep, or held longer than any critical section: released. */
	if (tctx->lock_held && (!runnable || (tctx->lock_ran += ran) > slice_max_ns))
		tctx->lock_held = 0;
}

void BPF_STRUCT_OPS(cadence_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	u64 now = scxk_now();

	scxk_cgw_quiescent(p);
	if (!tctx || !(deq_flags & SCX_DEQ_SLEEP))
		return;
	tctx->wait_freq = scxk_freq_update(tctx->wait_freq, now - tctx->last_wait_at);
	tctx->last_wait_at = now;
	/*
	 * A sleeping task holds no CPU; if it still held the lock the next
	 * contended acquire shows it again. This bounds a stale flag.
	 */
	tctx->lock_held = 0;
}

/* An RT or deadline task took this CPU: hand our queued tasks elsewhere. */
void BPF_STRUCT_OPS(cadence_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);

	if (c)
		c->rt_busy = 1;
	scxk_reenqueue_local();
}

void BPF_STRUCT_OPS(cadence_cpu_acquire, s32 cpu, struct scx_cpu_acquire_args *args)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);

	if (c)
		c->rt_busy = 0;
}

/*
 * CPU hotplug, in place: with both callbacks the kernel keeps the
 * scheduler attached through a CPU change. The layout (domains, CPU order)
 * stays as the loader made it: an offline CPU is never idle in the
 * kernel's masks, so no search returns it, the kernel moves the tasks off
 * a dying CPU, and the timer leaves it out of the load and of compaction
 * (scxk_cpu_online()). A CPU the layout lacks (offline at start) joins the
 * active CPUs and serves domain 0's queue until the next start.
 */
void BPF_STRUCT_OPS(cadence_cpu_online, s32 cpu)
{
	struct bpf_cpumask *m;

	scxk_online_set(cpu, true);
	scxk_stat_inc(CADENCE_STAT_HOTPLUG);
	if (scxk_bits_test(dom_bits[dom_of(cpu)], cpu))
		return;
	bpf_rcu_read_lock();
	if ((m = mask_of(MASK_ACTIVE)))
		bpf_cpumask_set_cpu(cpu, m);
	bpf_rcu_read_unlock();
}

void BPF_STRUCT_OPS(cadence_cpu_offline, s32 cpu)
{
	scxk_online_set(cpu, false);
	scxk_stat_inc(CADENCE_STAT_HOTPLUG);
}

s32 BPF_STRUCT_OPS(cadence_cgroup_init, struct cgroup *cgrp, struct scx_cgroup_init_args *args)
{
	return scxk_cgw_init(cgrp, args);
}

void BPF_STRUCT_OPS(cadence_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	scxk_cgw_set_weight(cgrp, weight);
}

s32 BPF_STRUCT_OPS(cadence_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, true);
	u64 now = scxk_now();

	if (!tctx)
		return -ENOMEM;
	tctx->last_wait_at = now;
	tctx->last_wake_at = now;
	tctx->last_run_at = now;
	/* New tasks start at the clock (or where the forking CPU is): no credit, no penalty. */
	tctx->svc = start_vtime(bpf_get_smp_processor_id());
	tctx->lat_cri = 1;
	return 0;
}

/* ---- initialisation ---- */

static s32 init_masks(void)
{
	struct bpf_cpumask *m;
	u32 d, cpu, nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	s32 err;

	bpf_for (d, 0, NR_MASKS)
		if ((err = scxk_mask_slot_new(&cpumasks, d, NULL)))
			return err;
	bpf_rcu_read_lock();
	bpf_for (cpu, 0, nr) {
		d = dom_of(cpu);
		if (!scxk_bits_test(dom_bits[d], cpu))
			continue;
		if ((m = mask_of(MASK_DOM(d))))
			bpf_cpumask_set_cpu(cpu, m);
		/* Everything starts active; the first timer run compacts. */
		if ((m = mask_of(MASK_DOMACT(d))))
			bpf_cpumask_set_cpu(cpu, m);
		if ((m = mask_of(MASK_ACTIVE)))
			bpf_cpumask_set_cpu(cpu, m);
		if (scxk_cpu_is_big(cpu) && (m = mask_of(MASK_BIG)))
			bpf_cpumask_set_cpu(cpu, m);
	}
	bpf_rcu_read_unlock();
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(cadence_init)
{
	u32 d;
	s32 err;

	if ((err = scxk_topo_init()) || (err = init_masks()) ||
	    (err = scxk_dsq_create_topo(SCXK_DSQ_TOPO_CPU)))
		return err;
	bpf_for (d, 0, nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS)
		if ((err = scx_bpf_create_dsq(d, dom_node[d & (CADENCE_MAX_DOMS - 1)])))
			return err;
	sys.nr_active_cpus = scxk_online.nr;
	sys.active_pos = nr_cpus;
	sys.slice_ns = slice_max_ns;
	sys.power_mode = pm_policy == CADENCE_PMP_FIXED ? pm_fixed : CADENCE_PM_BALANCED;
	active_epoch = 0;

	return start_sys_timer();
}

void BPF_STRUCT_OPS(cadence_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(cadence_ops, .select_cpu = (void *)cadence_select_cpu,
		.runnable = (void *)cadence_runnable, .enqueue = (void *)cadence_enqueue,
		.dispatch = (void *)cadence_dispatch, .running = (void *)cadence_running,
		.tick = (void *)cadence_tick, .stopping = (void *)cadence_stopping,
		.quiescent = (void *)cadence_quiescent, .cpu_release = (void *)cadence_cpu_release,
		.cpu_acquire = (void *)cadence_cpu_acquire,
		.cpu_online = (void *)cadence_cpu_online,
		.cpu_offline = (void *)cadence_cpu_offline, .init_task = (void *)cadence_init_task,
		.cgroup_init = (void *)cadence_cgroup_init,
		.cgroup_set_weight = (void *)cadence_cgroup_set_weight,
		.init = (void *)cadence_init, .exit = (void *)cadence_exit,
		.flags = SCX_OPS_ENQ_EXITING | SCX_OPS_ENQ_LAST | SCX_OPS_ENQ_MIGRATION_DISABLED,
		.timeout_ms = 30000, /* the kernel's default, as LAVD */
		.name = "cadence");
