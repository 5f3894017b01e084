// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_brisk - responsiveness first, for desktops (bpfland-like).
 *
 * Every task is ordered by a deadline: its vruntime plus the weighted time
 * it has run since it last woke up. A task that sleeps often and runs
 * briefly (a compositor, an audio thread, an input handler) comes back with
 * almost no awake time and some sleep credit, so it sorts ahead of CPU hogs
 * whose awake time keeps growing. Sleep credit is bounded (--slice-us-lag)
 * and grows with how often the task wakes up, but shrinks as queues fill and
 * vanishes in a fork or message storm, which would otherwise look just as
 * "interactive" (policy.h: brisk_lag_scale).
 *
 * Slices are --slice-us scaled by weight and divided among the waiting
 * tasks, never below --slice-min-us. A task that wakes up to run briefly
 * preempts a hog on its previous or the waking CPU, pinned or not
 * (scxkit/preempt.bpf.h has the rule); any other wakee preempts only a
 * task whose deadline is clearly later.
 *
 * Placement: a fully idle core in the preferred ("primary") domain, then
 * any idle CPU there, then anywhere, nearest to the previous CPU first; on
 * hybrid machines a wakee follows a faster waker. Queues are one per CPU
 * (pinned tasks, preemption targets) and one per NUMA node; a CPU serves
 * whichever head has the earlier deadline, and a running task whose slice
 * ran out keeps its CPU while its own deadline is still the earliest,
 * unless its SMT sibling is busy and a whole core idles.
 *
 * vruntime advances by run time over the task's weight flattened through
 * its cgroups (scxkit/cgweight.bpf.h), so cgroup cpu.weight is honoured
 * down the hierarchy wherever the tasks meet in one deadline order.
 *
 * Choose it for desktops and interactive work beside background load. It
 * trades some throughput for latency, and one queue per node becomes a
 * contention point on very large single-node machines.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cgweight.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/preempt.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"
#include "policy.h"

/* ---- knobs, set by the loader before load ---- */
const volatile u64 slice_max = 5 * SCXK_NSEC_PER_MSEC;	 /* --slice-us */
const volatile u64 slice_min = 250 * SCXK_NSEC_PER_USEC; /* --slice-min-us */
const volatile u64 slice_lag = 40 * SCXK_NSEC_PER_MSEC;	 /* --slice-us-lag */
const volatile u64 throttle_ns;		/* --throttle-us: idle injected per slice_max */
const volatile bool local_pcpu;		/* -p: per-CPU tasks straight to their CPU */
const volatile bool local_kthreads;	/* -k: per-CPU kthreads straight to their CPU */
const volatile bool no_wake_sync;	/* -w: ignore SCX_WAKE_SYNC */
const volatile bool sticky_tasks;	/* -S: very short tasks keep their CPU */
const volatile bool smt_aware = true;	/* --disable-smt clears it */
const volatile bool numa_aware = true;	/* --disable-numa clears it */
const volatile bool primary_all = true; /* the primary domain is every CPU */
const volatile u32 cpufreq_mode;	/* enum brisk_cpufreq */
const volatile bool no_preempt;		/* --no-preempt */

/* The primary domain as a bitmap, written by the loader (-m). */
u64 primary_bits[SCXK_MASK_WORDS] SEC(".data.brisk_primary");

/* ---- state ---- */
static u64 vtime_now;
static bool throttled;

struct task_ctx {
	/*
	 * The task's vruntime. Not p->scx.dsq_vtime: inserting into a vtime
	 * DSQ overwrites that with the queue key, which here is the deadline.
	 */
	u64 vtime;
	u64 awake_vtime; /* weighted runtime since the last wakeup */
	u64 wakeup_freq; /* wakeups per 100 ms, EWMA */
	u64 last_woke_at;
	u64 last_run_at;
	u64 charged_at;	 /* run time up to here is in vtime already */
	u64 avg_runtime; /* per scheduling, EWMA */
	u64 deadline;	 /* the last deadline computed */
};
SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

