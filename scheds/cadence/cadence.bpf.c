// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence - latency-criticality-aware virtual deadlines (LAVD-like),
 * for games and interactive work.
 *
 * A frame is a chain of short tasks that wake each other; the frame is as
 * late as the slowest hand-off. Each task gets a latency criticality from
 * how often it waits, how often it wakes others and how briefly it runs
 * (policy.h: cadence_lat_cri), boosted by what the kernel says about the
 * wakeup (interrupt, RT waker, sync wakeup, kthread, pinned, lock holder)
 * and partly inherited from a more critical waker. Tasks run in order of a
 * virtual deadline, logical clock + (base + awake time) x greedy penalty /
 * criticality, capped by a compete window that shrinks as queues fill, so a
 * storm degrades to FIFO instead of starving anyone.
 *
 * Slices are a 10 ms target latency shared among waiting tasks, in
 * [--slice-min-us, --slice-max-us]; long runners get a bounded boost while
 * CPUs are to spare. Only the top ~1/2^--preempt-shift of the criticality
 * range may preempt, preferring to ask a victim to yield at its next tick.
 *
 * Power: every 10 ms a timer estimates the capacity the load needs and
 * keeps only that many CPUs active, in a preference order built by the
 * loader from topology; it also chooses the power mode (--autopilot) and
 * each CPU's performance target. One queue per compute domain (LLC x core
 * type), with stealing between domains by load.
 *
 * Choose it for games, compositors and audio beside background load, and
 * for laptops. Compaction costs some throughput under bursty load, and the
 * criticality heuristics can misjudge workloads that are not chains.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"
#include "policy.h"

/* ---- knobs, set by the loader before load ---- */
const volatile u64 slice_max_ns = 5 * SCXK_NSEC_PER_MSEC;    /* --slice-max-us */
const volatile u64 slice_min_ns = 500 * SCXK_NSEC_PER_USEC;  /* --slice-min-us */
const volatile u32 preempt_shift = 6;			     /* --preempt-shift */
const volatile u32 pm_policy = CADENCE_PMP_AUTOPILOT;
const volatile u32 pm_fixed = CADENCE_PM_BALANCED;	     /* for CADENCE_PMP_FIXED */
const volatile bool no_compaction, no_freq_scaling, no_preemption, no_wake_sync;
const volatile bool no_dl_preempt; /* --no-deadline-preempt */
const volatile bool no_slice_boost;
/* Autopilot thresholds on required capacity (loader: from the CPU capacities). */
const volatile u64 ap_low_cap = 512, ap_high_cap = 1024;

/* Topology as the loader laid it out. */
const volatile u32 nr_cpus = 1;	 /* online CPUs, in cpu_order */
const volatile u32 nr_doms = 1;
const volatile u32 cpu_dom[SCXK_MAX_CPUS];
const volatile u32 cpu_order[2][SCXK_MAX_CPUS]; /* CADENCE_ORDER_PERF / _SAVE */
const volatile u64 dom_bits[CADENCE_MAX_DOMS][SCXK_MASK_WORDS];
const volatile u32 dom_node[CADENCE_MAX_DOMS];
const volatile u32 dom_nr_cpus[CADENCE_MAX_DOMS];
const volatile bool dom_big[CADENCE_MAX_DOMS];
/* The same LLC's domain of the other core type, or CADENCE_NO_DOM. */
const volatile u32 dom_twin[CADENCE_MAX_DOMS];
/* Other domains, nearest first (same node before remote ones). */
const volatile u32 dom_nbr[CADENCE_MAX_DOMS][CADENCE_MAX_DOMS];

/* ---- shared with the loader ---- */
struct cadence_sys sys;
u32 pm_request = CADENCE_PM_BALANCED; /* --autopower: written by the loader */
u32 dom_stealee[CADENCE_MAX_DOMS];    /* 1 when over-loaded, by the timer */

/* ---- state ---- */
static u64 cur_clk;	 /* the logical clock; only moves forward */
static u64 avg_svc;	 /* average service time of recently run tasks */
static u32 active_epoch; /* bumped when the active set changes; bit 0 = order */
static u64 dom_load[CADENCE_MAX_DOMS]; /* queued per CPU, 1/1024 (the timer's scratch) */

struct task_ctx {
	u64 wait_freq, wake_freq, run_freq; /* per second, EWMA */
	u64 last_wait_at, last_wake_at, last_run_at;
	u64 avg_runtime, acc_runtime;
	u64 svc;      /* weighted service time */
	u64 lat_cri, perf_cri;
	u64 dl_delta; /* the last deadline's distance from the clock */
	u64 deadline;
	u64 waker_lat_cri; /* of the task that woke it last */
	u32 boost;	   /* CADENCE_BOOST_* of the pending wakeup */
	u32 futex_op;	   /* command of the futex call in progress */
	u32 lock_held;	   /* holds a contended futex (tracepoints) */
	u64 lock_ran;	   /* CPU time run since it took the futex */
	u32 want_big;	   /* kicked off a little core for an idle big one */
};
SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct cpu_ctx {
	u64 busy_ns;	/* run time in the current timer window */
	u64 acct_at;	/* busy time is accounted up to here */
	u64 run_start;	/* when the current task started */
	u64 est_stop;	/* when it should stop (start + slice) */
	u64 avg_util, cur_util;
	u64 curr_lat_cri;
	u64 curr_dl_delta; /* the current task's deadline distance; 0: unknown */
	u64 lc_sum, lc_max, lc_nr; /* lat_cri of schedules in this window */
	u64 pc_sum, pc_min, pc_max; /* perf_cri likewise */
	u64 svc_sum;
	u64 last_sample;
	u32 perf_set;	/* the level last handed to scx_bpf_cpuperf_set() + 1 */
	u32 running;
	u32 lock_holder;
	u32 rt_busy;	/* an RT/DL task took the CPU from us */
	u32 yield_req;	/* a critical task waits: stop at the next tick */
	u32 upgrade_req; /* a big core idles: the task here should move */
	u32 pinned;	/* the current task cannot move */
};
SCXK_PERCPU_CTX(cpu_ctxs, struct cpu_ctx);

