// SPDX-License-Identifier: GPL-2.0-only
/*
 * libscxuser's BPF backend: every scheduling decision that matters is taken
 * by an ordinary user-space process; this side only carries tasks there and
 * answers back, and keeps the machine alive when user space is slow.
 *
 * The flow of one task:
 *   select_cpu  a waking task that finds an idle CPU runs there at once,
 *               without a round trip (kernel dispatch).
 *   enqueue     otherwise it is described in a struct scxu_task on the
 *               "queued" ring buffer, and the user-space scheduler is woken.
 *   user space  reads it, decides CPU, slice and deadline, and writes a
 *               struct scxu_dispatch on the "dispatched" user ring buffer.
 *   dispatch    drains that ring into the chosen CPU's local DSQ or the
 *               shared DSQ (ordered by the deadline user space chose), drops
 *               answers that are stale
 *               (the task was queued again since: enqueue counter), and
 *               bounces answers naming a CPU the task may not use to the
 *               shared DSQ.
 *
 * The scheduler thread itself never goes through user space (it would wait
 * for itself): it has its own DSQ, served first whenever work is pending.
 * Per-CPU kthreads go straight to their CPU (they cannot move, and some of
 * them, like the ones that resolve page faults, are what user space waits
 * for). A heartbeat timer kicks the scheduler thread so that work queued
 * while no CPU passed through dispatch is never forgotten; if user space
 * stops altogether, the heartbeat (or, whichever is first, the kernel's
 * watchdog) ejects the scheduler and every task returns to the default
 * scheduler.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/preempt.bpf.h>
#include <scxkit/sched_math.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>
#include <scxuser/wire.h>

#include "scxuser_bpf.h"

/* Set by the library before load. */
const volatile u64 slice_ns = 5 * SCXK_NSEC_PER_MSEC; /* kernel-side dispatches */
const volatile bool builtin_idle = true;	      /* direct dispatch to idle CPUs on wakeup */
/*
 * A task queued for user space while every CPU is busy preempts a CPU for
 * the scheduling thread once it has waited this long since it last ran:
 * the bound on the extra wakeup latency of the round trip under load, and
 * at most one preemption per this interval.
 */
const volatile u64 preempt_after_ns = 1 * SCXK_NSEC_PER_MSEC;
/*
 * The scheduling thread runs at least every SCXU_USERSCHED_MAX_WAIT_NS
 * while it lives. If it has been off every CPU this long, it is stopped
 * (SIGSTOP, a debugger) or stuck: exit rather than keep the machine on
 * the kernel-side fallbacks, which would hide the failure indefinitely
 * when no task happens to wait long enough for the kernel's watchdog.
 * Set to the scheduler's watchdog timeout (ops.timeout_ms).
 */
const volatile u64 user_stall_ns = SCXU_TIMEOUT_MS * SCXK_NSEC_PER_MSEC;

/* Written by user space through the mmaped .bss while attached. */
volatile s32 usersched_pid;	 /* thread id of the scheduling thread, 0 before it starts */
volatile bool usersched_started; /* it has started once (usersched_pid went non-zero) */
volatile s32 usersched_tgid;	 /* its process: the loader's other threads */
volatile u64 nr_scheduled;	 /* tasks user space still holds */
volatile s64 user_exit_err;	 /* user space failed: abort with this errno */
volatile u64 nr_submitted;	 /* answers written to the dispatched ring */

/* Read by user space. */
volatile u64 nr_dsq_waiting; /* tasks in the shared DSQ at the last dispatch */
volatile s32 usersched_cpu;  /* where the scheduling thread ran last */
volatile bool usersched_on_cpu;
volatile u64 nr_drained;     /* answers taken off the dispatched ring */
static u64 usersched_off_ts; /* when the scheduling thread last left a CPU */
static u64 last_preempt_ts;  /* when a CPU was last preempted for it */
static u32 kick_armed;	     /* the deferred preemption timer is pending */
static u64 attach_ts;	     /* when ops.init ran */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SCXU_RING_ENTRIES * 128);
} queued SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_USER_RINGBUF);
	__uint(max_entries, SCXU_RING_ENTRIES * 128);
} dispatched SEC(".maps");