SCXK_PERCPU_CTX(cpu_ctxs, struct brisk_cpu_ctx); /* the loader sums .running */

SCXK_MASK_SLOTS(primary_map, 1);

struct throttle_timer {
	struct bpf_timer timer;
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct throttle_timer);
} throttle_map SEC(".maps");

#define CPUFREQ_WINDOW_NS (100 * SCXK_NSEC_PER_MSEC)

/* ---- helpers ---- */

static struct task_ctx *task_ctx(struct task_struct *p)
{
	return scxk_task_storage(&task_ctxs, p, false);
}

static const struct cpumask *primary_cpumask(void)
{
	return (const struct cpumask *)scxk_mask_slot_get(&primary_map, 0);
}

static bool is_pcpu_task(const struct task_struct *p)
{
	return scxk_task_pinned(p);
}

static bool is_pcpu_kthread(const struct task_struct *p)
{
	return (p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1;
}

static u64 node_dsq(s32 cpu)
{
	return SCXK_DSQ_NODE(numa_aware ? scxk_cpu_node(cpu) & (SCXK_MAX_NODES - 1) : 0);
}

static u64 nr_waiting(s32 cpu)
{
	return scx_bpf_dsq_nr_queued(SCXK_DSQ_CPU(cpu)) + scx_bpf_dsq_nr_queued(node_dsq(cpu));
}

static u64 task_deadline(struct task_struct *p, struct task_ctx *tctx, s32 cpu, bool wakeup,
			 bool is_prev)
{
	u64 nr = nr_waiting(cpu);
	u64 scale = brisk_lag_scale(tctx->wakeup_freq, nr, scxk_topo.nr_cpu_ids, slice_max);
	u64 budget = brisk_lag_budget(nr, scxk_topo.nr_cpu_ids);
	u64 lag = brisk_lag(slice_lag, scale, budget, p->flags & PF_KTHREAD);
	u64 lead = budget;

	/* The lead in this task's cgroup units: its cgroups' factor, not its own weight. */
	if (budget != ~0ULL)
		lead = (is_prev ? scxk_cgw_charge_prev(p, budget) : scxk_cgw_charge(p, budget)) *
		       p->scx.weight / SCXK_WEIGHT_DFL;
	/* Light tasks race ahead of the clock; keep them within reach. */
	tctx->deadline = brisk_deadline(&tctx->vtime, vtime_now, tctx->awake_vtime, lag, budget,
					lead, p->scx.weight, wakeup);
	return tctx->deadline;
}

static u64 task_slice(struct task_struct *p, s32 cpu)
{
	u64 s = brisk_slice(slice_max, slice_min, p->scx.weight, nr_waiting(cpu));

	scxk_stat_inc(BRISK_STAT_SLICE_HIST + scxk_log2_bucket(s / SCXK_NSEC_PER_USEC,
							       BRISK_SLICE_HIST_LO,
							       BRISK_HIST_BUCKETS));
	return s;
}

/* An idle CPU in @dom that @p may use: whole idle cores first. */
static s32 pick_idle_in(struct task_struct *p, const struct cpumask *dom)
{
	s32 cpu;

	if (!dom)
		return -EBUSY;
	if (smt_aware && scxk_topo.smt &&
	    (cpu = scxk_pick_idle_in(p, dom, SCX_PICK_IDLE_CORE)) >= 0)
		return cpu;
	return scxk_pick_idle_in(p, dom, 0);
}

static s32 pick_idle_cpu(struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	u64 flags = smt_aware ? 0 : SCXK_IDLE_NO_CORE;
	s32 this_cpu = bpf_get_smp_processor_id(), cpu;

	/*
	 * On hybrid machines a wakee starts its search from a faster waker's
	 * CPU: the producer/consumer pair then converges on big cores.
	 */
	if (primary_all && scxk_topo.hybrid && (wake_flags & SCX_WAKE_TTWU) &&
	    scxk_cpu_capacity(this_cpu) > scxk_cpu_capacity(prev_cpu) &&
	    bpf_cpumask_test_cpu(this_cpu, p->cpus_ptr)) {
		prev_cpu = this_cpu;
		scxk_stat_inc(BRISK_STAT_WAKER_PULL);
	}

	/*
	 * A sync waker is about to sleep: its CPU frees up right away, and
	 * the wakee finds the data the waker just produced in that cache.
	 */
	if ((wake_flags & SCX_WAKE_SYNC) && !no_wake_sync && !is_pcpu_task(p) &&
	    bpf_cpumask_test_cpu(this_cpu, p->cpus_ptr) &&
	    scxk_cpu_llc(this_cpu) == scxk_cpu_llc(prev_cpu) &&
	    !scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | this_cpu) &&
	    !scx_bpf_dsq_nr_queued(SCXK_DSQ_CPU(this_cpu))) {
		const struct cpumask *idle_smt = scx_bpf_get_idle_smtmask();
		bool prev_core_idle = bpf_cpumask_test_cpu(prev_cpu, idle_smt);

		scx_bpf_put_idle_cpumask(idle_smt);
		if (!prev_core_idle)
			return this_cpu;
	}

	if (!primary_all && (cpu = pick_idle_in(p, primary_cpumask())) >= 0)
		return cpu;
	/*
	 * The whole machine, nearest first: a search kept inside prev_cpu's
	 * LLC left a wakee queued behind busy CPUs there (or preempting them)
	 * while the other LLC idled (brisk-llc: 0-1 of 20 wakeups there).
	 */
	return scxk_pick_idle_cpu(p, prev_cpu, flags);
}