/*
 * Cpumasks: each domain's CPUs, each domain's active CPUs, all active CPUs
 * and the big CPUs. Kptrs must live in a map.
 */
#define MASK_DOM(d) ((d) & (CADENCE_MAX_DOMS - 1))
#define MASK_DOMACT(d) (CADENCE_MAX_DOMS + ((d) & (CADENCE_MAX_DOMS - 1)))
#define MASK_ACTIVE (2 * CADENCE_MAX_DOMS)
#define MASK_BIG (2 * CADENCE_MAX_DOMS + 1)
#define NR_MASKS (2 * CADENCE_MAX_DOMS + 2)

SCXK_MASK_SLOTS(cpumasks, NR_MASKS);

struct sys_timer {
	struct bpf_timer timer;
	u64 last;
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct sys_timer);
} sys_timer_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} cadence_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cadence_sample_ctl);
} cadence_smp_ctl SEC(".maps");

/* A task running this long on a little core while a big one idles is moved. */
#define UPGRADE_RUN_NS (2 * SCXK_NSEC_PER_MSEC)
/*
 * A victim whose slice ends sooner than this is asked to yield at its next
 * tick instead of being sent an IPI. Kept well under a tick (4 ms at
 * HZ=250), so that a critical task never waits most of a tick for a
 * victim that was about to stop anyway; an IPI costs microseconds.
 */
#define YIELD_HORIZON_NS (1 * SCXK_NSEC_PER_MSEC)
/* The running maximum of lat_cri decays by 1/8 per timer period. */
#define LC_MAX_DECAY_SHIFT 3
/* Domain load (queued per CPU, 1/1024) above 3/2 of the average: stealee. */
#define STEALEE_NUM 3
#define STEALEE_DEN 2

#define FUTEX_CMD_MASK 0x7f /* include/uapi/linux/futex.h, without PRIVATE/CLOCK flags */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAKE_OP 5
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define FUTEX_LOCK_PI2 13
#define MAX_RT_PRIO 100 /* prio below this: RT or deadline (include/linux/sched/prio.h) */

/* ---- helpers ---- */

static __always_inline struct task_ctx *task_ctx(struct task_struct *p)
{
	return scxk_task_storage(&task_ctxs, p, false);
}

static __always_inline struct bpf_cpumask *mask_of(u32 idx)
{
	return scxk_mask_slot_get(&cpumasks, idx);
}

static u32 nr_cpu_ids_max(void)
{
	return min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
}

static u32 dom_of(s32 cpu)
{
	return cpu_dom[SCXK_CPU_IDX(cpu)] & (CADENCE_MAX_DOMS - 1);
}

static u32 power_mode(void)
{
	return sys.power_mode < CADENCE_NR_PM ? sys.power_mode : CADENCE_PM_BALANCED;
}

static bool comm_is(const struct task_struct *p, const char *prefix, int len)
{
	for (int i = 0; i < len && i < 16; i++)
		if (p->comm[i] != prefix[i])
			return false;
	return true;
}

static bool is_perf_cri(struct task_ctx *tctx)
{
	return tctx->perf_cri >= sys.thr_perf_cri;
}

/*
 * On a hybrid machine: should this task run on a big core? Performance-
 * critical tasks should, and so should any task that runs long per
 * schedule: a single-threaded game or build step stuck on a little core
 * while a big one idles is the failure upstream LAVD showed on Lunar Lake.
 */