struct task_ctx {
	u64 enq_cnt;
	u64 vtime;	  /* user space's value, echoed back */
	u64 start_ts;	  /* when it started running last */
	u64 run_ns;	  /* ran since its previous report */
	u64 exec_runtime; /* ran since it last slept */
	u64 avg_runtime;  /* per run, EWMA: the preemption rule's measure */
	u64 deadline;	  /* user space's last one: its preemption key */
	bool reported;	  /* user space has seen it at least once */
};

SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct heartbeat {
	struct bpf_timer timer;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct heartbeat);
} heartbeat_timer SEC(".maps");

/* A preemption for the scheduling thread that the rate limit held back. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct heartbeat);
} kick_timer SEC(".maps");

static bool is_usersched(const struct task_struct *p)
{
	return usersched_pid && p->pid == usersched_pid;
}

/*
 * Work pending: tasks queued for the scheduling thread, tasks it holds, or
 * answers not drained yet (a drain racing with another CPU's gives up, so
 * answers can sit in the ring until some CPU dispatches again; running the
 * scheduling thread makes its CPU dispatch).
 */
static bool usersched_has_work(void)
{
	return bpf_ringbuf_query(&queued, BPF_RB_AVAIL_DATA) > 0 || nr_scheduled > 0 ||
	       nr_submitted != nr_drained;
}

/*
 * The scheduling thread idles runnable, in its own DSQ: the kernel's
 * watchdog would eject the scheduler if it stayed there too long, so it
 * is also run when it has not been for SCXU_USERSCHED_MAX_WAIT_NS.
 */
static bool usersched_needed(void)
{
	return usersched_has_work() ||
	       (!usersched_on_cpu && scxk_now() - usersched_off_ts > SCXU_USERSCHED_MAX_WAIT_NS);
}

/*
 * Preempt a CPU for the scheduling thread: the one this runs on, which is
 * where a timer or an I/O completion fired (no IPI, and a woken task then
 * gets the CPU the scheduling thread leaves), unless the thread may not
 * run there; then its last CPU.
 */
static void preempt_for_usersched(const struct cpumask *allowed, bool deferred)
{
	s32 cpu = bpf_get_smp_processor_id();

	last_preempt_ts = scxk_now();
	if (!bpf_cpumask_test_cpu(cpu, allowed))
		cpu = usersched_cpu;
	scxk_kick_cpu(cpu, SCX_KICK_PREEMPT);
	scxk_stat_inc(SCXU_CNT_SCHED_PREEMPTS);
	if (deferred)
		scxk_stat_inc(SCXU_CNT_SCHED_PREEMPTS_DEFERRED);
}

/*
 * How long until the scheduling thread may preempt a CPU: it must have
 * been off every CPU for preempt_after_ns (it batches everything queued
 * meanwhile) and no CPU preempted for it that recently. Rate-limited on
 * its own timestamp: moving usersched_off_ts would hide a stopped
 * scheduling thread from the stall check.
 */
static u64 preempt_wait_ns(void)
{
	u64 now = scxk_now(), off = now - usersched_off_ts, last = now - last_preempt_ts;
	u64 since = off < last ? off : last;

	return since >= preempt_after_ns ? 0 : preempt_after_ns - since;
}

/* How far wake_usersched() may go when no CPU idles. */
enum wake_how {
	WAKE_IDLE_ONLY, /* this CPU is about to dispatch anyway: idle CPUs only */
	WAKE_PREEMPT,	/* a wakeup: preempt a busy CPU, now or from the timer */
	WAKE_DEFERRED,	/* the timer itself */
};

static __always_inline enum wake_how wake_how_for(u64 enq_flags)
{
	return (enq_flags & SCX_ENQ_WAKEUP) ? WAKE_PREEMPT : WAKE_IDLE_ONLY;
}

/*
 * Get the scheduling thread onto a CPU: its last CPU if that one idles,
 * else any idle CPU. If none is idle and a task woke up, it preempts a
 * busy CPU once the rate limit allows: now, or from a timer armed for the
 * moment it does. Left to the next slice end instead, a wakeup just after
 * the previous preemption waited a slice and a tick (the probe's 8 ms p99
 * beside CPU hogs).
 *
 * Only wakeups preempt. A task queued at the end of its slice, or
 * preempted, is queued from the CPU that is about to dispatch, and
 * dispatch runs the scheduling thread first when it has work: preempting
 * another CPU for it, or arming the timer, would cost CPU hogs a context
 * switch per rate-limit interval for nothing.
 */
