/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compat.bpf.h - one name per operation, whatever the kernel calls it.
 *
 * sched_ext renamed its kfuncs in 6.13 (scx_bpf_dispatch* became
 * scx_bpf_dsq_insert*, scx_bpf_consume became scx_bpf_dsq_move_to_local)
 * and 6.19 added struct-argument and bool-returning variants. The wrappers
 * below pick the newest variant the running kernel has, decided at load
 * time by libbpf (weak ksyms resolve to 0 when absent, and the verifier
 * drops the dead branches).
 *
 * A "___scxk" suffix is a libbpf flavour: it is stripped when the symbol is
 * resolved, so these declarations never clash with vmlinux.h's. The kernel
 * names some kfuncs "name___v2" itself; those need a flavour on top
 * ("name___v2___scxk"), otherwise libbpf would resolve the v1 symbol.
 */
#ifndef __SCXKIT_COMPAT_BPF_H
#define __SCXKIT_COMPAT_BPF_H

#include <scxkit/sched_math.h>

/* 6.12 names */
void scx_bpf_dispatch___scxk(struct task_struct *p, u64 dsq_id, u64 slice,
			     u64 enq_flags) __ksym __weak;
void scx_bpf_dispatch_vtime___scxk(struct task_struct *p, u64 dsq_id, u64 slice, u64 vtime,
				   u64 enq_flags) __ksym __weak;
bool scx_bpf_consume___scxk(u64 dsq_id) __ksym __weak;
/* 6.19+ bool-returning insert */
bool scx_bpf_dsq_insert___v2___scxk(struct task_struct *p, u64 dsq_id, u64 slice,
				    u64 enq_flags) __ksym __weak;

/**
 * scxk_dsq_insert - queue @p on @dsq_id in FIFO order with @slice ns
 * Return: false only when a 6.19+ kernel refused the insertion.
 */
static __always_inline bool scxk_dsq_insert(struct task_struct *p, u64 dsq_id, u64 slice,
					    u64 enq_flags)
{
	if (bpf_ksym_exists(scx_bpf_dsq_insert___v2___scxk))
		return scx_bpf_dsq_insert___v2___scxk(p, dsq_id, slice, enq_flags);
	if (bpf_ksym_exists(scx_bpf_dsq_insert)) {
		scx_bpf_dsq_insert(p, dsq_id, slice, enq_flags);
		return true;
	}
	scx_bpf_dispatch___scxk(p, dsq_id, slice, enq_flags);
	return true;
}

/**
 * scxk_dsq_insert_vtime - queue @p on user DSQ @dsq_id ordered by @vtime
 * Return: false only when a 6.19+ kernel refused the insertion.
 */
static __always_inline bool scxk_dsq_insert_vtime(struct task_struct *p, u64 dsq_id, u64 slice,
						  u64 vtime, u64 enq_flags)
{
	if (bpf_ksym_exists(__scx_bpf_dsq_insert_vtime)) {
		struct scx_bpf_dsq_insert_vtime_args args = {
			.dsq_id = dsq_id,
			.slice = slice,
			.vtime = vtime,
			.enq_flags = enq_flags,
		};

		return __scx_bpf_dsq_insert_vtime(p, &args);
	}
	if (bpf_ksym_exists(scx_bpf_dsq_insert_vtime)) {
		scx_bpf_dsq_insert_vtime(p, dsq_id, slice, vtime, enq_flags);
		return true;
	}
	scx_bpf_dispatch_vtime___scxk(p, dsq_id, slice, vtime, enq_flags);
	return true;
}

/**
 * scxk_dsq_head_vtime - dsq_vtime (the deadline, in deadline-ordered DSQs)
 * of the first task of @dsq_id, or ~0 when it is empty; for dispatch paths
 * that serve the earlier of two queues
 */
static __always_inline u64 scxk_dsq_head_vtime(u64 dsq_id)
{
	struct task_struct *p;
	u64 dl = ~0ULL;

	bpf_for_each (scx_dsq, p, dsq_id, 0) {
		dl = p->scx.dsq_vtime;
		break;
	}
	return dl;
}

/** scxk_dsq_move_to_local - move the first task of @dsq_id to this CPU's local DSQ */
static __always_inline bool scxk_dsq_move_to_local(u64 dsq_id)
{
	if (bpf_ksym_exists(scx_bpf_dsq_move_to_local))
		return scx_bpf_dsq_move_to_local(dsq_id);
	return scx_bpf_consume___scxk(dsq_id);
}