static bool wants_big(struct task_ctx *tctx)
{
	return scxk_topo.hybrid &&
	       (tctx->want_big || is_perf_cri(tctx) || tctx->avg_runtime >= slice_min_ns);
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

/* Criticality of a task now, from its history and the pending wakeup's boosts. */
static void update_lat_cri(struct task_struct *p, struct task_ctx *tctx)
{
	u32 boost = tctx->boost;
	u64 lc;

	if (p->flags & PF_KTHREAD)
		boost += CADENCE_BOOST_KTHREAD;
	if (scxk_task_pinned(p))
		boost += CADENCE_BOOST_PINNED;
	if (tctx->lock_held)
		boost += CADENCE_BOOST_LOCK;
	lc = cadence_lat_cri(tctx->wait_freq, tctx->wake_freq, tctx->avg_runtime, p->scx.weight,
			     boost);
	tctx->lat_cri = cadence_inherit(lc, tctx->waker_lat_cri);
	tctx->perf_cri = cadence_perf_cri(tctx->wait_freq, tctx->wake_freq, tctx->run_freq,
					  tctx->avg_runtime, p->scx.weight);
}

static u64 task_deadline(struct task_struct *p, struct task_ctx *tctx)
{
	u64 window = cadence_compete_window(sys.nr_active_cpus, sys.nr_queued);
	u64 penalty = cadence_greedy_penalty(tctx->svc, avg_svc);

	tctx->dl_delta = cadence_deadline_delta(tctx->acc_runtime, penalty, tctx->lat_cri, window);
	/*
	 * Kernel threads (RCU's grace-period thread, the sched_ext watchdog's
	 * kworker, ksoftirqd) queue at the clock itself, ahead of every new
	 * arrival: in a wakeup storm the clock crawls, and a deadline even
	 * 1 ms out starved RCU for 20 s under TCG until the watchdog fired.
	 */
	if (p->flags & PF_KTHREAD)
		tctx->dl_delta = 0;
	tctx->deadline = READ_ONCE(cur_clk) + tctx->dl_delta;
	return tctx->deadline;
}

/*
 * The domain a task should start looking in: where it ran, or a sync
 * waker's (the wakee consumes what the waker just wrote), switched to the
 * other core type of the same LLC when that suits the task better.
 */
static u32 pref_dom(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 wake_flags)
{
	s32 this_cpu = bpf_get_smp_processor_id();
	u32 d = dom_of(prev_cpu), twin;

	if ((wake_flags & SCX_WAKE_SYNC) && !no_wake_sync &&
	    bpf_cpumask_test_cpu(this_cpu, p->cpus_ptr))
		d = dom_of(this_cpu);
	if (!scxk_topo.hybrid)
		return d;
	twin = dom_twin[d & (CADENCE_MAX_DOMS - 1)];
	if (twin != CADENCE_NO_DOM && dom_big[d & (CADENCE_MAX_DOMS - 1)] != wants_big(tctx))
		d = twin & (CADENCE_MAX_DOMS - 1);
	return d;
}

/* Claim an idle CPU of @mask: a whole idle core first when SMT exists. */
static __always_inline s32 pick_idle_in(const struct cpumask *mask)
{
	s32 cpu;

	if (!mask)
		return -EBUSY;
	if (scxk_topo.smt && (cpu = scx_bpf_pick_idle_cpu(mask, SCX_PICK_IDLE_CORE)) >= 0)
		return cpu;
	return scx_bpf_pick_idle_cpu(mask, 0);
}

/*
 * An idle CPU for @p: the preferred domain's active CPUs (its previous CPU
 * if its whole core idles, a fully idle core, the previous CPU, any idle
 * CPU), then any active CPU. Compacted-off CPUs are left asleep; a big
 * core is always fair game for a task kicked off a little one.
 * Affinitized tasks ignore compaction: they may have no active CPU at all.
 */
static s32 pick_idle_cpu(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu,
			 u64 wake_flags)
{
	const struct cpumask *dact, *idle_smt;
	u32 d;
	s32 cpu;
	bool core_idle;

	if (p->nr_cpus_allowed < nr_cpus)
		return scxk_pick_idle_cpu(p, prev_cpu, 0);
	/*
	 * Big-core tasks take any idle big core, compacted off or not, and
	 * rather wait in a big core's queue than move to a little one.
	 */
	if (wants_big(tctx)) {
		tctx->want_big = 0;
		if ((cpu = pick_idle_in((const struct cpumask *)mask_of(MASK_BIG))) >= 0)
			return cpu;
		if (scxk_cpu_is_big(prev_cpu))
			return -EBUSY;
	}

	d = pref_dom(p, tctx, prev_cpu, wake_flags);
	dact = (const struct cpumask *)mask_of(MASK_DOMACT(d));
	if (!dact)
		return -EBUSY;
	if (bpf_cpumask_test_cpu(prev_cpu, dact)) {
		if (scxk_topo.smt) {
			idle_smt = scx_bpf_get_idle_smtmask();
			core_idle = bpf_cpumask_test_cpu(prev_cpu, idle_smt);
			scx_bpf_put_idle_cpumask(idle_smt);
			if (core_idle && scx_bpf_test_and_clear_cpu_idle(prev_cpu))
				return prev_cpu;
			if ((cpu = scx_bpf_pick_idle_cpu(dact, SCX_PICK_IDLE_CORE)) >= 0)
				return cpu;
		}
		if (scx_bpf_test_and_clear_cpu_idle(prev_cpu))
			return prev_cpu;
	}
	if ((cpu = pick_idle_in(dact)) >= 0)
		return cpu;
	return pick_idle_in((const struct cpumask *)mask_of(MASK_ACTIVE));
}

/* ---- callbacks, in the order the kernel calls them ---- */

s32 BPF_STRUCT_OPS(cadence_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 cpu;

	if (!tctx || scxk_fault_drop(p))
		return prev_cpu;
	tctx->boost = (wake_flags & SCX_WAKE_SYNC) ? CADENCE_BOOST_SYNC : 0;
	cpu = pick_idle_cpu(p, tctx, prev_cpu, wake_flags);
	if (cpu >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, task_slice(tctx), 0);
		scxk_stat_inc(CADENCE_STAT_DIRECT);
		return cpu;
	}
	return prev_cpu;
}

void BPF_STRUCT_OPS(cadence_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_struct *waker;
	struct task_ctx *tctx = task_ctx(p), *wctx;
	u64 now = scxk_now();

	if (!tctx)
		return;
	tctx->acc_runtime = 0;
	tctx->waker_lat_cri = 0;
	if (!(enq_flags & SCX_ENQ_WAKEUP)) {
		tctx->boost = 0;
		update_lat_cri(p, tctx);
		return;
	}
	/* Long sleepers come back at most CADENCE_LAG_MAX_NS behind. */
	tctx->svc = cadence_svc_floor(tctx->svc, avg_svc);
	tctx->boost += CADENCE_BOOST_WAKEUP;

	/*
	 * The waker is whatever runs here now. The idle task means an
	 * interrupt woke p (a device: input, audio, network); ksoftirqd
	 * means deferred interrupt work. Both sit at the head of a chain.
	 */
	waker = bpf_get_current_task_btf();
	if (!waker->pid)
		tctx->boost += CADENCE_BOOST_IRQ;
	else if ((waker->flags & PF_KTHREAD) && comm_is(waker, "ksoftirqd", 9))
		tctx->boost += CADENCE_BOOST_SOFTIRQ;
	if (waker->prio < MAX_RT_PRIO)
		tctx->boost += CADENCE_BOOST_RT;
	if (waker->pid && (wctx = task_ctx(waker))) {
		wctx->wake_freq = scxk_freq_update(wctx->wake_freq, now - wctx->last_wake_at);
		wctx->last_wake_at = now;
		tctx->waker_lat_cri = wctx->lat_cri;
	}
	update_lat_cri(p, tctx);
	tctx->boost = 0;
}

/*
 * Any other waking @p may take its previous CPU, or the waking CPU, from a
 * task that earned a much later deadline, once that task has run
 * slice_min: sched_ext ends slices only at the tick (4 ms at HZ=250), so
 * without this an interactive wakeup waits most of a tick behind a CPU hog.
 * The deadlines' distances from the clock are compared, not the deadlines:
 * the clock runs ahead of a running task's deadline within a few schedules
 * elsewhere, so every wakee would look later than any task already running.
 * slice_min bounds the preemption rate per CPU. Only those two CPUs: they
 * are cache-warm, and a timer or same-CPU wakeup preempts without an IPI;
 * with two random victims as well (an IPI to another CPU for most wakeups)
 * a frame pipeline beside CPU hogs missed 5x more frames in a TCG guest.
 */
