/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cadence.bpf.h - what the BPF files of scx_cadence share: the per-task and
 * per-CPU state, the maps and globals every file reads, the small helpers
 * that stay inline wherever they are used, and the functions one file
 * offers the others. cadence.bpf.c defines every global and map declared
 * here (it defines CADENCE_MAIN first); the other files see them extern,
 * and tools/bpf-link resolves them into one object.
 */
#ifndef __CADENCE_BPF_H
#define __CADENCE_BPF_H

#include <scxkit/common.bpf.h>
#include <scxkit/cgweight.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/preempt.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"
#include "policy.h"

/*
 * The maps: defined in cadence.bpf.c, extern in the other files (a map's
 * type is an anonymous struct, so it cannot be declared twice in one file).
 */
#ifdef CADENCE_MAIN
#define __cadence_shared
#else
#define __cadence_shared extern
#endif

/* ---- knobs, set by the loader before load (cadence.bpf.c) ---- */
extern const volatile u64 slice_max_ns, slice_min_ns;
extern const volatile u32 preempt_shift, pm_policy, pm_fixed;
extern const volatile bool no_compaction, no_freq_scaling, no_preemption, no_wake_sync;
extern const volatile bool no_dl_preempt, no_slice_boost;
extern const volatile u64 ap_low_cap, ap_high_cap;
extern const volatile u32 nr_cpus, nr_doms;
extern const volatile u32 cpu_dom[SCXK_MAX_CPUS];
extern const volatile u32 cpu_order[2][SCXK_MAX_CPUS];
extern const volatile u64 dom_bits[CADENCE_MAX_DOMS][SCXK_MASK_WORDS];
extern const volatile u32 dom_node[CADENCE_MAX_DOMS];
extern const volatile u32 dom_nr_cpus[CADENCE_MAX_DOMS];
extern const volatile bool dom_big[CADENCE_MAX_DOMS];
extern const volatile u32 dom_twin[CADENCE_MAX_DOMS];
extern const volatile u32 dom_nbr[CADENCE_MAX_DOMS][CADENCE_MAX_DOMS];

/* ---- shared with the loader, and state (cadence.bpf.c) ---- */
extern struct cadence_sys sys;
extern u32 pm_request, dom_stealee[CADENCE_MAX_DOMS];
extern u64 cur_clk;
extern u32 active_epoch;

struct task_ctx {
	u64 wait_freq, wake_freq, run_freq; /* per second, EWMA */
	u64 last_wait_at, last_wake_at, last_run_at;
	u64 avg_runtime, acc_runtime;
	/*
	 * Weighted virtual time: run time divided by the task's weight
	 * flattened through its cgroups (scxkit/cgweight.bpf.h). Deadlines
	 * start from it, so shares follow nice and cpu.weight.
	 */
	u64 svc;
	u64 lat_cri, perf_cri;
	u64 dl_delta; /* the criticality part of the last deadline */
	u64 deadline;
	u64 waker_lat_cri; /* of the task that woke it last */
	u32 boost;	   /* CADENCE_BOOST_* of the pending wakeup */
	u32 futex_op;	   /* command of the futex call in progress */
	u32 lock_held;	   /* holds a contended futex (tracepoints) */
	u64 lock_ran;	   /* CPU time run since it took the futex */
	u32 want_big;	   /* kicked off a little core for an idle big one */
};
__cadence_shared SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct cpu_ctx {
	u64 busy_ns;   /* run time in the current timer window */
	u64 acct_at;   /* busy time is accounted up to here */
	u64 run_start; /* when the current task started */
	u64 est_stop;  /* when it should stop (start + slice) */
	u64 avg_util, cur_util;
	u64 curr_lat_cri;
	u64 curr_dl_delta;	    /* the current task's deadline distance; 0: unknown */
	u64 lc_sum, lc_max, lc_nr;  /* lat_cri of schedules in this window */
	u64 pc_sum, pc_min, pc_max; /* perf_cri likewise */
	u64 charged_at;		    /* the current task's svc is charged up to here */
	u64 curr_svc;		    /* the current task's svc when it started */
	u64 last_sample;
	u32 perf_set; /* the level last handed to scx_bpf_cpuperf_set() + 1 */
	u32 running;
	u32 lock_holder;
	u32 rt_busy;	 /* an RT/DL task took the CPU from us */
	u32 yield_req;	 /* a critical task waits: stop at the next tick */
	u32 upgrade_req; /* a big core idles: the task here should move */
	u32 pinned;	 /* the current task cannot move */
};
__cadence_shared SCXK_PERCPU_CTX(cpu_ctxs, struct cpu_ctx);

