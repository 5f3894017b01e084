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
 * Choose it to learn sched_ext or as a starting point. One shared queue
 * becomes a contention point beyond a few dozen CPUs, and it knows nothing
 * of interactivity: the other schedulers in scheds/ build on this shape.
 */
#include <scxkit/common.bpf.h>
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

void BPF_STRUCT_OPS(minimal_dispatch, s32 cpu, struct task_struct *prev)
{
	scxk_dsq_move_to_local(MINIMAL_DSQ_SHARED);
}

void BPF_STRUCT_OPS(minimal_running, struct task_struct *p)
{
	if (fifo_sched)
		return;
	/* Racy across CPUs, but it only moves forward and errors stay small. */
	if (scxk_time_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
}

void BPF_STRUCT_OPS(minimal_stopping, struct task_struct *p, bool runnable)
{
	u64 used;

	if (fifo_sched)
		return;
	/* p->scx.slice counts down from task_slice(p) while p runs. */
	used = task_slice(p);
	used = used > p->scx.slice ? used - p->scx.slice : 0;
	p->scx.dsq_vtime += scxk_scale_by_weight_inv(used, p->scx.weight);
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
		.enable = (void *)minimal_enable, .cpu_online = (void *)minimal_cpu_online,
		.cpu_offline = (void *)minimal_cpu_offline, .init = (void *)minimal_init,
		.exit = (void *)minimal_exit, .name = "minimal");