static bool try_deadline_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu,
				 u64 now)
{
	s32 cand[2] = { prev_cpu, bpf_get_smp_processor_id() }, cpu, later = -1;
	struct cpu_ctx *c;
	int i;

	bpf_for(i, 0, 2) {
		cpu = cand[i & 1];
		if ((i && cpu == prev_cpu) || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!c || !c->running || c->lock_holder || c->rt_busy || c->yield_req ||
		    !cadence_dl_preempts(tctx->dl_delta, c->curr_dl_delta))
			continue;
		if (now - c->run_start < slice_min_ns) {
			later = later < 0 ? cpu : later;
			continue;
		}
		/* Claimed: a second waker in the same window looks elsewhere. */
		c->yield_req = 1;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(tctx), SCX_ENQ_PREEMPT);
		scxk_stat_inc(CADENCE_STAT_DL_PREEMPT);
		return true;
	}
	/*
	 * The victim only just started: it yields at its next tick instead,
	 * with @p next in line there, rather than @p waiting in the domain
	 * queue for whichever slice ends first (up to slice + a tick).
	 */
	if (later >= 0 && (c = scxk_percpu_ctx_of(&cpu_ctxs, later))) {
		c->yield_req = 1;
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | later, task_slice(tctx), 0);
		scxk_stat_inc(CADENCE_STAT_YIELD);
		return true;
	}
	return false;
}

/*
 * A waker that runs in short bursts (a pipeline stage handing over, a
 * client posting a request) is about to wait: queue @p first in line on
 * the waker's CPU, where it runs the moment the waker blocks, cache-warm
 * for what the waker produced, with no IPI and no victim. Without this a
 * chain of such tasks under saturation preempted a CPU hog elsewhere by
 * IPI at every hop, or waited up to a tick behind one that had just
 * started. Should the waker run on after all, it yields at its next tick.
 */
static bool try_handoff(struct task_struct *p, struct task_ctx *tctx, u64 now)
{
	struct task_struct *waker = bpf_get_current_task_btf();
	s32 cpu = bpf_get_smp_processor_id();
	struct task_ctx *wctx;
	struct cpu_ctx *c;

	if (waker == p || !bpf_cpumask_test_cpu(cpu, p->cpus_ptr) ||
	    !(c = scxk_percpu_ctx_of(&cpu_ctxs, cpu)) || !c->running || c->yield_req ||
	    now - c->run_start >= slice_min_ns || !(wctx = task_ctx(waker)) ||
	    wctx->avg_runtime >= slice_min_ns)
		return false;
	c->yield_req = 1;
	scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, task_slice(tctx), 0);
	scxk_stat_inc(CADENCE_STAT_HANDOFF);
	return true;
}

/*
 * Preempt for a waking @p among the most critical few: of two random
 * active CPUs running something less critical, the one that would run
 * longest; never a lock holder or a CPU an RT task took.
 */
static bool try_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 now)
{
	u32 order = power_mode() == CADENCE_PM_POWERSAVE ? CADENCE_ORDER_SAVE : CADENCE_ORDER_PERF;
	u32 n = sys.nr_active_cpus, r = bpf_get_prandom_u32();
	s32 cand[2], victim = -1, cpu;
	u64 best_stop = 0;
	struct cpu_ctx *c;
	int i;

	if (no_preemption || cadence_greedy_penalty(tctx->svc, avg_svc) > CADENCE_SCALE)
		return false;
	if (try_handoff(p, tctx, now))
		return true;
	if (tctx->lat_cri < sys.thr_lat_cri)
		return !no_dl_preempt && try_deadline_preempt(p, tctx, prev_cpu, now);
	if (!n || n > nr_cpus)
		n = nr_cpus;
	cand[0] = cpu_order[order & 1][SCXK_CPU_IDX(r % n)];
	cand[1] = cpu_order[order & 1][SCXK_CPU_IDX((r >> 16) % n)];
	for (i = 0; i < 2; i++) {
		cpu = cand[i];
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr))
			continue;
		c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
		if (!c || !c->running || c->lock_holder || c->rt_busy || c->yield_req ||
		    c->curr_lat_cri >= tctx->lat_cri)
			continue;
		if (c->est_stop > best_stop) {
			best_stop = c->est_stop;
			victim = cpu;
		}
	}
	if (victim < 0 || !(c = scxk_percpu_ctx_of(&cpu_ctxs, victim)))
		return false;

	/*
	 * Straight to the victim's local queue: through the CPU's own DSQ the
	 * victim's dispatch would compare deadlines with its domain queue,
	 * where the clock's lead makes every older deadline look earlier, and
	 * the preemption would only swap one CPU hog for another.
	 */
	if (scxk_time_before(now + YIELD_HORIZON_NS, best_stop)) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | victim, task_slice(tctx), SCX_ENQ_PREEMPT);
		scxk_stat_inc(CADENCE_STAT_PREEMPT);
	} else {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | victim, task_slice(tctx), 0);
		c->yield_req = 1;
		/*
		 * The victim may have gone idle since we looked; an idle CPU
		 * does not tick, so wake it (a no-op when it is busy).
		 */
		scx_bpf_kick_cpu(victim, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_YIELD);
	}
	return true;
}

/* Wake an idle CPU for work just queued on domain @d. */
static void kick_for(struct task_struct *p, u32 d)
{
	const struct cpumask *dact = (const struct cpumask *)mask_of(MASK_DOMACT(d));
	s32 cpu = dact ? scx_bpf_pick_idle_cpu(dact, 0) : -EBUSY;

	if (cpu >= 0) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	/* More waiting than the active CPUs can take: spill to any idle CPU. */
	if (scx_bpf_dsq_nr_queued(d) > dom_nr_cpus[d] &&
	    (cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0)) >= 0) {
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_SPILL);
	}
}