static void wake_usersched(const struct cpumask *allowed, enum wake_how how)
{
	struct heartbeat *kt;
	s32 cpu = usersched_cpu;
	u32 zero = 0;
	u64 wait;
	long err;

	if (usersched_on_cpu)
		return;
	/*
	 * Its last CPU may be between deciding to idle and idling, not yet
	 * marked idle: an idle kick is deferred until then and skipped only
	 * if that CPU is sure to pass through dispatch anyway.
	 */
	scxk_kick_cpu(cpu, SCX_KICK_IDLE);
	if (scx_bpf_test_and_clear_cpu_idle(cpu))
		return;
	cpu = scx_bpf_pick_idle_cpu(allowed, 0);
	if (cpu >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	if (how == WAKE_IDLE_ONLY || !preempt_after_ns ||
	    preempt_after_ns == ~0ULL) /* SCXU_PREEMPT_NEVER */
		return;
	wait = preempt_wait_ns();
	if (!wait) {
		preempt_for_usersched(allowed, how == WAKE_DEFERRED);
		return;
	}
	if (kick_armed || __sync_val_compare_and_swap(&kick_armed, 0, 1))
		return;
	kt = bpf_map_lookup_elem(&kick_timer, &zero);
	if (!kt) {
		kick_armed = 0;
		return;
	}
	/* From a CPU going down the start would never run (compat.bpf.h). */
	err = scxk_timer_start(&kt->timer, wait, 0);
	if (err) {
		kick_armed = 0;
		if (err == -EBUSY)
			scxk_stat_inc(SCXU_CNT_SCHED_TIMER_DYING);
	}
}

static int kick_fn(void *map, int *key, struct bpf_timer *timer)
{
	struct task_struct *p;

	kick_armed = 0;
	if (!usersched_pid || usersched_on_cpu || !usersched_has_work())
		return 0;
	p = bpf_task_from_pid(usersched_pid);
	if (!p)
		return 0;
	/*
	 * Idle CPU, preemption, or re-armed if one happened meanwhile. In a
	 * timer callback p->cpus_ptr is an RCU pointer: 6.12's verifier
	 * refuses it outside a read-side section ("R1 must be a rcu pointer").
	 */
	bpf_rcu_read_lock();
	wake_usersched(p->cpus_ptr, WAKE_DEFERRED);
	bpf_rcu_read_unlock();
	bpf_task_release(p);
	return 0;
}

s32 BPF_STRUCT_OPS(scxu_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	s32 cpu;

	if (!builtin_idle || is_usersched(p) || scxk_fault_drop(p))
		return prev_cpu;
	cpu = scxk_pick_idle_cpu(p, prev_cpu, 0);
	if (cpu >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		return cpu;
	}
	return prev_cpu;
}

/* A CPU that may take a task from a shared or remote queue: wake it if idle. */
static void kick_for(struct task_struct *p, s32 cpu)
{
	if (cpu >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0)
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
}

/* Describe @p on the queued ring. False when the ring is full. */
static bool send_to_user(struct task_struct *p, struct task_ctx *tctx, u64 enq_flags)
{
	struct scxu_task *t = bpf_ringbuf_reserve(&queued, sizeof(*t), 0);

	if (!t)
		return false;
	t->pid = p->pid;
	t->cpu = scx_bpf_task_cpu(p);
	t->nr_cpus_allowed = p->nr_cpus_allowed;
	t->flags = (enq_flags & SCX_ENQ_WAKEUP) ? SCXU_TASK_WAKEUP : 0;
	if (!tctx->reported)
		t->flags |= SCXU_TASK_NEW;
	if (p->flags & PF_KTHREAD)
		t->flags |= SCXU_TASK_KTHREAD;
	t->run_ns = tctx->run_ns;
	t->exec_runtime_ns = tctx->exec_runtime;
	t->weight = p->scx.weight;
	t->vtime = tctx->vtime;
	t->enq_cnt = tctx->enq_cnt;
	t->enq_ts = bpf_ktime_get_ns();
	bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), p->comm);
	/*
	 * No wakeup: the scheduling thread polls the ring when it runs, and
	 * is woken through its DSQ (wake_usersched()). A wakeup costs an
	 * irq_work per task, one that never runs from a CPU going down
	 * (scxk_this_cpu_online()).
	 */
	bpf_ringbuf_submit(t, BPF_RB_NO_WAKEUP);
	tctx->run_ns = 0;
	tctx->reported = true;
	return true;
}

