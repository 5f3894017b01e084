/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fault.bpf.h - the test-only fault switch.
 *
 * sched_ext's promise is that a scheduler which loses a task gets ejected
 * by the kernel's watchdog, and ours is that the loader then says why and
 * exits non-zero instead of restarting in a loop. Proving that needs a
 * scheduler that loses a task on purpose: in builds configured with
 * -Dfault_injection=true, a scheduler that calls scxk_fault_drop() at the
 * top of ops.select_cpu() and ops.enqueue() never queues the tasks of the
 * process named by the loader's --fault-starve-tgid. Those tasks stay
 * runnable and unserved until the watchdog (SCX_TIMEOUT_MS) fires.
 *
 * In release builds the helper is a constant false and the option does
 * not exist, so nothing of this reaches a package.
 *
 * Include this header from exactly one BPF object per scheduler (its
 * policy file): the switch's variable is defined here.
 */
#ifndef __SCXKIT_FAULT_BPF_H
#define __SCXKIT_FAULT_BPF_H

#ifdef SCXK_FAULT_INJECTION
/*
 * Written by the loader before load (common/sched/sched.c looks the section
 * up by name); 0 = disarmed. Its own section keeps it out of the
 * scheduler's .data, whose layout the skeleton fixes.
 */
u32 scxk_fault_starve_tgid SEC(".data.scxk_fault");

/**
 * scxk_fault_drop - true if @p must be lost on purpose (test builds only)
 * @p: the task being placed
 *
 * Callers return at once when it is true: from ops.select_cpu() without a
 * direct insert (return the previous CPU), from ops.enqueue() without
 * inserting @p anywhere.
 */
static __always_inline bool scxk_fault_drop(const struct task_struct *p)
{
	u32 tgid = READ_ONCE(scxk_fault_starve_tgid);

	return tgid && (u32)p->tgid == tgid;
}
#else
static __always_inline bool scxk_fault_drop(const struct task_struct *p)
{
	return false;
}
#endif

#endif /* __SCXKIT_FAULT_BPF_H */