void BPF_STRUCT_OPS(cadence_enqueue, struct task_struct *p, u64 enq_flags)
{
	s32 prev_cpu = scx_bpf_task_cpu(p), cpu;
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *pc;
	u64 deadline, slice;
	u32 d;

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return;
	if (!tctx) {
		scxk_dsq_insert_vtime(p, dom_of(prev_cpu), slice_max_ns, READ_ONCE(cur_clk),
				      enq_flags);
		return;
	}
	/* Re-queued without a wakeup (preempted, slice over): the lock-holder
	 * boost may have changed since runnable() computed criticality. */
	if (!(enq_flags & SCX_ENQ_WAKEUP))
		update_lat_cri(p, tctx);
	deadline = task_deadline(p, tctx);
	slice = task_slice(tctx);

	/*
	 * After an affinity change the previous CPU may be one the task can
	 * no longer use; queueing there would strand it where no allowed CPU
	 * looks (a runnable-task stall). Start from an allowed CPU instead.
	 */
	if (!scxk_migration_disabled(p) && !bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr)) {
		cpu = bpf_cpumask_any_distribute(p->cpus_ptr);
		if (cpu < 0 || (u32)cpu >= nr_cpu_ids_max())
			cpu = prev_cpu;
		prev_cpu = cpu;
	}

	/* Pinned tasks wait on their CPU's own queue; it is overflow-capable. */
	if (scxk_task_pinned(p)) {
		scxk_dsq_insert_vtime(p, SCXK_DSQ_CPU(prev_cpu), slice, deadline, enq_flags);
		scx_bpf_kick_cpu(prev_cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_PINNED);
		return;
	}

	/* A big core idles while this task ran on a little one: move it. */
	pc = scxk_percpu_ctx_of(&cpu_ctxs, prev_cpu);
	if (pc && pc->upgrade_req) {
		pc->upgrade_req = 0;
		tctx->want_big = 1;
		scxk_stat_inc(CADENCE_STAT_UPGRADE);
	}

	/* Not placed by select_cpu (preempted, slice expired, new): look now. */
	if (!(enq_flags & SCX_ENQ_CPU_SELECTED) &&
	    (cpu = pick_idle_cpu(p, tctx, prev_cpu, 0)) >= 0) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice, enq_flags);
		scx_bpf_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(CADENCE_STAT_DIRECT);
		return;
	}
	if ((enq_flags & SCX_ENQ_WAKEUP) && try_preempt(p, tctx, prev_cpu, scxk_now()))
		return;

	d = dom_of(prev_cpu);
	scxk_dsq_insert_vtime(p, d, slice, deadline, enq_flags);
	scxk_stat_inc(CADENCE_STAT_DOM);
	kick_for(p, d);
}

/*
 * Take work from another domain: over-loaded ones (stealees) first when
 * @only_stealees, else the nearest domain with anything queued.
 */
__noinline bool steal(u32 d, bool only_stealees)
{
	u32 i, nd, nr = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS;

	bpf_for(i, 0, nr - 1) {
		nd = dom_nbr[d & (CADENCE_MAX_DOMS - 1)][i & (CADENCE_MAX_DOMS - 1)] &
		     (CADENCE_MAX_DOMS - 1);
		if (only_stealees && !dom_stealee[nd])
			continue;
		if (scx_bpf_dsq_nr_queued(nd) && scxk_dsq_move_to_local(nd)) {
			scxk_stat_inc(CADENCE_STAT_STEAL);
			return true;
		}
	}
	return false;
}

void BPF_STRUCT_OPS(cadence_dispatch, s32 cpu, struct task_struct *prev)
{
	u64 cpu_dsq = SCXK_DSQ_CPU(cpu);
	u32 d = dom_of(cpu);
	struct task_ctx *tctx;

	/* An under-loaded domain helps an over-loaded one first. */
	if (nr_doms > 1 && sys.nr_stealees && !dom_stealee[d] && steal(d, true))
		return;
	/* Earliest deadline of this CPU's queue and its domain's. */
	if (scxk_dsq_move_earliest(cpu_dsq, d))
		return;
	/* Nothing here: never idle while another domain has work. */
	if (nr_doms > 1 && steal(d, false))
		return;
	/* Nothing waits anywhere: prev keeps the CPU with a fresh slice. */
	if (scxk_prev_runnable(prev) && (tctx = task_ctx(prev)))
		scxk_task_set_slice(prev, task_slice(tctx));
}

static void update_cpuperf(s32 cpu, struct cpu_ctx *c)
{
	u32 perf;

	if (no_freq_scaling)
		return;
	if (power_mode() == CADENCE_PM_PERFORMANCE)
		perf = CADENCE_SCALE;
	else
		perf = cadence_perf_target(max(c->avg_util, c->cur_util));
	if (c->perf_set != perf + 1) {
		scx_bpf_cpuperf_set(cpu, perf);
		c->perf_set = perf + 1;
	}
}

static void emit_sample(struct task_struct *p, struct task_ctx *tctx, struct cpu_ctx *c, s32 cpu,
			u64 now)
{
	struct cadence_sample_ctl *ctl;
	struct cadence_sample *s;
	u32 zero = 0;

	ctl = bpf_map_lookup_elem(&cadence_smp_ctl, &zero);
	if (!ctl || !scxk_time_before(bpf_ktime_get_ns(), ctl->until_ns) ||
	    now - c->last_sample < ctl->interval_ns)
		return;
	c->last_sample = now;
	s = bpf_ringbuf_reserve(&cadence_samples, sizeof(*s), 0);
	if (!s)
		return;
	s->ts = now;
	s->pid = p->pid;
	s->cpu = cpu;
	__builtin_memcpy(s->comm, p->comm, sizeof(s->comm));
	s->lat_cri = tctx->lat_cri;
	s->perf_cri = tctx->perf_cri;
	s->wait_freq = tctx->wait_freq;
	s->wake_freq = tctx->wake_freq;
	s->avg_runtime_ns = tctx->avg_runtime;
	s->slice_ns = p->scx.slice;
	s->dl_delta_ns = tctx->dl_delta;
	s->norm_lat_cri = cadence_normalize(tctx->lat_cri, sys.max_lat_cri);
	s->dom = dom_of(cpu);
	s->big = scxk_cpu_is_big(cpu);
	s->lock_holder = tctx->lock_held;
	bpf_ringbuf_submit(s, 0);
}