/**
 * scxk_dsq_earliest_head - the earlier head deadline of @first and @second,
 * or ~0 when both are empty
 *
 * ~0 cannot be compared with scxk_time_before() (the signed difference
 * wraps: ~0 sorts before every deadline), so an empty queue is skipped by
 * its count, never by its sentinel; callers test for ~0 themselves.
 */
static __always_inline u64 scxk_dsq_earliest_head(u64 first, u64 second)
{
	u64 head = ~0ULL, h;

	if (scx_bpf_dsq_nr_queued(first))
		head = scxk_dsq_head_vtime(first);
	if (scx_bpf_dsq_nr_queued(second)) {
		h = scxk_dsq_head_vtime(second);
		if (head == ~0ULL || scxk_time_before(h, head))
			head = h;
	}
	return head;
}

/**
 * scxk_dsq_move_earliest - move here the head of @first or @second, whichever
 * has the earlier dsq_vtime (@first on a tie), falling back to the other;
 * false when both are empty.
 *
 * Counting a DSQ is one cheap call; peeking at a head costs a DSQ iterator
 * (three calls, the DSQ's lock). Dispatch runs on every context switch and
 * one of the two queues is usually empty, so heads are compared only when
 * both hold tasks.
 */
static __always_inline bool scxk_dsq_move_earliest(u64 first, u64 second)
{
	if (!scx_bpf_dsq_nr_queued(second))
		return scxk_dsq_move_to_local(first);
	if (!scx_bpf_dsq_nr_queued(first))
		return scxk_dsq_move_to_local(second);
	if (scxk_time_before(scxk_dsq_head_vtime(second), scxk_dsq_head_vtime(first)))
		return scxk_dsq_move_to_local(second) || scxk_dsq_move_to_local(first);
	return scxk_dsq_move_to_local(first) || scxk_dsq_move_to_local(second);
}

void scx_bpf_reenqueue_local___v2___scxk(void) __ksym __weak;
u32 scx_bpf_reenqueue_local___scxk(void) __ksym __weak;

/**
 * scxk_reenqueue_local - hand every task of this CPU's local DSQ back to
 * ops.enqueue (with SCX_ENQ_REENQ). Call it from ops.cpu_release: a CPU
 * taken by an RT or deadline task would otherwise hold the tasks already
 * queued on it until that task lets go.
 */
static __always_inline void scxk_reenqueue_local(void)
{
	if (bpf_ksym_exists(scx_bpf_reenqueue_local___v2___scxk))
		scx_bpf_reenqueue_local___v2___scxk();
	else if (bpf_ksym_exists(scx_bpf_reenqueue_local___scxk))
		scx_bpf_reenqueue_local___scxk();
}

/** scxk_now - the scheduler clock (scx_bpf_now() where it exists, 6.14+) */
static __always_inline u64 scxk_now(void)
{
	if (bpf_ksym_exists(scx_bpf_now))
		return scx_bpf_now();
	return bpf_ktime_get_ns();
}

/**
 * scxk_task_set_slice - change the remaining slice of @p (kfunc from 6.19)
 *
 * Every write of a task's slice goes through here, so the kfunc is used
 * wherever the kernel has it.
 */
static __always_inline void scxk_task_set_slice(struct task_struct *p, u64 slice)
{
	if (bpf_ksym_exists(scx_bpf_task_set_slice))
		scx_bpf_task_set_slice(p, slice);
	else
		p->scx.slice = slice;
}

/* The run queues, for what no kfunc reports (scx_bpf_cpu_rq() left in 6.18). */
extern struct rq runqueues __ksym __weak;

/**
 * scxk_higher_class_runnable - whether a task of a class above ext (deadline,
 * RT, or fair under SCX_OPS_SWITCH_PARTIAL) is runnable on @cpu
 * @cpu: a CPU whose rq lock the caller holds (ops.enqueue of a task on it)
 *
 * Such a CPU runs ext tasks only through the kernel's ext DL server, and that
 * server stops for good (until ext's task count on the CPU drops to zero and
 * rises again) the first time its pick finds nothing: a scheduler that keeps
 * a task pinned there anywhere but the local DSQ, even briefly, starves it.
 */