/* ---- callbacks, in the order the kernel calls them ---- */

s32 BPF_STRUCT_OPS(brisk_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 cpu;

	if (!tctx || scxk_fault_drop(p))
		return prev_cpu;
	cpu = pick_idle_cpu(p, prev_cpu, wake_flags);
	if (cpu >= 0 && !throttled) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p, cpu), 0);
		scxk_stat_inc(BRISK_STAT_DIRECT);
		return cpu;
	}
	return prev_cpu;
}

/*
 * A waking @p that runs briefly takes the CPU of a hog on its previous or
 * the waking CPU (preempt.bpf.h has the rule); any other wakee preempts
 * its previous CPU only with a clear lead in deadline (one slice_max of
 * vtime), so that equals do not ping-pong.
 */
static bool try_preempt(struct task_struct *p, struct task_ctx *tctx, u64 deadline, s32 prev_cpu,
			u64 enq_flags)
{
	struct brisk_cpu_ctx *cctx;
	s32 cpu;

	if (no_preempt || !(enq_flags & SCX_ENQ_WAKEUP))
		return false;
	cpu = scxk_preempt_victim(p, prev_cpu, tctx->avg_runtime, deadline, slice_min / 4);
	if (cpu < 0) {
		cpu = prev_cpu;
		cctx = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr) || !cctx || !cctx->running ||
		    !brisk_should_preempt(deadline, cctx->curr_deadline,
					  scxk_scale_by_weight_inv(slice_max, 100)))
			return false;
	}
	/*
	 * Straight onto the CPU's local DSQ with PREEMPT: p runs next there,
	 * and if an RT task takes that CPU meanwhile, cpu_release hands p
	 * back to enqueue instead of leaving it stranded behind the RT task.
	 */
	scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(p, cpu), enq_flags | SCX_ENQ_PREEMPT);
	scxk_stat_inc(BRISK_STAT_PREEMPT);
	return true;
}