/*
 * Keep @p, enqueued with SCX_ENQ_LAST, on its CPU. The kernel has already
 * chosen to idle that CPU when it asks, and inserting into the local DSQ
 * does not undo that: without a follow-up kick the CPU sleeps with @p in
 * its local DSQ until something else happens to wake it (the lost task
 * and the stalled scheduling thread seen under --percpu-local). The kick
 * runs from irq_work once the CPU is idle, so it takes effect.
 */
static void keep_last(struct task_struct *p, u64 enq_flags)
{
	scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
	scxk_kick_cpu(scx_bpf_task_cpu(p), SCX_KICK_IDLE);
}

/*
 * The scheduling thread idles runnable in its own DSQ, and is counted
 * meanwhile on the CPU it ran on last. If a higher class holds that CPU,
 * the count keeps the CPU's ext DL server from ever starting again once a
 * pick there found nothing (see scxk_higher_class_runnable()): a per-CPU
 * kworker queued there later starved until the watchdog (30 s beside an
 * RT hog under CPU hotplug). So the thread leaves such a CPU when it
 * yields: it runs once on another CPU, preferably an idle one, and idles
 * counted there. False when every CPU it may use is held, or it may use
 * this one only.
 */
static bool usersched_leave_held_cpu(struct task_struct *p, u64 enq_flags)
{
	s32 cpu = scx_bpf_task_cpu(p), target = -1, c;

	if (!scxk_higher_class_runnable(cpu))
		return false;
	target = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (target < 0) {
		bpf_for (c, 0, scx_bpf_nr_cpu_ids()) {
			if (c != cpu && bpf_cpumask_test_cpu(c, p->cpus_ptr) &&
			    !scxk_higher_class_runnable(c)) {
				target = c;
				break;
			}
		}
	}
	if (target < 0 || target == cpu)
		return false;
	if (!scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | target, slice_ns, enq_flags))
		return false;
	scxk_kick_cpu(target, SCX_KICK_IDLE);
	scxk_stat_inc(SCXU_CNT_SCHED_MOVED);
	return true;
}

