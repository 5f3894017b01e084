// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wakeup preemption of CPU hogs by short-running tasks; the rule and why
 * are in include/scxkit/preempt.bpf.h.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/preempt.bpf.h>

struct scxk_curr {
	u64 started;	 /* when the current task got the CPU; 0: none of ours */
	u64 avg_runtime; /* its average run per scheduling */
	u64 key;	 /* its place in the scheduler's order; 0: do not preempt */
	u32 claimed;	 /* a wakee is on its way here */
};
SCXK_PERCPU_CTX(scxk_currs, struct scxk_curr);

__hidden void scxk_curr_running(u64 now, u64 avg_runtime, u64 key)
{
	struct scxk_curr *c = scxk_percpu_ctx(&scxk_currs);

	if (!c)
		return;
	c->started = now ? now : 1;
	c->avg_runtime = avg_runtime;
	c->key = key;
	c->claimed = 0;
}

__hidden void scxk_curr_stopping(void)
{
	struct scxk_curr *c = scxk_percpu_ctx(&scxk_currs);

	if (c)
		c->started = 0;
}

__hidden s32 scxk_preempt_victim(const struct task_struct *p, s32 prev_cpu, u64 avg_runtime,
				 u64 key, u64 min_ran)
{
	s32 cand[2] = {prev_cpu, bpf_get_smp_processor_id()}, cpu, victim = -1;
	u64 now = scxk_now(), ran, longest = 0;
	struct scxk_curr *c;
	int i;

	bpf_for (i, 0, 2) {
		cpu = cand[i & 1];
		if ((i && cpu == prev_cpu) || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		c = scxk_percpu_ctx_of(&scxk_currs, cpu);
		if (!c || !c->started || c->claimed || !c->key || key >= c->key ||
		    avg_runtime * SCXK_PREEMPT_RATIO > c->avg_runtime)
			continue;
		ran = now > c->started ? now - c->started : 0;
		if (ran >= min_ran && ran >= longest) {
			longest = ran;
			victim = cpu;
		}
	}
	if (victim >= 0 && (c = scxk_percpu_ctx_of(&scxk_currs, victim)))
		c->claimed = 1;
	return victim;
}