void BPF_STRUCT_OPS(brisk_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 prev_cpu = scx_bpf_task_cpu(p), cpu;
	struct task_ctx *tctx = task_ctx(p);
	u64 deadline;

	if (scxk_fault_drop(p))
		return;
	if (is_pcpu_kthread(p) && (local_kthreads || throttle_ns)) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_max, enq_flags);
		scxk_stat_inc(BRISK_STAT_KTHREAD);
		return;
	}
	if (!tctx) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_max, enq_flags);
		return;
	}
	if (sticky_tasks && tctx->avg_runtime < BRISK_STICKY_NS) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p, prev_cpu), enq_flags);
		scxk_stat_inc(BRISK_STAT_STICKY);
		return;
	}

	deadline = task_deadline(p, tctx, prev_cpu, enq_flags & SCX_ENQ_WAKEUP, false);
	if (is_pcpu_task(p)) {
		if (local_pcpu) {
			scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p, prev_cpu), enq_flags);
			scxk_stat_inc(BRISK_STAT_DIRECT);
		} else if (!try_preempt(p, tctx, deadline, prev_cpu, enq_flags)) {
			scxk_dsq_insert_vtime(p, SCXK_DSQ_CPU(prev_cpu), task_slice(p, prev_cpu),
					      deadline, enq_flags);
			scxk_stat_inc(BRISK_STAT_PERCPU);
			scxk_kick_cpu(prev_cpu, SCX_KICK_IDLE);
		}
		return;
	}

	/*
	 * Not placed by select_cpu (new, preempted, woken from a remote CPU
	 * queue): look for an idle CPU now.
	 */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED) && !throttled &&
	    (cpu = pick_idle_cpu(p, prev_cpu, 0)) >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(p, cpu), enq_flags);
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(prev_cpu == cpu ? BRISK_STAT_DIRECT : BRISK_STAT_SMT_MOVE);
		return;
	}
	if (try_preempt(p, tctx, deadline, prev_cpu, enq_flags))
		return;

	scxk_dsq_insert_vtime(p, node_dsq(prev_cpu), task_slice(p, prev_cpu), deadline, enq_flags);
	scxk_stat_inc(BRISK_STAT_NODE);
}

/* Whether @prev's core has a busy sibling while a whole core idles elsewhere. */
static bool smt_contended(struct task_struct *prev, s32 cpu)
{
	const struct cpumask *idle_smt;
	s32 sib;
	bool contended;

	if (!smt_aware || !scxk_topo.smt || (u32)cpu >= SCXK_MAX_CPUS)
		return false;
	sib = scxk_topo.cpus[SCXK_CPU_IDX(cpu)].sibling;
	idle_smt = scx_bpf_get_idle_smtmask();
	contended = sib >= 0 && !bpf_cpumask_test_cpu(cpu, idle_smt) &&
		    bpf_cpumask_intersects(idle_smt, prev->cpus_ptr);
	scx_bpf_put_idle_cpumask(idle_smt);
	return contended;
}

/*
 * Charge @p's run time since it was last charged to its vruntime and awake
 * time, at its weight flattened through its cgroups; @in_dispatch for
 * ops.dispatch()'s @prev, the one task that callback may charge.
 */
static void charge(struct task_struct *p, struct task_ctx *tctx, u64 now, bool in_dispatch)
{
	u64 ran = now - tctx->charged_at;

	tctx->charged_at = now;
	tctx->vtime += in_dispatch ? scxk_cgw_charge_prev(p, ran) : scxk_cgw_charge(p, ran);
	tctx->awake_vtime = brisk_awake_vtime(tctx->awake_vtime, ran, p->scx.weight, slice_lag);
}

void BPF_STRUCT_OPS(brisk_dispatch, s32 cpu, struct task_struct *prev)
{
	u64 cpu_dsq = SCXK_DSQ_CPU(cpu), nd = node_dsq(cpu), head;
	struct task_ctx *tctx;

	if (throttled)
		return;
	/*
	 * The kernel asks for the next task before it queues @prev again, so
	 * a @prev whose slice ran out would give way to the queues' heads
	 * even with the earliest deadline, and no task could run two slices
	 * in a row whatever its weight (nice 0 beside nice 5 got 2.26x the
	 * CPU, not 3.06x). Charge it now and let it go on while it is first.
	 */
	if (scxk_prev_runnable(prev) && (tctx = task_ctx(prev))) {
		charge(prev, tctx, scxk_now(), true);
		head = scxk_dsq_earliest_head(cpu_dsq, nd);
		if (head != ~0ULL &&
		    !scxk_time_before(head, task_deadline(prev, tctx, cpu, false, true)) &&
		    !smt_contended(prev, cpu)) {
			scxk_task_set_slice(prev, task_slice(prev, cpu));
			scxk_stat_inc(BRISK_STAT_KEEP);
			return;
		}
	}
	/* Earliest deadline of the two queues first, the other as fallback. */
	if (scxk_dsq_move_earliest(cpu_dsq, nd))
		return;

	/* Nothing waits here: let prev run on, unless its core is contended. */
	if (scxk_prev_runnable(prev) && !smt_contended(prev, cpu)) {
		scxk_task_set_slice(prev, task_slice(prev, cpu));
		scxk_stat_inc(BRISK_STAT_KEEP);
	}
}