void BPF_STRUCT_OPS(scxu_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 enq_last = SCXK_ENUM(enum scx_enq_flags, SCX_ENQ_LAST, 1ULL << 41);
	struct task_ctx *tctx;

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return;
	if (is_usersched(p)) {
		/*
		 * Yielded with work pending and nothing else to run here: keep
		 * it on this CPU (dispatch could not take it from its DSQ, it
		 * was still running when dispatch looked).
		 */
		if ((enq_flags & enq_last) && usersched_has_work()) {
			keep_last(p, enq_flags);
			return;
		}
		if (usersched_leave_held_cpu(p, enq_flags))
			return;
		scxk_dsq_insert(p, SCXU_DSQ_SCHED, slice_ns, enq_flags);
		if (usersched_has_work())
			wake_usersched(p->cpus_ptr, wake_how_for(enq_flags));
		return;
	}
	/*
	 * Nothing else wants this CPU (SCX_OPS_ENQ_LAST): keep the task on it
	 * rather than make it wait for a round trip it cannot win.
	 */
	if (enq_flags & enq_last) {
		keep_last(p, enq_flags);
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		return;
	}
	if ((p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		return;
	}
	/*
	 * Nothing the scheduling thread may wait for can wait for it: kernel
	 * threads (RCU grace periods, unbound workqueues, reclaim) and the
	 * loader's other threads (which share its mm, so its mmap lock, and
	 * its stdio locks). Queued for user space, one of them holding what
	 * the scheduling thread blocks on would stall both until the
	 * watchdog: the likely cause of one bench ejection, the thread
	 * off-CPU for 30 s under hackbench with tasks waiting on it. They are
	 * few and short; the kernel side runs them.
	 */
	if ((p->flags & PF_KTHREAD) || (usersched_tgid && p->tgid == usersched_tgid)) {
		scxk_dsq_insert_vtime(p, SCXU_DSQ_SHARED, slice_ns, bpf_ktime_get_ns(), enq_flags);
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		kick_for(p, -1);
		return;
	}
	/*
	 * On a CPU a higher class holds, ext runs only through the ext DL
	 * server, which stops for good if its pick ever comes up empty while
	 * the CPU still counts ext tasks: as it would while one of them makes
	 * the round trip. Such a task stays where that CPU's dispatch finds
	 * it: on its local DSQ if it may run nowhere else (an EXT task beside
	 * an RT hog got 0% of the CPU; the DL server's bar is 5%), else on
	 * the shared DSQ, where an idle CPU takes it (a per-CPU kworker
	 * starved 30 s beside an RT hog under a fork storm).
	 */
	if (scxk_higher_class_runnable(scx_bpf_task_cpu(p))) {
		if (scxk_task_pinned(p)) {
			scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		} else {
			scxk_dsq_insert_vtime(p, SCXU_DSQ_SHARED, slice_ns, bpf_ktime_get_ns(),
					      enq_flags);
			kick_for(p, -1);
		}
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		return;
	}
	tctx = scxk_task_storage(&task_ctxs, p, false);
	if (!tctx) {
		scxk_error("task %d (%s) has no context", p->pid, p->comm);
		return;
	}
	tctx->enq_cnt++;
	/*
	 * No scheduling thread yet (between attach and its start, which the
	 * loader itself needs CPU time for) or any more (it failed): queue
	 * here, or nobody would ever run these tasks.
	 */
	if (!usersched_pid) {
		scxk_dsq_insert_vtime(p, SCXU_DSQ_SHARED, slice_ns, bpf_ktime_get_ns(), enq_flags);
		scxk_stat_inc(SCXU_CNT_KERNEL_DISPATCHES);
		kick_for(p, -1);
		return;
	}
	if (!send_to_user(p, tctx, enq_flags)) {
		/* User space is behind: do not lose the task, queue it here. */
		scxk_dsq_insert_vtime(p, SCXU_DSQ_SHARED, slice_ns, bpf_ktime_get_ns(), enq_flags);
		scxk_stat_inc(SCXU_CNT_CONGESTED);
		wake_usersched(p->cpus_ptr, wake_how_for(enq_flags));
		return;
	}
	scxk_stat_inc(SCXU_CNT_QUEUED);
	wake_usersched(p->cpus_ptr, wake_how_for(enq_flags));
}

struct drain_ctx {
	u32 budget; /* inserts left in this dispatch call */
};

static long drain_one(struct bpf_dynptr *dynptr, void *data)
{
	struct drain_ctx *ctx = data;
	struct scxu_dispatch d;
	struct task_struct *p;
	struct task_ctx *tctx;
	u64 slice;
	s32 cpu = -1, victim;
	bool ok = false, clamped;

	__sync_fetch_and_add(&nr_drained, 1);
	if (bpf_dynptr_read(&d, sizeof(d), dynptr, 0, 0)) {
		scxk_stat_inc(SCXU_CNT_FAILED_DISPATCHES);
		return 0;
	}
	p = bpf_task_from_pid(d.pid);
	if (!p) {
		/* Exited since it was queued. */
		scxk_stat_inc(SCXU_CNT_FAILED_DISPATCHES);
		return 0;
	}
	tctx = scxk_task_storage(&task_ctxs, p, false);
	if (!tctx || tctx->enq_cnt != d.enq_cnt) {
		scxk_stat_inc(SCXU_CNT_CANCEL_DISPATCHES);
		goto out;
	}
	tctx->vtime = d.vtime;
	if (d.cpu != SCXU_CPU_ANY) {
		if (d.cpu >= 0 && d.cpu < scx_bpf_nr_cpu_ids() &&
		    bpf_cpumask_test_cpu(d.cpu, p->cpus_ptr))
			cpu = d.cpu;
		else
			scxk_stat_inc(SCXU_CNT_BOUNCE_DISPATCHES);
	}
	/*
	 * A higher class may have taken the chosen CPU since user space chose
	 * it (an idle CPU an RT task woke on). There ext runs only through the
	 * DL server, which an empty pick stops for good (see scxu_enqueue()):
	 * a task that may run elsewhere goes where an idle CPU takes it.
	 */
	if (cpu >= 0 && p->nr_cpus_allowed > 1 && scxk_higher_class_runnable(cpu))
		cpu = -1;
	slice = scxu_slice_bound(d.slice_ns, slice_ns, &clamped);
	if (clamped)
		scxk_stat_inc(SCXU_CNT_SLICE_CLAMPED);
	/*
	 * A chosen CPU gets the task on its local DSQ directly: the kernel
	 * wakes that CPU itself, so no kick can be lost on the way, and
	 * answers arrive in the order user space sent them. Local DSQs are
	 * FIFO; the deadline orders the shared DSQ.
	 */
	tctx->deadline = d.deadline;
	if ((d.flags & SCXU_DISPATCH_PREEMPT_SHORT) && (cpu < 0 || p->nr_cpus_allowed == 1) &&
	    (victim =
		     scxk_preempt_victim(p, cpu >= 0 ? cpu : scx_bpf_task_cpu(p), tctx->avg_runtime,
					 d.deadline | 1, SCXK_PREEMPT_MIN_RAN_NS)) >= 0) {
		ok = scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | victim, slice, SCX_ENQ_PREEMPT);
		if (ok) {
			scxk_stat_inc(SCXU_CNT_PREEMPT_DISPATCHES);
			scxk_stat_inc(SCXU_CNT_USER_DISPATCHES);
			goto out;
		}
	} else if (cpu >= 0)
		ok = scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice, 0);
	else
		ok = scxk_dsq_insert_vtime(p, SCXU_DSQ_SHARED, slice, d.deadline, 0);
	if (!ok) {
		scxk_stat_inc(SCXU_CNT_FAILED_DISPATCHES);
		goto out;
	}
	scxk_stat_inc(SCXU_CNT_USER_DISPATCHES);
	if (cpu >= 0 && (d.flags & SCXU_DISPATCH_PREEMPT))
		scxk_kick_cpu(cpu, SCX_KICK_PREEMPT);
	else if (cpu < 0)
		kick_for(p, -1);