void BPF_STRUCT_OPS(cadence_running, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	s32 cpu = scx_bpf_task_cpu(p);
	u64 now = scxk_now(), clk, nclk;
	int i;

	if (!c)
		return;
	c->running = 1;
	c->run_start = now;
	c->acct_at = now;
	c->est_stop = now + p->scx.slice;
	c->yield_req = 0;
	c->pinned = scxk_task_pinned(p);
	update_cpuperf(cpu, c);
	scxk_stat_inc(CADENCE_STAT_SCHED);
	if (scxk_cpu_is_big(cpu))
		scxk_stat_inc(CADENCE_STAT_ON_BIG);
	if (!tctx) {
		c->curr_lat_cri = 0;
		c->curr_dl_delta = 0;
		c->lock_holder = 0;
		return;
	}
	tctx->run_freq = scxk_freq_update(tctx->run_freq, now - tctx->last_run_at);
	tctx->last_run_at = now;
	c->curr_lat_cri = tctx->lat_cri;
	c->curr_dl_delta = tctx->dl_delta;
	c->lock_holder = tctx->lock_held;
	if (tctx->lat_cri >= sys.avg_lat_cri)
		scxk_stat_inc(CADENCE_STAT_LAT_CRI);
	if (is_perf_cri(tctx))
		scxk_stat_inc(CADENCE_STAT_PERF_CRI);

	c->lc_sum += tctx->lat_cri;
	c->lc_nr++;
	if (tctx->lat_cri > c->lc_max)
		c->lc_max = tctx->lat_cri;
	c->pc_sum += tctx->perf_cri;
	if (tctx->perf_cri > c->pc_max)
		c->pc_max = tctx->perf_cri;
	if (!c->pc_min || tctx->perf_cri < c->pc_min)
		c->pc_min = tctx->perf_cri;
	c->svc_sum += tctx->svc;

	/* Advance the logical clock towards this deadline; only forwards. */
	for (i = 0; i < 3; i++) {
		clk = READ_ONCE(cur_clk);
		nclk = cadence_clock_advance(clk, tctx->deadline, sys.nr_queued + 1);
		if (nclk == clk || __sync_val_compare_and_swap(&cur_clk, clk, nclk) == clk)
			break;
	}
	emit_sample(p, tctx, c, cpu, now);
}

void BPF_STRUCT_OPS(cadence_tick, struct task_struct *p)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	struct task_ctx *tctx;
	u64 now = scxk_now();

	if (!c)
		return;
	c->busy_ns += now - c->acct_at;
	c->acct_at = now;
	/*
	 * FUTEX_WAIT returning 0 also ends a condvar or barrier wait, so the
	 * "lock" may never be given back by a FUTEX_WAKE: a thread that passed
	 * a start barrier once would otherwise stay boosted and shielded for
	 * good. Real critical sections are short; drop the status after
	 * slice_max of CPU time. c->lock_holder mirrors the mark, so ticks of
	 * other tasks skip the task-storage lookup.
	 */
	if (c->lock_holder && (tctx = task_ctx(p)) && tctx->lock_held &&
	    tctx->lock_ran + (now - c->run_start) > slice_max_ns) {
		tctx->lock_held = 0;
		c->lock_holder = 0;
	}
	/* A more critical task waits on this CPU's queue: yield now. */
	if (c->yield_req) {
		c->yield_req = 0;
		scxk_task_set_slice(p, 0);
	}
}

void BPF_STRUCT_OPS(cadence_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);
	u64 now = scxk_now(), ran;

	if (!c)
		return;
	c->busy_ns += now - c->acct_at;
	c->acct_at = now;
	c->running = 0;
	c->lock_holder = 0;
	c->curr_lat_cri = 0;
	if (!tctx)
		return;
	ran = now - c->run_start;
	tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
	tctx->acc_runtime += ran;
	tctx->svc += scxk_scale_by_weight_inv(ran, p->scx.weight);
	/* Going to sleep, or held longer than any critical section: released. */
	if (tctx->lock_held && (!runnable || (tctx->lock_ran += ran) > slice_max_ns))
		tctx->lock_held = 0;
}

void BPF_STRUCT_OPS(cadence_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	u64 now = scxk_now();

	if (!tctx || !(deq_flags & SCX_DEQ_SLEEP))
		return;
	tctx->wait_freq = scxk_freq_update(tctx->wait_freq, now - tctx->last_wait_at);
	tctx->last_wait_at = now;
	/*
	 * A sleeping task holds no CPU; if it still held the lock the next
	 * contended acquire shows it again. This bounds a stale flag.
	 */
	tctx->lock_held = 0;
}

/* An RT or deadline task took this CPU: hand our queued tasks elsewhere. */
void BPF_STRUCT_OPS(cadence_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);

	if (c)
		c->rt_busy = 1;
	scxk_reenqueue_local();
}

void BPF_STRUCT_OPS(cadence_cpu_acquire, s32 cpu, struct scx_cpu_acquire_args *args)
{
	struct cpu_ctx *c = scxk_percpu_ctx(&cpu_ctxs);

	if (c)
		c->rt_busy = 0;
}

s32 BPF_STRUCT_OPS(cadence_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, true);
	u64 now = scxk_now();

	if (!tctx)
		return -ENOMEM;
	tctx->last_wait_at = now;
	tctx->last_wake_at = now;
	tctx->last_run_at = now;
	/* New tasks start at the average: no credit, no penalty. */
	tctx->svc = avg_svc;
	tctx->lat_cri = 1;
	return 0;
}

/* ---- futex lock holders (tracepoints, attached by the loader) ---- */

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

/* ---- the 10 ms timer: system statistics, power mode, compaction ---- */

/*
 * The timer's work is split into global functions, one loop each: the
 * verifier checks a global function once, on its own, instead of once per
 * state the previous loops left behind (which multiplied into minutes of
 * verification). They share the accumulator below instead of the stack.
 */
