// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_minimal - the template: the smallest complete, correct scheduler.
 *
 * Every task that wakes looks for an idle CPU first (a fully idle SMT core,
 * then any idle CPU, nearest to where it last ran: scxk_pick_idle_cpu). If
 * it finds one, the task goes straight to that CPU's local queue and no
 * shared state is touched. Otherwise it joins one shared queue, ordered by
 * weighted virtual time: each task's vtime grows by the time it ran divided
 * by its weight, so a nice -5 task (weight ~3x) advances 3x slower and gets
 * ~3x the CPU. With --fifo the queue is plain first-come first-served.
 *
 * Sleep credit is bounded to one slice: a task waking from a long sleep
 * starts at most one slice ahead of the queue's current vtime, so it runs
 * soon but cannot monopolise a CPU. The slice itself shrinks with weight
 * (task_slice), so one run never pushes a task more than one slice of
 * vtime behind the others: with a fixed slice a nice 19 task (weight 1)
 * would fall 100 slices behind per run and, under a fork storm, wait long
 * enough for the kernel's watchdog to eject the scheduler.
 *
 * cgroup cpu.weight is honoured down the hierarchy by charging each run at
 * the task's flattened weight (scxkit/cgweight.bpf.h): with every waiting
 * task in one vtime order, that gives each cgroup its share among its
 * siblings wherever its tasks run. --fifo ignores weights and cgroups.
 *
 * Choose it to learn sched_ext or as a starting point. One shared queue
 * becomes a contention point beyond a few dozen CPUs, and it knows nothing
 * of interactivity: the other schedulers in scheds/ build on this shape.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cgweight.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/sched_math.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"

/* Set by the loader before load (--fifo, --slice-us). */
const volatile bool fifo_sched;
const volatile u64 slice_ns = 20 * SCXK_NSEC_PER_MSEC; /* SCX_SLICE_DFL */

/* The vtime of the task that started running last: the queue's "now". */
static u64 vtime_now;

/* Shortest slice a light task gets: shorter would cost more in switches. */
#define MINIMAL_SLICE_MIN_NS (100 * SCXK_NSEC_PER_USEC)

/* slice_ns scaled by weight, within [MINIMAL_SLICE_MIN_NS, slice_ns]. */
static u64 task_slice(struct task_struct *p)
{
	u64 s = scxk_scale_by_weight(slice_ns, p->scx.weight);

	if (fifo_sched || s > slice_ns)
		return slice_ns;
	return s < MINIMAL_SLICE_MIN_NS ? MINIMAL_SLICE_MIN_NS : s;
}

s32 BPF_STRUCT_OPS(minimal_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu;

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return prev_cpu;
	cpu = scxk_pick_idle_cpu(p, prev_cpu, 0);
	if (cpu >= 0) {
		/* Idle CPU claimed: queue locally, it will pick p up at once. */
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(p), 0);
		scxk_stat_inc(MINIMAL_STAT_LOCAL);
		return cpu;
	}
	return prev_cpu;
}

void BPF_STRUCT_OPS(minimal_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu;

	if (scxk_fault_drop(p))
		return;
	scxk_stat_inc(MINIMAL_STAT_GLOBAL);
	if (fifo_sched) {
		scxk_dsq_insert(p, MINIMAL_DSQ_SHARED, slice_ns, enq_flags);
	} else {
		u64 vtime = scxk_vtime_floor(p->scx.dsq_vtime, vtime_now, slice_ns);

		scxk_dsq_insert_vtime(p, MINIMAL_DSQ_SHARED, task_slice(p), vtime, enq_flags);
	}

	/*
	 * Tasks that did not come through select_cpu (new, preempted, or
	 * re-queued) could wait while a CPU idles: wake one up for them.
	 */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(MINIMAL_STAT_KICKS);
	}
}

/*
 * What each task had run in all when it last started running. Run time is
 * charged from the kernel's count, not from what is left of the slice: a
 * slice ends at the next tick after it runs out, so a 6 ms slice (nice 5)
 * runs 8 ms at HZ=250, and charging only the 6 gave light tasks a quarter
 * more than their weight.
 */
struct task_ctx {
	u64 exec_start;
};

SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

/*
 * Run time @p has used since it started running or was last charged; with
 * @charged, the count restarts from now.
 */
static u64 run_time(struct task_struct *p, bool charged)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, false);
	u64 now = p->se.sum_exec_runtime, used;

	if (!tctx)
		return 0;
	used = now > tctx->exec_start ? now - tctx->exec_start : 0;
	if (charged)
		tctx->exec_start = now;
	return used;
}