out:
	bpf_task_release(p);
	/* Stop before the kernel's per-dispatch insertion buffer overflows. */
	return --ctx->budget ? 0 : 1;
}

void BPF_STRUCT_OPS(scxu_dispatch, s32 cpu, struct task_struct *prev)
{
	struct drain_ctx dctx = {.budget = SCXU_DISPATCH_BATCH};
	bool after_usersched = prev && is_usersched(prev);

	/*
	 * No wakeup: it wakes producers waiting for room, and user space never
	 * waits (scxu_dispatch() counts a full ring instead). The wakeup is an
	 * irq_work on this CPU, which wedges it when queued from a CPU going
	 * down (scxk_this_cpu_online()): the next detach then hung in
	 * scx_root_disable() -> irq_work_sync() (rel-hotplug-relay, 1 run of 10).
	 */
	bpf_user_ringbuf_drain(&dispatched, drain_one, &dctx, BPF_RB_NO_WAKEUP);
	nr_dsq_waiting = scx_bpf_dsq_nr_queued(SCXU_DSQ_SHARED);

	/*
	 * The scheduling thread goes first while it has work, except right
	 * after it yielded here: then the tasks it just placed go first, so a
	 * busy scheduler thread can never keep a CPU to itself.
	 */
	if (!after_usersched && usersched_needed() && scxk_dsq_move_to_local(SCXU_DSQ_SCHED))
		return;
	if (scxk_dsq_move_to_local(SCXU_DSQ_SHARED))
		return;
	/*
	 * An empty pick on a CPU a higher class holds stops its ext DL server
	 * for good while tasks are still counted here: the idle scheduling
	 * thread (queued before the higher class came) or tasks on their round
	 * trip to user space. Run the thread instead: it answers the round
	 * trips, whose pinned tasks this CPU's next dispatch then finds, and
	 * moves away when it yields (usersched_leave_held_cpu()).
	 */
	if (usersched_needed() || (scxk_higher_class_runnable(cpu) && scxk_ext_nr_running(cpu)))
		scxk_dsq_move_to_local(SCXU_DSQ_SCHED);
}

/*
 * A task running through the ext DL server (a higher class holds its CPU)
 * must not reach the end of its slice while nothing else waits: with
 * SCX_OPS_ENQ_LAST the kernel then finds nothing to run, and the DL
 * server's empty pick stops it for good (see scxk_higher_class_runnable()).
 * Refilled, the task runs until the server's budget ends; a task queued
 * meanwhile stops the refills and takes its turn.
 */
