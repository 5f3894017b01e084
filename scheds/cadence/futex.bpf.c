// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence: futex lock holders. Two tracepoints (attached by the
 * loader) mark a task that just took a contended futex, so that it is
 * boosted and not preempted until it releases it: a lock holder kept off
 * the CPU stalls every waiter of the chain.
 */
#include "cadence.bpf.h"

#define FUTEX_CMD_MASK	  0x7f /* include/uapi/linux/futex.h, without PRIVATE/CLOCK flags */
#define FUTEX_WAIT	  0
#define FUTEX_WAKE	  1
#define FUTEX_WAKE_OP	  5
#define FUTEX_LOCK_PI	  6
#define FUTEX_UNLOCK_PI	  7
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_LOCK_PI2	  13

/* The tracepoints run on the task's own CPU, while it is the current task. */
static void set_cpu_lock_holder(u32 v)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);

	if (c)
		c->lock_holder = v;
}

SEC("tp/syscalls/sys_enter_futex")
int cadence_futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct task_ctx *tctx = task_ctx(bpf_get_current_task_btf());
	u32 cmd = ctx->args[1] & FUTEX_CMD_MASK;

	if (!tctx)
		return 0;
	tctx->futex_op = cmd;
	/* Waking waiters or unlocking a PI futex: the lock is being released. */
	if (cmd == FUTEX_WAKE || cmd == FUTEX_WAKE_OP || cmd == FUTEX_WAKE_BITSET ||
	    cmd == FUTEX_UNLOCK_PI) {
		tctx->lock_held = 0;
		set_cpu_lock_holder(0);
	}
	return 0;
}

SEC("tp/syscalls/sys_exit_futex")
int cadence_futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	struct task_ctx *tctx = task_ctx(bpf_get_current_task_btf());
	u32 cmd;

	if (!tctx)
		return 0;
	cmd = tctx->futex_op;
	/* A contended wait or PI lock that returned 0 usually owns the lock now. */
	if (!ctx->ret && (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
			  cmd == FUTEX_LOCK_PI2)) {
		tctx->lock_held = 1;
		tctx->lock_ran = 0;
		/* The task runs here now: shield it from preemption at once. */
		set_cpu_lock_holder(1);
		scxk_stat_inc(CADENCE_STAT_LOCK_BOOST);
	}
	return 0;
}