void BPF_STRUCT_OPS(brisk_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	u64 now = scxk_now();

	if (!tctx)
		return;
	/* A wakeup starts a new awake period and updates the wakeup rate. */
	tctx->awake_vtime = 0;
	scxk_cgw_runnable(p);
	tctx->wakeup_freq = brisk_wakeup_freq(tctx->wakeup_freq, now - tctx->last_woke_at);
	tctx->last_woke_at = now;
	scxk_stat_inc(BRISK_STAT_FREQ_HIST + scxk_log2_bucket(tctx->wakeup_freq * 10,
							      BRISK_FREQ_HIST_LO,
							      BRISK_HIST_BUCKETS));
}

static void update_cpufreq(s32 cpu, struct brisk_cpu_ctx *cctx, u64 now)
{
	u32 perf;

	switch (cpufreq_mode) {
	case BRISK_CPUFREQ_MAX:
		perf = 1024;
		break;
	case BRISK_CPUFREQ_MIN:
		perf = 1;
		break;
	case BRISK_CPUFREQ_AUTO:
		if (now - cctx->window_start >= CPUFREQ_WINDOW_NS) {
			cctx->perf_target =
				brisk_perf_target(cctx->busy_ns, now - cctx->window_start);
			cctx->busy_ns = 0;
			cctx->window_start = now;
		}
		perf = cctx->perf_target;
		break;
	default:
		return;
	}
	if (cctx->perf_set != perf + 1) {
		scx_bpf_cpuperf_set(cpu, perf);
		cctx->perf_set = perf + 1;
	}
}

void BPF_STRUCT_OPS(brisk_running, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);
	struct brisk_cpu_ctx *cctx = scxk_percpu_ctx(&cpu_ctxs);
	u64 now = scxk_now();

	if (tctx) {
		if (scxk_time_before(vtime_now, tctx->vtime))
			vtime_now = tctx->vtime;
		tctx->last_run_at = now;
		tctx->charged_at = now;
		scxk_curr_running(now, tctx->avg_runtime, tctx->deadline);
	}
	if (cctx) {
		cctx->running = 1;
		cctx->curr_deadline = tctx ? tctx->deadline : ~0ULL;
		update_cpufreq(scx_bpf_task_cpu(p), cctx, now);
	}
}

void BPF_STRUCT_OPS(brisk_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	struct brisk_cpu_ctx *cctx = scxk_percpu_ctx(&cpu_ctxs);
	u64 now = scxk_now(), ran;

	scxk_curr_stopping();
	if (cctx) {
		cctx->running = 0;
		cctx->curr_deadline = ~0ULL;
	}
	if (!tctx)
		return;
	ran = now - tctx->last_run_at;
	if (cctx)
		cctx->busy_ns += ran;
	tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
	charge(p, tctx, now, false);
}

void BPF_STRUCT_OPS(brisk_quiescent, struct task_struct *p, u64 deq_flags)
{
	scxk_cgw_quiescent(p);
}

s32 BPF_STRUCT_OPS(brisk_cgroup_init, struct cgroup *cgrp, struct scx_cgroup_init_args *args)
{
	return scxk_cgw_init(cgrp, args);
}

void BPF_STRUCT_OPS(brisk_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	scxk_cgw_set_weight(cgrp, weight);
}