void BPF_STRUCT_OPS(scxu_tick, struct task_struct *p)
{
	s32 cpu;

	if (is_usersched(p))
		return;
	cpu = scx_bpf_task_cpu(p);
	if (scxk_higher_class_runnable(cpu) && !scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu) &&
	    !scx_bpf_dsq_nr_queued(SCXU_DSQ_SHARED))
		scxk_task_set_slice(p, slice_ns);
}

/*
 * A higher class took this CPU: the tasks on its local DSQ go back through
 * enqueue, which keeps the pinned ones here and puts the others where an
 * idle CPU takes them, instead of a wait for the DL server's next budget.
 */
void BPF_STRUCT_OPS(scxu_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	scxk_reenqueue_local();
}

void BPF_STRUCT_OPS(scxu_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx;

	if (!(enq_flags & SCX_ENQ_WAKEUP))
		return;
	tctx = scxk_task_storage(&task_ctxs, p, false);
	if (tctx)
		tctx->exec_runtime = 0;
}

void BPF_STRUCT_OPS(scxu_running, struct task_struct *p)
{
	struct task_ctx *tctx;

	if (is_usersched(p)) {
		usersched_cpu = scx_bpf_task_cpu(p);
		usersched_on_cpu = true;
		scxk_curr_running(scxk_now(), 0, 0); /* never a victim */
		return;
	}
	tctx = scxk_task_storage(&task_ctxs, p, false);
	if (tctx) {
		tctx->start_ts = scxk_now();
		scxk_curr_running(tctx->start_ts, tctx->avg_runtime, tctx->deadline | 1);
	}
}

void BPF_STRUCT_OPS(scxu_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx;
	u64 ran;

	scxk_curr_stopping();
	if (is_usersched(p)) {
		usersched_on_cpu = false;
		usersched_off_ts = scxk_now();
		return;
	}
	tctx = scxk_task_storage(&task_ctxs, p, false);
	if (!tctx || !tctx->start_ts)
		return;
	ran = scxk_now() - tctx->start_ts;
	tctx->run_ns += ran;
	tctx->exec_runtime += ran;
	tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
}

s32 BPF_STRUCT_OPS(scxu_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	return scxk_task_storage(&task_ctxs, p, true) ? 0 : -ENOMEM;
}

static int heartbeat_fn(void *map, int *key, struct bpf_timer *timer)
{
	if (user_exit_err) {
		scxk_error("user-space scheduler failed (errno %lld)", -user_exit_err);
		return 0;
	}
	/* Signed: the timestamp comes from another CPU's clock. */
	if (usersched_pid && !usersched_on_cpu && usersched_off_ts &&
	    (s64)(scxk_now() - usersched_off_ts) > (s64)user_stall_ns) {
		scxk_error("user-space scheduler stalled: off-CPU for %llu ms",
			   (scxk_now() - usersched_off_ts) / SCXK_NSEC_PER_MSEC);
		return 0;
	}
	/*
	 * Until the scheduling thread starts, every task is queued here, so
	 * nothing waits long enough for the kernel's watchdog: a loader
	 * stopped (SIGSTOP) between attach and that start would otherwise
	 * leave the machine on the fallback for good.
	 */
	if (!usersched_started && attach_ts && (s64)(scxk_now() - attach_ts) > (s64)user_stall_ns) {
		scxk_error("user-space scheduler did not start within %llu ms of attaching",
			   user_stall_ns / SCXK_NSEC_PER_MSEC);
		return 0;
	}
	/* Not trusting usersched_on_cpu for work: a lost wakeup must not last. */
	if (usersched_has_work() || usersched_needed() ||
	    scx_bpf_dsq_nr_queued(SCXU_DSQ_SHARED) > 0) {
		s32 cpu;

		/* Every idle CPU passes through dispatch, which serves the thread. */
		bpf_for (cpu, 0, scx_bpf_nr_cpu_ids())
			scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_kick_cpu(usersched_cpu, SCX_KICK_PREEMPT);
		scxk_stat_inc(SCXU_CNT_HEARTBEATS);
	} else {
		s32 cpu;

		/*
		 * An idle CPU whose local DSQ is not empty missed its wakeup
		 * (a task kept on it as the last one while it was already
		 * switching to idle): it would never look at that DSQ again.
		 */
		bpf_for (cpu, 0, scx_bpf_nr_cpu_ids())
			if (scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | cpu))
				scxk_kick_cpu(cpu, SCX_KICK_IDLE);
	}
	bpf_timer_start(timer, SCXU_HEARTBEAT_NS, 0);
	return 0;
}

