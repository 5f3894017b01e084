/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * preempt.bpf.h - wakeup preemption of CPU hogs by short-running tasks
 * (common/sched/preempt.bpf.c).
 *
 * sched_ext ends a slice only at the scheduler tick (4 ms at HZ=250) or
 * when the scheduler asks, so a task that wakes up to run for a few
 * microseconds waits behind a CPU hog for up to a slice unless somebody
 * preempts the hog. The fair class does that at every wakeup whose
 * deadline is earlier; a sched_ext scheduler must do it itself. This module
 * keeps, per CPU, what the running task is (how long its runs last, its
 * place in the scheduler's order, when it started) and picks a victim for
 * a waking task under one rule shared by every scheduler:
 *
 *   - the wakee runs briefly: its average run is at most 1/SCXK_PREEMPT_RATIO
 *     of the victim's, so a hog cannot pose as interactive (it would have
 *     to actually stop early) and two interactive tasks never preempt each
 *     other back and forth;
 *   - the scheduler's own order agrees: the wakee's key (a deadline, or
 *     anything where smaller runs first) is below the victim's;
 *   - the victim has run at least @min_ran in its current turn, which
 *     bounds the preemption rate per CPU.
 *
 * Candidates are the wakee's previous CPU and the waking CPU: both are
 * cache-warm for the wakee or its data, and a timer or same-CPU wakeup
 * needs no IPI.
 */
#ifndef __SCXKIT_PREEMPT_BPF_H
#define __SCXKIT_PREEMPT_BPF_H

/* How many times longer the victim's average run must be than the wakee's. */
#define SCXK_PREEMPT_RATIO 4

/*
 * @min_ran for a scheduler without a minimum slice of its own: at a 1 kHz
 * wakeup rate a hog still keeps 90% of its CPU.
 */
#define SCXK_PREEMPT_MIN_RAN_NS (100 * 1000ULL)

/**
 * scxk_curr_running - record the task that starts running on this CPU
 * @now: the time it starts
 * @avg_runtime: its average run per scheduling
 * @key: its place in the scheduler's order; smaller runs first, and 0
 *       shields it from preemption (a lock holder, for example)
 *
 * Call it from ops.running().
 */
void scxk_curr_running(u64 now, u64 avg_runtime, u64 key);

/* Call it from ops.stopping(): the CPU runs nothing of ours now. */
void scxk_curr_stopping(void);

/**
 * scxk_preempt_victim - a CPU whose task @p should preempt now, or -1
 * @p: the waking task
 * @prev_cpu: its previous CPU
 * @avg_runtime: @p's average run per scheduling
 * @key: @p's place in the scheduler's order (as in scxk_curr_running())
 * @min_ran: the least a victim must have run in its current turn
 *
 * Of the candidates that pass the rule, the one whose task has run
 * longest. The CPU is claimed until its next scxk_curr_running(), so a
 * second wakee in the same window looks elsewhere. The caller inserts @p
 * with SCX_DSQ_LOCAL_ON | cpu and SCX_ENQ_PREEMPT.
 */
s32 scxk_preempt_victim(const struct task_struct *p, s32 prev_cpu, u64 avg_runtime, u64 key,
			u64 min_ran);

#endif /* __SCXKIT_PREEMPT_BPF_H */