static __always_inline bool scxk_higher_class_runnable(s32 cpu)
{
	struct rq *rq;

	if (!bpf_ksym_exists(&runqueues))
		return false;
	rq = bpf_per_cpu_ptr(&runqueues, cpu);
	return rq && rq->nr_running > rq->scx.nr_running;
}

/**
 * scxk_this_cpu_online - whether the CPU this runs on is still online
 *
 * A CPU going down still runs BPF after it left cpu_online_mask (ops.enqueue
 * while the kernel moves its last tasks away, for one). Work queued
 * there on an irq_work (what scx_bpf_kick_cpu() and a ring buffer's
 * wakeup use) after the CPU's final irq_work flush never runs: it stays
 * pending on that CPU's list, every later irq_work there (printk's, RCU's,
 * the kernel's own kicks) queues behind it without raising the interrupt
 * once the CPU is back, and sched_ext's disable path waits for it forever
 * (irq_work_sync() in free_kick_syncs(): the loader hung unkillable in
 * bpf_scx_unreg after CPU hotplug, kernel 7.3.4).
 */
static __always_inline bool scxk_this_cpu_online(void)
{
	const struct cpumask *online = scx_bpf_get_online_cpumask();
	bool ret = bpf_cpumask_test_cpu(bpf_get_smp_processor_id(), online);

	scx_bpf_put_cpumask(online);
	return ret;
}

/**
 * scxk_kick_cpu - scx_bpf_kick_cpu() unless this CPU is going down
 * @cpu: the CPU to kick
 * @flags: SCX_KICK_* as for scx_bpf_kick_cpu()
 *
 * From a CPU that is going down the kick would be lost and would wedge the
 * CPU's irq_work (scxk_this_cpu_online()); nothing is lost by skipping it:
 * a task the kernel moves off such a CPU is enqueued on an online one,
 * and the kernel reschedules that CPU itself when the task lands there.
 */
static __always_inline void scxk_kick_cpu(s32 cpu, u64 flags)
{
	if (scxk_this_cpu_online())
		scx_bpf_kick_cpu(cpu, flags);
}

/**
 * scxk_timer_start - bpf_timer_start() unless this CPU is going down
 * @timer: the timer
 * @nsecs, @flags: as for bpf_timer_start()
 *
 * With IRQs off, which is every sched_ext callback, newer kernels (7.3's
 * kernel/bpf/helpers.c, defer_timer_wq_op()) do not start the hrtimer
 * there but queue an irq_work on this CPU that starts it. From a CPU going
 * down that work never runs and wedges the CPU's irq_work list as a kick
 * would (scxk_this_cpu_online()): scx_relay's detach hung in
 * free_kick_syncs() after CPU hotplug. Callers must cope with the timer
 * not being armed, as they do when the start fails.
 *
 * Return: bpf_timer_start()'s result, or -EBUSY when skipped.
 */
static __always_inline long scxk_timer_start(struct bpf_timer *timer, u64 nsecs, u64 flags)
{
	if (!scxk_this_cpu_online())
		return -EBUSY;
	return bpf_timer_start(timer, nsecs, flags);
}

/**
 * scxk_ext_nr_running - how many ext tasks the kernel counts on @cpu
 * @cpu: a CPU
 *
 * Every runnable ext task is counted on the CPU it last ran on or was
 * placed on, wherever it is queued: a global DSQ, a round trip to user
 * space. On a CPU a higher class holds, a non-zero count keeps the ext DL
 * server from starting again (scxk_higher_class_runnable()).
 */
static __always_inline u32 scxk_ext_nr_running(s32 cpu)
{
	struct rq *rq;

	if (!bpf_ksym_exists(&runqueues))
		return 0;
	rq = bpf_per_cpu_ptr(&runqueues, cpu);
	return rq ? rq->scx.nr_running : 0;
}

/*
 * Enum values read through CO-RE, for the flags whose value moved between
 * kernels; the fallback is the 6.12 value.
 */
#define SCXK_ENUM(__type, __name, __dfl)                                                           \
	(bpf_core_enum_value_exists(__type, __name) ? bpf_core_enum_value(__type, __name) : (__dfl))

#endif /* __SCXKIT_COMPAT_BPF_H */