struct sys_acc {
	u64 util_cap, util_sum, cap_sum, big_cap, perf_sum;
	u64 lc_sum, lc_nr, lc_max, pc_sum, pc_min, pc_max, svc_sum;
	u64 nr_running, nr_queued;
	s32 idle_big, long_little;
};
static struct sys_acc acc;

static __always_inline void collect_cpu(s32 cpu, u64 now, u64 interval, struct sys_acc *a)
{
	struct cpu_ctx *c = scxk_percpu_ctx_of(&cpu_ctxs, cpu);
	u32 cap = scxk_cpu_capacity(cpu);
	u64 util;

	if (!c)
		return;
	if (c->running) {
		/* Account the running task up to now; it may not stop for a while. */
		c->busy_ns += now - c->acct_at;
		c->acct_at = now;
	}
	util = interval ? c->busy_ns * CADENCE_SCALE / interval : 0;
	c->busy_ns = 0;
	c->cur_util = util > CADENCE_SCALE ? CADENCE_SCALE : util;
	c->avg_util = scxk_calc_avg(c->avg_util, c->cur_util);
	a->util_cap += max(c->avg_util, c->cur_util) * cap / CADENCE_SCALE;
	a->util_sum += c->avg_util;
	a->cap_sum += cap;
	a->perf_sum += c->perf_set ? c->perf_set - 1 : CADENCE_SCALE;
	a->nr_running += c->running;
	a->nr_queued += scx_bpf_dsq_nr_queued(SCXK_DSQ_CPU(cpu));

	a->lc_sum += c->lc_sum;
	a->lc_nr += c->lc_nr;
	a->lc_max = max(a->lc_max, c->lc_max);
	a->pc_sum += c->pc_sum;
	a->pc_max = max(a->pc_max, c->pc_max);
	if (c->pc_min && (!a->pc_min || c->pc_min < a->pc_min))
		a->pc_min = c->pc_min;
	a->svc_sum += c->svc_sum;
	c->lc_sum = c->lc_nr = c->lc_max = 0;
	c->pc_sum = c->pc_min = c->pc_max = 0;
	c->svc_sum = 0;

	if (scxk_topo.hybrid) {
		if (scxk_cpu_is_big(cpu)) {
			a->big_cap += cap;
			if (!c->running)
				a->idle_big = cpu;
		} else if (c->running && !c->pinned && now - c->run_start > UPGRADE_RUN_NS &&
			   !c->upgrade_req) {
			a->long_little = cpu;
		}
	}
}

/* Per-CPU utilisation and criticality statistics of the last period, into acc. */
__noinline int timer_collect(u64 now, u64 interval)
{
	u32 i, nr = min(nr_cpus, SCXK_MAX_CPUS), nd;

	__builtin_memset(&acc, 0, sizeof(acc));
	acc.idle_big = -1;
	acc.long_little = -1;
	bpf_for(i, 0, nr)
		collect_cpu(cpu_order[0][SCXK_CPU_IDX(i)], now, interval, &acc);
	nd = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS;
	bpf_for(i, 0, nd)
		acc.nr_queued += scx_bpf_dsq_nr_queued(i);
	return 0;
}

/* Keep the first @nr_active CPUs of @order active, the rest off. */
__noinline int set_active(u32 order, u32 nr_active)
{
	struct bpf_cpumask *active, *dact;
	u32 i, cpu;

	bpf_rcu_read_lock();
	active = mask_of(MASK_ACTIVE);
	if (!active)
		goto out;
	bpf_for(i, 0, nr_cpus) {
		cpu = cpu_order[order & 1][SCXK_CPU_IDX(i)];
		dact = mask_of(MASK_DOMACT(dom_of(cpu)));
		if (!dact)
			break;
		if (i < nr_active) {
			bpf_cpumask_set_cpu(cpu, active);
			bpf_cpumask_set_cpu(cpu, dact);
		} else {
			bpf_cpumask_clear_cpu(cpu, active);
			bpf_cpumask_clear_cpu(cpu, dact);
		}
	}
out:
	bpf_rcu_read_unlock();
	return 0;
}

__noinline u32 compact(u32 mode, u64 required)
{
	u32 order = mode == CADENCE_PM_POWERSAVE ? CADENCE_ORDER_SAVE : CADENCE_ORDER_PERF;
	u64 sum = 0;
	u32 i, n = nr_cpus;

	if (!no_compaction && mode != CADENCE_PM_PERFORMANCE) {
		bpf_for(i, 0, nr_cpus) {
			if (cadence_compact_add(&sum,
						scxk_cpu_capacity(cpu_order[order & 1][SCXK_CPU_IDX(i)]),
						required)) {
				n = i + 1;
				break;
			}
		}
	}
	if (n != sys.nr_active_cpus || order != (active_epoch & 1)) {
		set_active(order, n);
		active_epoch = ((active_epoch + 2) & ~1U) | order;
	}
	return n;
}

/* Mark domains with well above the average queue per CPU as stealees. */
__noinline int plan_stealing(void)
{
	u64 sum = 0, avg;
	u32 d, nr = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS, stealees = 0;

	if (nr < 2)
		return 0;
	bpf_for(d, 0, nr) {
		u32 n = dom_nr_cpus[d & (CADENCE_MAX_DOMS - 1)];

		dom_load[d & (CADENCE_MAX_DOMS - 1)] =
			scx_bpf_dsq_nr_queued(d) * CADENCE_SCALE / (n ? n : 1);
		sum += dom_load[d & (CADENCE_MAX_DOMS - 1)];
	}
	avg = sum / nr;
	bpf_for(d, 0, nr) {
		bool s = dom_load[d & (CADENCE_MAX_DOMS - 1)] > CADENCE_SCALE &&
			 dom_load[d & (CADENCE_MAX_DOMS - 1)] * STEALEE_DEN > avg * STEALEE_NUM;

		dom_stealee[d & (CADENCE_MAX_DOMS - 1)] = s;
		stealees += s;
	}
	sys.nr_stealees = stealees;
	return 0;
}