void BPF_STRUCT_OPS(minimal_dispatch, s32 cpu, struct task_struct *prev)
{
	/*
	 * The kernel asks for the next task before it queues @prev again, so
	 * a @prev whose slice ran out would always give way to the head of
	 * the queue, even when its vtime is still the earliest: with twice
	 * as many hogs as CPUs that caps every task at one slice in two,
	 * whatever its weight (cpu.weight 400 beside 100 got 2.7x the CPU, not 4x).
	 * Charge @prev now and let it go on when it is still first in line.
	 */
	if (!fifo_sched && scxk_prev_runnable(prev)) {
		u64 vtime = prev->scx.dsq_vtime + scxk_cgw_charge_prev(prev, run_time(prev, false));

		if (!scxk_time_before(scxk_dsq_head_vtime(MINIMAL_DSQ_SHARED), vtime)) {
			prev->scx.dsq_vtime = vtime;
			run_time(prev, true);
			scxk_task_set_slice(prev, task_slice(prev));
			scxk_stat_inc(MINIMAL_STAT_KEPT);
			return;
		}
	}
	scxk_dsq_move_to_local(MINIMAL_DSQ_SHARED);
}

void BPF_STRUCT_OPS(minimal_running, struct task_struct *p)
{
	struct task_ctx *tctx;

	if (fifo_sched)
		return;
	if ((tctx = scxk_task_storage(&task_ctxs, p, true)))
		tctx->exec_start = p->se.sum_exec_runtime;
	/* Racy across CPUs, but it only moves forward and errors stay small. */
	if (scxk_time_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
}

void BPF_STRUCT_OPS(minimal_stopping, struct task_struct *p, bool runnable)
{
	if (fifo_sched)
		return;
	p->scx.dsq_vtime += scxk_cgw_charge(p, run_time(p, true));
}

void BPF_STRUCT_OPS(minimal_runnable, struct task_struct *p, u64 enq_flags)
{
	if (!fifo_sched)
		scxk_cgw_runnable(p);
}

void BPF_STRUCT_OPS(minimal_quiescent, struct task_struct *p, u64 deq_flags)
{
	if (!fifo_sched)
		scxk_cgw_quiescent(p);
}

s32 BPF_STRUCT_OPS(minimal_cgroup_init, struct cgroup *cgrp, struct scx_cgroup_init_args *args)
{
	return scxk_cgw_init(cgrp, args);
}

void BPF_STRUCT_OPS(minimal_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	scxk_cgw_set_weight(cgrp, weight);
}

void BPF_STRUCT_OPS(minimal_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

/*
 * With both hotplug callbacks defined, the kernel keeps the scheduler
 * attached through a CPU going offline or online instead of exiting it for
 * a restart. Nothing here needs redoing: the shared queue is served by
 * whichever CPUs are online, idle picking goes through the kernel's idle
 * masks (an offline CPU is never idle there, and one back online joins
 * them), and the kernel moves tasks off a dying CPU and re-checks a CPU
 * that select_cpu returned. A CPU that was offline at load is missing from
 * the LLC/node masks until the next start, which only costs locality: the
 * "anywhere" step of scxk_pick_idle_cpu() still finds it.
 */
void BPF_STRUCT_OPS(minimal_cpu_online, s32 cpu)
{
	scxk_stat_inc(MINIMAL_STAT_HOTPLUG);
}

void BPF_STRUCT_OPS(minimal_cpu_offline, s32 cpu)
{
	scxk_stat_inc(MINIMAL_STAT_HOTPLUG);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(minimal_init)
{
	s32 err;

	if ((err = scxk_topo_init()))
		return err;
	return scx_bpf_create_dsq(MINIMAL_DSQ_SHARED, -1);
}

void BPF_STRUCT_OPS(minimal_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(minimal_ops, .select_cpu = (void *)minimal_select_cpu,
		.enqueue = (void *)minimal_enqueue, .dispatch = (void *)minimal_dispatch,
		.running = (void *)minimal_running, .stopping = (void *)minimal_stopping,
		.runnable = (void *)minimal_runnable, .quiescent = (void *)minimal_quiescent,
		.cgroup_init = (void *)minimal_cgroup_init,
		.cgroup_set_weight = (void *)minimal_cgroup_set_weight,
		.enable = (void *)minimal_enable, .cpu_online = (void *)minimal_cpu_online,
		.cpu_offline = (void *)minimal_cpu_offline, .init = (void *)minimal_init,
		.exit = (void *)minimal_exit, .name = "minimal");