/*
 * An RT or deadline task took this CPU: whatever waits on its local DSQ
 * would wait for as long as that task runs (a SCHED_FIFO hog: forever), so
 * give it back to enqueue, which finds another CPU or the node queue.
 */
void BPF_STRUCT_OPS(brisk_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	scxk_reenqueue_local();
	scxk_stat_inc(BRISK_STAT_REENQ);
}

void BPF_STRUCT_OPS(brisk_enable, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx)
		tctx->vtime = vtime_now;
}

s32 BPF_STRUCT_OPS(brisk_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, true);

	if (!tctx)
		return -ENOMEM;
	tctx->last_woke_at = scxk_now();
	return 0;
}

/*
 * CPU hotplug, in place: with both callbacks the kernel keeps the
 * scheduler attached through a CPU change. Nothing here needs redoing: an
 * offline CPU is never idle in the kernel's masks, so no search returns
 * it, and the kernel moves the tasks off a dying CPU. The loader follows
 * the count (scxk_online) for -I and for a primary domain that should
 * now cover a CPU it could not at start.
 */
void BPF_STRUCT_OPS(brisk_cpu_online, s32 cpu)
{
	scxk_online_set(cpu, true);
	scxk_stat_inc(BRISK_STAT_HOTPLUG);
}

void BPF_STRUCT_OPS(brisk_cpu_offline, s32 cpu)
{
	scxk_online_set(cpu, false);
	scxk_stat_inc(BRISK_STAT_HOTPLUG);
}

/* Idle injection (-t): run slice_max, then force throttle_ns of idle. */
static int throttle_timerfn(void *map, int *key, struct bpf_timer *timer)
{
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	s32 cpu;

	throttled = !throttled;
	if (throttled)
		scxk_stat_inc(BRISK_STAT_THROTTLE);
	bpf_for (cpu, 0, nr)
		scxk_kick_cpu(cpu, throttled ? SCX_KICK_PREEMPT : SCX_KICK_IDLE);
	bpf_timer_start(timer, throttled ? throttle_ns : slice_max, 0);
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(brisk_init)
{
	struct throttle_timer *t;
	u32 zero = 0;
	s32 err;

	if ((err = scxk_topo_init()) || (err = scxk_mask_slot_new(&primary_map, 0, primary_bits)) ||
	    (err = scxk_dsq_create_topo(SCXK_DSQ_TOPO_CPU | SCXK_DSQ_TOPO_NODE)))
		return err;
	if (throttle_ns) {
		t = bpf_map_lookup_elem(&throttle_map, &zero);
		if (!t)
			return -ENOENT;
		bpf_timer_init(&t->timer, &throttle_map, CLOCK_MONOTONIC);
		bpf_timer_set_callback(&t->timer, throttle_timerfn);
		if ((err = bpf_timer_start(&t->timer, slice_max, 0)))
			return err;
	}
	return 0;
}

void BPF_STRUCT_OPS(brisk_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(brisk_ops, .select_cpu = (void *)brisk_select_cpu, .enqueue = (void *)brisk_enqueue,
		.dispatch = (void *)brisk_dispatch, .runnable = (void *)brisk_runnable,
		.running = (void *)brisk_running, .stopping = (void *)brisk_stopping,
		.quiescent = (void *)brisk_quiescent, .cgroup_init = (void *)brisk_cgroup_init,
		.cgroup_set_weight = (void *)brisk_cgroup_set_weight,
		.cpu_release = (void *)brisk_cpu_release, .cpu_online = (void *)brisk_cpu_online,
		.cpu_offline = (void *)brisk_cpu_offline, .enable = (void *)brisk_enable,
		.init_task = (void *)brisk_init_task, .init = (void *)brisk_init,
		.exit = (void *)brisk_exit,
		.flags = SCX_OPS_ENQ_EXITING | SCX_OPS_ENQ_LAST | SCX_OPS_ENQ_MIGRATION_DISABLED,
		.timeout_ms = 30000, /* the kernel default; see README: Limits */
		.name = "brisk");