static int sys_timerfn(void *map, int *key, struct sys_timer *t)
{
	struct sys_acc *a = &acc;
	u64 now = scxk_now(), interval = now - t->last;
	u32 mode, nr = min(nr_cpus, SCXK_MAX_CPUS), n;
	u64 max_lc, avg_lc;

	t->last = now;
	timer_collect(now, interval);

	sys.nr_queued = a->nr_queued;
	sys.nr_running = a->nr_running;
	sys.util = a->util_sum / (nr ? nr : 1);
	sys.avg_perf = a->perf_sum / (nr ? nr : 1);
	sys.required_cap = cadence_required_cap(a->util_cap);

	if (a->lc_nr) {
		avg_lc = a->lc_sum / a->lc_nr;
		sys.avg_lat_cri = scxk_calc_avg(sys.avg_lat_cri, avg_lc);
		if (a->pc_sum)
			sys.thr_perf_cri = cadence_perf_thresh(
				a->pc_min, a->pc_sum / a->lc_nr, a->pc_max,
				a->cap_sum ? a->big_cap * CADENCE_SCALE / a->cap_sum : CADENCE_SCALE);
		avg_svc = max(avg_svc, a->svc_sum / a->lc_nr);
	}
	max_lc = sys.max_lat_cri - (sys.max_lat_cri >> LC_MAX_DECAY_SHIFT);
	max_lc = max(max_lc, a->lc_max);
	sys.max_lat_cri = max(max_lc, sys.avg_lat_cri);
	sys.thr_lat_cri = cadence_preempt_thresh(sys.max_lat_cri, sys.avg_lat_cri, preempt_shift);

	n = sys.nr_active_cpus ? sys.nr_active_cpus : nr;
	sys.slice_ns = cadence_slice_smooth(sys.slice_ns, cadence_sys_slice(n, a->nr_queued,
									   slice_min_ns,
									   slice_max_ns));

	if (pm_policy == CADENCE_PMP_FIXED)
		mode = pm_fixed;
	else if (pm_policy == CADENCE_PMP_AUTOPOWER)
		mode = pm_request;
	else
		mode = cadence_autopilot(sys.required_cap, ap_low_cap, ap_high_cap);
	mode = mode < CADENCE_NR_PM ? mode : CADENCE_PM_BALANCED;
	scxk_stat_add(CADENCE_STAT_TIME_PM + mode, interval);
	sys.power_mode = mode;
	sys.nr_active_cpus = compact(mode, sys.required_cap);
	scxk_stat_add(CADENCE_STAT_ACTIVE_NS, sys.nr_active_cpus * interval);

	plan_stealing();

	/* A big core idles while a little one runs a long task: move it. */
	if (a->idle_big >= 0 && a->long_little >= 0) {
		struct cpu_ctx *c = scxk_percpu_ctx_of(&cpu_ctxs, a->long_little);

		if (c) {
			c->upgrade_req = 1;
			scx_bpf_kick_cpu(a->long_little, SCX_KICK_PREEMPT);
		}
	}
	bpf_timer_start(&t->timer, CADENCE_TIMER_NS, 0);
	return 0;
}

/* ---- initialisation ---- */

static s32 init_masks(void)
{
	struct bpf_cpumask *m;
	u32 d, cpu, nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	s32 err;

	bpf_for(d, 0, NR_MASKS)
		if ((err = scxk_mask_slot_new(&cpumasks, d, NULL)))
			return err;
	bpf_rcu_read_lock();
	bpf_for(cpu, 0, nr) {
		d = dom_of(cpu);
		if (!scxk_bits_test(dom_bits[d], cpu))
			continue;
		if ((m = mask_of(MASK_DOM(d))))
			bpf_cpumask_set_cpu(cpu, m);
		/* Everything starts active; the first timer run compacts. */
		if ((m = mask_of(MASK_DOMACT(d))))
			bpf_cpumask_set_cpu(cpu, m);
		if ((m = mask_of(MASK_ACTIVE)))
			bpf_cpumask_set_cpu(cpu, m);
		if (scxk_cpu_is_big(cpu) && (m = mask_of(MASK_BIG)))
			bpf_cpumask_set_cpu(cpu, m);
	}
	bpf_rcu_read_unlock();
	return 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(cadence_init)
{
	struct sys_timer *t;
	u32 zero = 0, d;
	s32 err;

	if ((err = scxk_topo_init()) || (err = init_masks()) ||
	    (err = scxk_dsq_create_topo(SCXK_DSQ_TOPO_CPU)))
		return err;
	bpf_for(d, 0, nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS)
		if ((err = scx_bpf_create_dsq(d, dom_node[d & (CADENCE_MAX_DOMS - 1)])))
			return err;
	sys.nr_active_cpus = nr_cpus;
	sys.slice_ns = slice_max_ns;
	sys.power_mode = pm_policy == CADENCE_PMP_FIXED ? pm_fixed : CADENCE_PM_BALANCED;
	active_epoch = 0;

	t = bpf_map_lookup_elem(&sys_timer_map, &zero);
	if (!t)
		return -ENOENT;
	t->last = scxk_now();
	bpf_timer_init(&t->timer, &sys_timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&t->timer, sys_timerfn);
	return bpf_timer_start(&t->timer, CADENCE_TIMER_NS, 0);
}

void BPF_STRUCT_OPS(cadence_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

SCXK_OPS_DEFINE(cadence_ops,
		.select_cpu = (void *)cadence_select_cpu,
		.runnable = (void *)cadence_runnable,
		.enqueue = (void *)cadence_enqueue,
		.dispatch = (void *)cadence_dispatch,
		.running = (void *)cadence_running,
		.tick = (void *)cadence_tick,
		.stopping = (void *)cadence_stopping,
		.quiescent = (void *)cadence_quiescent,
		.cpu_release = (void *)cadence_cpu_release,
		.cpu_acquire = (void *)cadence_cpu_acquire,
		.init_task = (void *)cadence_init_task,
		.init = (void *)cadence_init,
		.exit = (void *)cadence_exit,
		.flags = SCX_OPS_ENQ_EXITING | SCX_OPS_ENQ_LAST | SCX_OPS_ENQ_MIGRATION_DISABLED,
		.timeout_ms = 30000, /* the kernel's default, as LAVD */
		.name = "cadence");