/*
 * Cpumasks: each domain's CPUs, each domain's active CPUs, all active CPUs
 * and the big CPUs. Kptrs must live in a map.
 */
#define MASK_DOM(d)    ((d) & (CADENCE_MAX_DOMS - 1))
#define MASK_DOMACT(d) (CADENCE_MAX_DOMS + ((d) & (CADENCE_MAX_DOMS - 1)))
#define MASK_ACTIVE    (2 * CADENCE_MAX_DOMS)
#define MASK_BIG       (2 * CADENCE_MAX_DOMS + 1)
#define NR_MASKS       (2 * CADENCE_MAX_DOMS + 2)

__cadence_shared SCXK_MASK_SLOTS(cpumasks, NR_MASKS);

/* ---- helpers ---- */

static __always_inline struct task_ctx *task_ctx(struct task_struct *p)
{
	return scxk_task_storage(&task_ctxs, p, false);
}

static __always_inline struct bpf_cpumask *mask_of(u32 idx)
{
	return scxk_mask_slot_get(&cpumasks, idx);
}

static u32 dom_of(s32 cpu)
{
	return cpu_dom[SCXK_CPU_IDX(cpu)] & (CADENCE_MAX_DOMS - 1);
}

static u32 power_mode(void)
{
	return sys.power_mode < CADENCE_NR_PM ? sys.power_mode : CADENCE_PM_BALANCED;
}

static bool is_perf_cri(struct task_ctx *tctx)
{
	return tctx->perf_cri >= sys.thr_perf_cri;
}

static u64 task_slice(struct task_ctx *tctx)
{
	u64 base = sys.slice_ns ? sys.slice_ns : slice_max_ns;
	bool saturated = sys.nr_queued > sys.nr_active_cpus || sys.util >= CADENCE_SATURATED_UTIL;
	u64 s;

	if (no_slice_boost)
		return base;
	s = cadence_task_slice(base, tctx->avg_runtime, saturated, slice_min_ns, slice_max_ns);
	if (s > base)
		scxk_stat_inc(CADENCE_STAT_SLICE_BOOST);
	return s;
}

/*
 * The virtual time a task waking or forked near @cpu starts from: the
 * clock, or the virtual time of what runs on @cpu when that is behind the
 * clock. The clock follows whichever tasks start, so where CPUs are
 * partitioned (affinity, cpusets, domains the stealing has not mixed yet)
 * it can run ahead of one partition's tasks; starting a task there at the
 * clock would leave it waiting until they caught up.
 */
static u64 start_vtime(s32 cpu)
{
	u64 clk = READ_ONCE(cur_clk);
	struct cpu_ctx *c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);

	if (c && c->running && scxk_time_before(c->curr_svc, clk))
		return c->curr_svc;
	return clk;
}

/* placement.bpf.c */
__hidden s32 pick_idle_cpu(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu,
			   u64 wake_flags);
__hidden void kick_for(struct task_struct *p, u32 d);
bool steal(u32 d, bool only_stealees);
__hidden bool steal_earlier(u32 d, u64 local, struct task_struct *prev);

/* criticality.bpf.c */
__hidden void update_lat_cri(struct task_struct *p, struct task_ctx *tctx);
__hidden u64 task_deadline(struct task_struct *p, struct task_ctx *tctx);
__hidden bool try_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 now);

/* power.bpf.c */
__hidden void update_cpuperf(s32 cpu, struct cpu_ctx *c);
__hidden s32 start_sys_timer(void);

/* sampling.bpf.c */
__hidden void emit_sample(struct task_struct *p, struct task_ctx *tctx, struct cpu_ctx *c, s32 cpu,
			  u64 now);

#endif /* __CADENCE_BPF_H */