/*
 * With both hotplug callbacks the kernel keeps the scheduler attached
 * through a CPU going offline or online: no restart, no outage. Nothing
 * here depends on the set of online CPUs: idle CPUs come from the kernel's
 * idle masks (an offline CPU is never idle there), the kernel moves tasks
 * off a dying CPU, and an answer naming an offline CPU is routed by the
 * kernel to the global DSQ. User space re-reads nothing either: it places
 * tasks through the BPF idle search or on the CPU they ran on. A CPU that
 * was offline at load is missing from the LLC/node masks until the next
 * start, which costs only locality (the affinity-mask step still finds it).
 */
void BPF_STRUCT_OPS(scxu_cpu_online, s32 cpu)
{
	scxk_stat_inc(SCXU_CNT_HOTPLUG);
}

void BPF_STRUCT_OPS(scxu_cpu_offline, s32 cpu)
{
	scxk_stat_inc(SCXU_CNT_HOTPLUG);
}

s32 BPF_STRUCT_OPS_SLEEPABLE(scxu_init)
{
	struct heartbeat *hb, *kt;
	u32 zero = 0;
	s32 err;

	if ((err = scxk_topo_init()))
		return err;
	if ((err = scx_bpf_create_dsq(SCXU_DSQ_SCHED, -1)) ||
	    (err = scx_bpf_create_dsq(SCXU_DSQ_SHARED, -1)))
		return err;
	hb = bpf_map_lookup_elem(&heartbeat_timer, &zero);
	if (!hb)
		return -ENOENT;
	bpf_timer_init(&hb->timer, &heartbeat_timer, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&hb->timer, heartbeat_fn);
	kt = bpf_map_lookup_elem(&kick_timer, &zero);
	if (!kt)
		return -ENOENT;
	bpf_timer_init(&kt->timer, &kick_timer, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&kt->timer, kick_fn);
	attach_ts = scxk_now();
	return bpf_timer_start(&hb->timer, SCXU_HEARTBEAT_NS, 0);
}

void BPF_STRUCT_OPS(scxu_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

/*
 * Answers libscxuser's scxu_select_cpu(): claim an idle CPU for a task
 * user space is about to dispatch, with the same preferences as the
 * wakeup path (idle core first, nearest to where it ran).
 */
SEC("syscall")
int scxu_pick_idle(struct scxu_pick_args *args)
{
	struct task_struct *p = bpf_task_from_pid(args->pid);

	if (!p) {
		args->cpu = -3; /* -ESRCH */
		return 0;
	}
	/* Syscall programs are sleepable: the task's cpumask needs RCU. */
	bpf_rcu_read_lock();
	args->cpu = scxk_pick_idle_cpu_unshared(p, args->prev_cpu);
	bpf_rcu_read_unlock();
	bpf_task_release(p);
	return 0;
}

/*
 * .name is set by the library (the program's own name). SCX_OPS_ENQ_LAST:
 * the scheduling thread must be able to idle.
 */
/* clang-format off */
SCXK_OPS_DEFINE(scxu_ops,
		.select_cpu = (void *)scxu_select_cpu,
		.enqueue = (void *)scxu_enqueue,
		.dispatch = (void *)scxu_dispatch,
		.tick = (void *)scxu_tick,
		.cpu_release = (void *)scxu_cpu_release,
		.runnable = (void *)scxu_runnable,
		.running = (void *)scxu_running,
		.stopping = (void *)scxu_stopping,
		.init_task = (void *)scxu_init_task,
		.cpu_online = (void *)scxu_cpu_online,
		.cpu_offline = (void *)scxu_cpu_offline,
		.init = (void *)scxu_init,
		.exit = (void *)scxu_exit,
		.dispatch_max_batch = SCXU_DISPATCH_BATCH,
		.timeout_ms = SCXU_TIMEOUT_MS,
		.flags = SCX_OPS_ENQ_LAST,
		.name = "scxuser");
/* clang-format on */
