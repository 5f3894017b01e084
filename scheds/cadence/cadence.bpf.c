// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence - the template: the smallest complete, correct scheduler.
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
 * soon but cannot monopolise a CPU.
 *
 * Choose it to learn sched_ext or as a starting point. One shared queue
 * becomes a contention point beyond a few dozen CPUs, and it knows nothing
 * of interactivity: the other schedulers in scheds/ build on this shape.
 */
#include <scxkit/common.bpf.h>
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

s32 BPF_STRUCT_OPS(cadence_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu = scxk_pick_idle_cpu(p, prev_cpu, 0);

	if (cpu >= 0) {
		/* Idle CPU claimed: queue locally, it will pick p up at once. */
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
		scxk_stat_inc(CADENCE_STAT_LOCAL);
		return cpu;
	}
	return prev_cpu;
}

void BPF_STRUCT_OPS(cadence_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 cpu;

	scxk_stat_inc(CADENCE_STAT_GLOBAL);
	if (fifo_sched) {
		scxk_dsq_insert(p, CADENCE_DSQ_SHARED, slice_ns, enq_flags);
	} else {
		u64 vtime = scxk_vtime_floor(p->scx.dsq_vtime, vtime_now, slice_ns);

		scxk_dsq_insert_vtime(p, CADENCE_DSQ_SHARED, slice_ns, vtime, enq_flags);
	}

	/*
	 * Tasks that did not come through select_cpu (new, preempted, or
	 * re-queued) could wait while a CPU idles: wake one up for them.
	 */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_KICKS);
	}
}

void BPF_STRUCT_OPS(cadence_dispatch, s32 cpu, struct task_struct *prev)
{
	scxk_dsq_move_to_local(CADENCE_DSQ_SHARED);
}

void BPF_STRUCT_OPS(cadence_running, struct task_struct *p)
{
	if (fifo_sched)
		return;
	/* Racy across CPUs, but it only moves forward and errors stay small. */
	if (scxk_time_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
}

void BPF_STRUCT_OPS(cadence_stopping, struct task_struct *p, bool runnable)
{
	u64 used;

	if (fifo_sched)
		return;
	/* p->scx.slice counts down from slice_ns while p runs. */
	used = slice_ns > p->scx.slice ? slice_ns - p->scx.slice : 0;
	p->scx.dsq_vtime += scxk_scale_by_weight_inv(used, p->scx.weight);
}

void BPF_STRUCT_OPS(cadence_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(cadence_init)
{
	s32 err;

	if ((err = scxk_topo_init()))
		return err;
	return scx_bpf_create_dsq(CADENCE_DSQ_SHARED, -1);
}

void BPF_STRUCT_OPS(cadence_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(cadence_ops,
		.select_cpu = (void *)cadence_select_cpu,
		.enqueue = (void *)cadence_enqueue,
		.dispatch = (void *)cadence_dispatch,
		.running = (void *)cadence_running,
		.stopping = (void *)cadence_stopping,
		.enable = (void *)cadence_enable,
		.init = (void *)cadence_init,
		.exit = (void *)cadence_exit,
		.name = "cadence");
