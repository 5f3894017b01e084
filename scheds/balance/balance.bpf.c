// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_balance - scheduling domains with a load balancer in user space
 * (rusty-like).
 *
 * The machine is split into domains, one per LLC (or per --cpumasks
 * entry). Every task belongs to one domain and waits in that domain's
 * queue, ordered by a deadline: vruntime plus its expected run divided by
 * how often it wakes (policy.h), so short, frequent sleepers go first;
 * sleep credit is bounded to one slice behind the domain's clock. A CPU
 * serves its own domain first and steals from other domains of its node
 * only when their queues hold at least --greedy-threshold tasks, and from
 * other nodes' domains holding at least --greedy-threshold-x-numa (1 by
 * default, where rusty never crosses nodes: a node left idle until the
 * next balancing round, up to --interval away, loses more than the cache
 * misses of a stolen task cost; and at 2, one task always waiting while a
 * far CPU idles is a steady state that wastes a CPU).
 *
 * Wakeups look for a CPU in this order: the sync waker's CPU, the previous
 * CPU if idle, an idle CPU of the domain, then an idle CPU of an
 * under-used domain (the tuner's "direct greedy" set, same node unless
 * --direct-greedy-numa); with none idle, a short-running wakee preempts a
 * hog (scxkit/preempt.bpf.h). Such pushes and steals are temporary: the
 * task keeps its domain.
 *
 * What BPF does not do is decide where load should live. It records each
 * task's runnable duty cycle (half-life --load-half-life) in a ring of
 * recently active tasks per domain; the loader reads the rings every
 * --interval, computes the moves (lb.c, NUMA nodes first) and writes target
 * domains back, which a task takes at its next enqueue. The loader's tuner
 * (every --tune-interval) sets the slice and the greedy sets from measured
 * utilisation.
 *
 * Choose it for throughput on machines with several LLCs or NUMA nodes and
 * long-running, uneven work. A domain is a cache, so a task keeps its cache
 * warm; the price is up to one balancing interval before a badly placed
 * task moves, and latency that is only as good as a vruntime order gives.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/fault.bpf.h>
#include <scxkit/preempt.bpf.h>
#include <scxkit/stats.bpf.h>
#include <scxkit/topo.bpf.h>
#include <scxkit/uei.bpf.h>

#include "intf.h"

#define PF_WQ_WORKER 0x00000020 /* include/linux/sched.h */
#define DOM_IDX(d)   ((u32)(d) & (BALANCE_MAX_DOMS - 1))
#define NODE_IDX(n)  ((u32)(n) & (SCXK_MAX_NODES - 1))
/* cpu_dom[] of a CPU in no domain (offline when the loader started). */
#define NO_DOM 0xffffffffU

/* ---- knobs, set by the loader before load ---- */
const volatile u32 nr_doms = 1;
const volatile bool fifo_sched;			     /* --fifo-sched */
const volatile u32 greedy_threshold = 1;	     /* --greedy-threshold */
const volatile u32 greedy_threshold_x_numa;	     /* --greedy-threshold-x-numa */
const volatile bool direct_greedy_numa;		     /* --direct-greedy-numa */
const volatile bool kthreads_local;		     /* --kthreads-local */
const volatile u64 half_life_ns = SCXK_NSEC_PER_SEC; /* --load-half-life */
const volatile u32 perf_level;			     /* --perf + 1; 0 leaves cpufreq alone */
const volatile bool smt_aware;
const volatile bool no_preempt; /* --no-preempt */
const volatile u32 cpu_dom[SCXK_MAX_CPUS];
const volatile u32 dom_node[BALANCE_MAX_DOMS];
const volatile u64 dom_bits[BALANCE_MAX_DOMS][SCXK_MASK_WORDS];

/* ---- written by the loader while attached (tuner and balancer) ---- */
u64 slice_ns = 20 * SCXK_NSEC_PER_MSEC;
u64 direct_greedy_doms; /* domains whose idle CPUs may take pushed tasks */
u64 kick_greedy_doms;	/* domains whose idle CPUs are kicked to steal */
u32 lb_gen;		/* bumped after each balancing round */
u32 lb_nr_moves;	/* moves written in lb_moves this round */

/* ---- state ---- */
struct balance_dom_ctx dom_ctxs[BALANCE_MAX_DOMS];
u32 ring_head[BALANCE_MAX_DOMS];
static u32 rr_dom;

struct task_ctx {
	u32 dom;
	u32 slot;	    /* our entry in the active ring ... */
	u32 slot_gen;	    /* ... valid while lb_gen equals this */
	u32 lb_checked_gen; /* lb_moves looked up for this generation */
	u64 dom_mask;
	/*
	 * The task's virtual time. Not p->scx.dsq_vtime: inserting into a
	 * vtime DSQ sets that to the deadline, which would feed the
	 * deadline's offset back into the vruntime at every enqueue.
	 */
	u64 vtime;
	u64 wake_freq; /* wakeups per second, EWMA */
	u64 last_woke_at;
	u64 avg_runtime; /* per run, EWMA */
	u64 running_at;
	u64 deadline; /* the last one computed: the preemption key while it runs */
	struct balance_ravg dcyc;
};
SCXK_TASK_STORAGE(task_ctxs, struct task_ctx);

struct cpu_ctx {
	u32 perf_set; /* the level last given to scx_bpf_cpuperf_set() + 1 */
};
SCXK_PERCPU_CTX(cpu_ctxs, struct cpu_ctx);

SCXK_MASK_SLOTS(dom_masks, BALANCE_MAX_DOMS);

/*
 * The tuner's sets as cpumasks: [node] and [SCXK_MAX_NODES] (every node)
 * for direct greedy, then the same for kick greedy.
 */
#define GREEDY_ALL SCXK_MAX_NODES
#define KICK_BASE  (SCXK_MAX_NODES + 1)
SCXK_MASK_SLOTS(greedy_masks, 2 * (SCXK_MAX_NODES + 1));

/* Sized to nr_doms * BALANCE_RING_SLOTS by the loader, which mmaps it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, BALANCE_MAX_DOMS *BALANCE_RING_SLOTS);
	__type(key, u32);
	__type(value, struct balance_active);
} active_ring SEC(".maps");

/* pid -> target domain, written by the balancer, consumed at enqueue. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u32);
} lb_moves SEC(".maps");

/* ---- helpers ---- */

static struct task_ctx *task_ctx(struct task_struct *p)
{
	return scxk_task_storage(&task_ctxs, p, false);
}

static const struct cpumask *slot_cpumask(void *map, u32 idx)
{
	return (const struct cpumask *)scxk_mask_slot_get(map, idx);
}

static const struct cpumask *dom_cpumask(u32 dom)
{
	return slot_cpumask(&dom_masks, DOM_IDX(dom));
}

static u32 cpu_to_dom(s32 cpu)
{
	return cpu_dom[SCXK_CPU_IDX(cpu)];
}

static u32 node_of_dom(u32 dom)
{
	return NODE_IDX(dom_node[DOM_IDX(dom)]);
}

static u64 dom_bit(u32 dom)
{
	return 1ULL << DOM_IDX(dom);
}

static u64 allowed_doms(struct task_struct *p)
{
	const struct cpumask *m;
	u64 doms = 0;
	u32 d;

	bpf_for (d, 0, nr_doms) {
		m = dom_cpumask(d);
		if (m && bpf_cpumask_intersects(m, p->cpus_ptr))
			doms |= dom_bit(d);
	}
	return doms;
}

/* New tasks are dealt over the domains they may use, round robin. */
static u32 pick_home(u64 allowed)
{
	u32 start = __sync_fetch_and_add(&rr_dom, 1), i, d;

	bpf_for (i, 0, nr_doms) {
		d = (start + i) % nr_doms;
		if (allowed & dom_bit(d))
			return d;
	}
	return 0;
}

/* Keep the task's entry in its domain's ring of active tasks current. */
static void ring_record(struct task_struct *p, struct task_ctx *tctx)
{
	u32 gen = lb_gen, key, idx;
	struct balance_active *e = NULL;

	if (tctx->slot_gen == gen) {
		key = tctx->slot;
		e = bpf_map_lookup_elem(&active_ring, &key);
		if (e && (e->pid != p->pid || e->gen != gen))
			e = NULL; /* overwritten by a busier ring meanwhile */
	}
	if (!e) {
		idx = __sync_fetch_and_add(&ring_head[DOM_IDX(tctx->dom)], 1);
		key = DOM_IDX(tctx->dom) * BALANCE_RING_SLOTS + (idx & (BALANCE_RING_SLOTS - 1));
		e = bpf_map_lookup_elem(&active_ring, &key);
		if (!e)
			return;
		tctx->slot = key;
		tctx->slot_gen = gen;
	}
	e->pid = p->pid;
	e->gen = gen;
	e->dom = tctx->dom;
	e->weight = p->scx.weight;
	e->dom_mask = tctx->dom_mask;
	e->flags = (p->flags & PF_WQ_WORKER ? BALANCE_ACT_KWORKER : 0) |
		   (scxk_task_pinned(p) ? BALANCE_ACT_PINNED : 0);
	e->dcyc = tctx->dcyc;
}

/* Take the domain the balancer chose, once per balancing round. */
static void apply_lb_move(struct task_struct *p, struct task_ctx *tctx)
{
	u32 gen = lb_gen, pid = p->pid, *to;

	if (tctx->lb_checked_gen == gen)
		return;
	tctx->lb_checked_gen = gen;
	if (!lb_nr_moves)
		return;
	to = bpf_map_lookup_elem(&lb_moves, &pid);
	if (!to)
		return;
	if (*to < nr_doms && (tctx->dom_mask & dom_bit(*to)) && *to != tctx->dom) {
		tctx->dom = *to;
		/* Domain clocks differ: start level with the new domain's tasks. */
		tctx->vtime = dom_ctxs[DOM_IDX(*to)].vtime_now;
		scxk_stat_inc(BALANCE_STAT_MIGRATE);
	}
	bpf_map_delete_elem(&lb_moves, &pid);
}

/* An idle CPU of @m that @p may use, whole idle cores first. */
static s32 pick_idle_in(struct task_struct *p, const struct cpumask *m)
{
	s32 cpu;

	if (!m)
		return -EBUSY;
	if (smt_aware && (cpu = scxk_pick_idle_in(p, m, SCX_PICK_IDLE_CORE)) >= 0)
		return cpu;
	return scxk_pick_idle_in(p, m, 0);
}

static bool cpu_usable(struct task_struct *p, s32 cpu, u32 dom)
{
	return cpu_to_dom(cpu) == dom && bpf_cpumask_test_cpu(cpu, p->cpus_ptr);
}

static u64 task_deadline(struct task_struct *p, struct task_ctx *tctx)
{
	bool clamped;
	u64 vtime = balance_clamp_vtime(tctx->vtime, dom_ctxs[DOM_IDX(tctx->dom)].vtime_now,
					slice_ns, &clamped);

	if (clamped)
		scxk_stat_inc(BALANCE_STAT_DL_CLAMP);
	tctx->vtime = vtime;
	tctx->deadline = balance_deadline(vtime, tctx->avg_runtime, p->scx.weight, tctx->wake_freq,
					  slice_ns);
	return tctx->deadline;
}

static void insert(struct task_struct *p, struct task_ctx *tctx, u64 dsq, u64 enq_flags)
{
	if (fifo_sched)
		scxk_dsq_insert(p, dsq, slice_ns, enq_flags);
	else
		scxk_dsq_insert_vtime(p, dsq, slice_ns, task_deadline(p, tctx), enq_flags);
}

/* ---- callbacks, in the order the kernel calls them ---- */

s32 BPF_STRUCT_OPS(balance_select_cpu, struct task_struct *p, s32 prev_cpu, u64 wake_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 this_cpu = bpf_get_smp_processor_id(), cpu;
	const struct cpumask *dmask;
	u32 dom, node;

	if (!tctx || scxk_task_pinned(p) || scxk_fault_drop(p))
		return prev_cpu;
	/* A wakeup placed here never reaches enqueue: take a pending move now. */
	apply_lb_move(p, tctx);
	dom = tctx->dom;
	dmask = dom_cpumask(dom);
	if (!dmask)
		return prev_cpu;

	/*
	 * A sync waker is about to sleep. While its domain has idle CPUs the
	 * machine is not saturated: the wakee takes the previous CPU if it is
	 * idle (warm cache), else the waker's CPU (the data just produced).
	 */
	if ((wake_flags & SCX_WAKE_SYNC) && cpu_usable(p, this_cpu, dom)) {
		if (prev_cpu != this_cpu && cpu_usable(p, prev_cpu, dom) &&
		    scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
			scxk_stat_inc(BALANCE_STAT_SYNC_PREV_IDLE);
			cpu = prev_cpu;
			goto direct;
		}
		if (!scx_bpf_dsq_nr_queued(SCX_DSQ_LOCAL_ON | this_cpu) &&
		    scxk_any_idle_in(dmask)) {
			scxk_stat_inc(BALANCE_STAT_WAKE_SYNC);
			cpu = this_cpu;
			goto direct;
		}
	}
	if (cpu_usable(p, prev_cpu, dom) && scx_bpf_test_and_clear_cpu_idle(prev_cpu)) {
		scxk_stat_inc(BALANCE_STAT_PREV_IDLE);
		cpu = prev_cpu;
		goto direct;
	}
	if ((cpu = pick_idle_in(p, dmask)) >= 0) {
		scxk_stat_inc(BALANCE_STAT_DOM_IDLE);
		if (cpu_to_dom(prev_cpu) != dom)
			scxk_stat_inc(BALANCE_STAT_REPATRIATE);
		goto direct;
	}
	/* The domain is full: an idle CPU of an under-used domain takes it now. */
	node = node_of_dom(dom);
	if ((cpu = scxk_pick_idle_in(p, slot_cpumask(&greedy_masks, node), 0)) >= 0) {
		scxk_stat_inc(BALANCE_STAT_DIRECT_GREEDY);
		goto direct;
	}
	if (direct_greedy_numa &&
	    (cpu = scxk_pick_idle_in(p, slot_cpumask(&greedy_masks, GREEDY_ALL), 0)) >= 0) {
		scxk_stat_inc(BALANCE_STAT_DIRECT_GREEDY_FAR);
		goto direct;
	}
	return prev_cpu;
direct:
	scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, 0);
	return cpu;
}

/* Kick an idle CPU of greedy set @slot to steal; true if one was found. */
static bool kick_greedy(u32 slot)
{
	const struct cpumask *m = slot_cpumask(&greedy_masks, KICK_BASE + slot);
	s32 cpu;

	/* Greedy CPUs steal without regard to p's affinity: any idle one helps. */
	if (!m || (cpu = scx_bpf_pick_idle_cpu(m, 0)) < 0)
		return false;
	scxk_kick_cpu(cpu, SCX_KICK_IDLE);
	scxk_stat_inc(BALANCE_STAT_KICK_GREEDY);
	return true;
}

/*
 * Wake an idle CPU that will take from @dom: its own, else a greedy one of
 * its node, else one of another node - only at the thresholds at which
 * that CPU's dispatch will actually steal, so no kick is wasted.
 */
static void kick_for(struct task_struct *p, u32 dom)
{
	u32 nq;
	s32 cpu;

	if ((cpu = scxk_pick_idle_in(p, dom_cpumask(dom), 0)) >= 0) {
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		return;
	}
	nq = scx_bpf_dsq_nr_queued(dom);
	if (greedy_threshold && nq >= greedy_threshold && kick_greedy(node_of_dom(dom)))
		return;
	if (greedy_threshold_x_numa && nq >= greedy_threshold_x_numa)
		kick_greedy(GREEDY_ALL);
}

/*
 * No idle CPU took the waking @p: if it runs briefly, it takes the CPU of
 * a hog on its previous or the waking CPU (scxkit/preempt.bpf.h) rather
 * than waiting in deadline order for a slice to end. Not with
 * --fifo-sched, which promises arrival order.
 */
static bool try_preempt(struct task_struct *p, struct task_ctx *tctx, s32 prev_cpu, u64 enq_flags)
{
	s32 cpu;

	if (no_preempt || fifo_sched || !(enq_flags & SCX_ENQ_WAKEUP))
		return false;
	cpu = scxk_preempt_victim(p, prev_cpu, tctx->avg_runtime, task_deadline(p, tctx),
				  SCXK_PREEMPT_MIN_RAN_NS);
	if (cpu < 0)
		return false;
	scxk_dsq_insert(p, SCX_DSQ_LOCAL_ON | cpu, slice_ns, enq_flags | SCX_ENQ_PREEMPT);
	scxk_stat_inc(BALANCE_STAT_PREEMPT);
	return true;
}

void BPF_STRUCT_OPS(balance_enqueue, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	s32 cpu = scx_bpf_task_cpu(p);

	if (scxk_fault_drop(p)) /* test builds only: lose p on purpose */
		return;
	if (kthreads_local && (p->flags & PF_KTHREAD) && p->nr_cpus_allowed == 1) {
		scxk_dsq_insert(p, SCX_DSQ_LOCAL, slice_ns, enq_flags);
		scxk_stat_inc(BALANCE_STAT_KTHREAD);
		return;
	}
	if (!tctx) {
		scxk_dsq_insert(p, SCX_DSQ_GLOBAL, slice_ns, enq_flags);
		return;
	}
	apply_lb_move(p, tctx);

	/* Single-CPU tasks wait on their CPU's own queue, in deadline order. */
	if (try_preempt(p, tctx, cpu, enq_flags))
		return;
	if (scxk_task_pinned(p)) {
		insert(p, tctx, SCXK_DSQ_CPU(cpu), enq_flags);
		scxk_kick_cpu(cpu, SCX_KICK_IDLE);
		scxk_stat_inc(BALANCE_STAT_PINNED);
		return;
	}
	insert(p, tctx, tctx->dom, enq_flags);
	scxk_stat_inc(BALANCE_STAT_DSQ);
	if (cpu_to_dom(cpu) != tctx->dom)
		scxk_stat_inc(BALANCE_STAT_REPATRIATE);
	kick_for(p, tctx->dom);
}

/* The CPU's own queue and its domain's, earliest deadline first. */
static bool consume_own(s32 cpu, u32 dom)
{
	u64 cdsq = SCXK_DSQ_CPU(cpu);

	if (fifo_sched)
		return scxk_dsq_move_to_local(cdsq) || scxk_dsq_move_to_local(dom);
	return scxk_dsq_move_earliest(cdsq, dom);
}

/* Steal from another domain on (@same_node) or off this CPU's node. */
static bool steal(u32 dom, bool same_node, u32 threshold)
{
	u32 node = node_of_dom(dom), i, d;

	bpf_for (i, 1, nr_doms) {
		d = (dom + i) % nr_doms;
		if ((node_of_dom(d) == node) != same_node)
			continue;
		if (scx_bpf_dsq_nr_queued(d) >= threshold && scxk_dsq_move_to_local(d))
			return true;
	}
	return false;
}

void BPF_STRUCT_OPS(balance_dispatch, s32 cpu, struct task_struct *prev)
{
	u32 dom = cpu_to_dom(cpu);

	if (dom >= nr_doms) {
		/* Onlined after start: the kernel asks us to restart; serve it meanwhile. */
		if (scxk_dsq_move_to_local(SCXK_DSQ_CPU(cpu)))
			return;
		dom = 0;
	}
	if (consume_own(cpu, dom)) {
		scxk_stat_inc(BALANCE_STAT_DISPATCH_LOCAL);
		return;
	}
	if (greedy_threshold && steal(dom, true, greedy_threshold)) {
		scxk_stat_inc(BALANCE_STAT_GREEDY_LOCAL);
		return;
	}
	if (greedy_threshold_x_numa && steal(dom, false, greedy_threshold_x_numa)) {
		scxk_stat_inc(BALANCE_STAT_GREEDY_XNUMA);
		return;
	}
	/* Nothing waits here: let prev run on with a fresh slice. */
	if (scxk_prev_runnable(prev)) {
		scxk_task_set_slice(prev, slice_ns);
		scxk_stat_inc(BALANCE_STAT_KEEP);
	}
}

void BPF_STRUCT_OPS(balance_runnable, struct task_struct *p, u64 enq_flags)
{
	struct task_ctx *tctx = task_ctx(p);
	u64 now = scxk_now();

	if (!tctx)
		return;
	if (enq_flags & SCX_ENQ_WAKEUP) {
		tctx->wake_freq = scxk_freq_update(tctx->wake_freq, now - tctx->last_woke_at);
		tctx->last_woke_at = now;
	}
	balance_ravg_set(&tctx->dcyc, bpf_ktime_get_ns(), half_life_ns, true);
	ring_record(p, tctx);
}

void BPF_STRUCT_OPS(balance_running, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);
	struct cpu_ctx *cctx;
	struct balance_dom_ctx *dctx;

	if (!tctx)
		return;
	tctx->running_at = scxk_now();
	scxk_curr_running(tctx->running_at, tctx->avg_runtime, fifo_sched ? 0 : tctx->deadline);
	dctx = &dom_ctxs[DOM_IDX(tctx->dom)];
	/* Racy across CPUs, but it only moves forward and errors stay small. */
	if (scxk_time_before(dctx->vtime_now, tctx->vtime))
		dctx->vtime_now = tctx->vtime;
	if (perf_level && (cctx = scxk_percpu_ctx(&cpu_ctxs)) && cctx->perf_set != perf_level) {
		scx_bpf_cpuperf_set(scx_bpf_task_cpu(p), perf_level - 1);
		cctx->perf_set = perf_level;
	}
}

void BPF_STRUCT_OPS(balance_stopping, struct task_struct *p, bool runnable)
{
	struct task_ctx *tctx = task_ctx(p);
	u64 ran;

	scxk_curr_stopping();
	if (!tctx)
		return;
	ran = scxk_now() - tctx->running_at;
	tctx->avg_runtime = scxk_calc_avg(tctx->avg_runtime, ran);
	/*
	 * Kernel threads keep the system going (khugepaged, kcompactd and
	 * the like run at nice 19): they are charged like nice-0 tasks at
	 * most, so a queue full of user work cannot starve them.
	 */
	if (!fifo_sched)
		tctx->vtime += scxk_scale_by_weight_inv(
			ran, (p->flags & PF_KTHREAD) ? max(p->scx.weight, SCXK_WEIGHT_DFL)
						     : p->scx.weight);
	/* A task that never sleeps has no other event to refresh its entry. */
	ring_record(p, tctx);
}

void BPF_STRUCT_OPS(balance_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct task_ctx *tctx = task_ctx(p);

	if (!tctx)
		return;
	balance_ravg_set(&tctx->dcyc, bpf_ktime_get_ns(), half_life_ns, false);
	ring_record(p, tctx);
}

void BPF_STRUCT_OPS(balance_set_cpumask, struct task_struct *p, const struct cpumask *cpumask)
{
	struct task_ctx *tctx = task_ctx(p);

	if (!tctx)
		return;
	tctx->dom_mask = allowed_doms(p);
	if (tctx->dom_mask && !(tctx->dom_mask & dom_bit(tctx->dom))) {
		tctx->dom = pick_home(tctx->dom_mask);
		tctx->vtime = dom_ctxs[DOM_IDX(tctx->dom)].vtime_now;
		scxk_stat_inc(BALANCE_STAT_REHOME);
	}
}

void BPF_STRUCT_OPS(balance_enable, struct task_struct *p)
{
	struct task_ctx *tctx = task_ctx(p);

	if (tctx)
		tctx->vtime = dom_ctxs[DOM_IDX(tctx->dom)].vtime_now;
}

s32 BPF_STRUCT_OPS(balance_init_task, struct task_struct *p, struct scx_init_task_args *args)
{
	struct task_ctx *tctx = scxk_task_storage(&task_ctxs, p, true);

	if (!tctx)
		return -ENOMEM;
	tctx->dom_mask = allowed_doms(p);
	tctx->dom = pick_home(tctx->dom_mask);
	tctx->last_woke_at = scxk_now();
	tctx->slot_gen = ~0U;
	tctx->lb_checked_gen = lb_gen;
	return 0;
}

void BPF_STRUCT_OPS(balance_exit_task, struct task_struct *p, struct scx_exit_task_args *args)
{
	struct task_ctx *tctx = task_ctx(p);
	struct balance_active *e;
	u32 key;

	/* The balancer must not move (or count) a task that is gone. */
	if (!tctx || tctx->slot_gen != lb_gen)
		return;
	key = tctx->slot;
	e = bpf_map_lookup_elem(&active_ring, &key);
	if (e && e->pid == p->pid)
		e->pid = 0;
}

s32 BPF_STRUCT_OPS_SLEEPABLE(balance_init)
{
	s32 err;
	u32 d, i;

	if (!nr_doms || nr_doms > BALANCE_MAX_DOMS) {
		scxk_error("bad domain count %u", nr_doms);
		return -EINVAL;
	}
	if ((err = scxk_topo_init()) || (err = scxk_dsq_create_topo(SCXK_DSQ_TOPO_CPU)))
		return err;
	bpf_for (d, 0, nr_doms) {
		if ((err = scxk_mask_slot_new(&dom_masks, d, dom_bits[DOM_IDX(d)])))
			return err;
		if ((err = scx_bpf_create_dsq(d, -1)))
			return err;
	}
	bpf_for (i, 0, 2 * (SCXK_MAX_NODES + 1)) {
		if ((err = scxk_mask_slot_new(&greedy_masks, i, NULL)))
			return err;
	}
	return 0;
}

void BPF_STRUCT_OPS(balance_exit, struct scx_exit_info *ei)
{
	scxk_uei_record(ei);
}

static void mask_assign(u32 idx, s32 cpu, bool set)
{
	struct bpf_cpumask *m = scxk_mask_slot_get(&greedy_masks, idx);

	if (!m)
		return;
	if (set)
		bpf_cpumask_set_cpu(cpu, m);
	else
		bpf_cpumask_clear_cpu(cpu, m);
}

/*
 * Run by the loader (BPF_PROG_RUN) after the tuner wrote new domain sets:
 * turns them into the cpumasks the callbacks search. Bits flip one by one;
 * a wakeup racing with it sees a mix of old and new sets, which is harmless.
 */
SEC("syscall")
int balance_apply_tune(void *ctx)
{
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	u64 direct = direct_greedy_doms, kick = kick_greedy_doms;
	s32 cpu;

	bpf_rcu_read_lock();
	bpf_for (cpu, 0, nr) {
		u32 dom = cpu_to_dom(cpu), node;

		if (dom >= nr_doms)
			continue;
		node = node_of_dom(dom);
		mask_assign(node, cpu, direct & dom_bit(dom));
		mask_assign(GREEDY_ALL, cpu, direct & dom_bit(dom));
		mask_assign(KICK_BASE + node, cpu, kick & dom_bit(dom));
		mask_assign(KICK_BASE + GREEDY_ALL, cpu, kick & dom_bit(dom));
	}
	bpf_rcu_read_unlock();
	return 0;
}

SCXK_OPS_DEFINE(balance_ops, .select_cpu = (void *)balance_select_cpu,
		.enqueue = (void *)balance_enqueue, .dispatch = (void *)balance_dispatch,
		.runnable = (void *)balance_runnable, .running = (void *)balance_running,
		.stopping = (void *)balance_stopping, .quiescent = (void *)balance_quiescent,
		.set_cpumask = (void *)balance_set_cpumask, .enable = (void *)balance_enable,
		.init_task = (void *)balance_init_task, .exit_task = (void *)balance_exit_task,
		.init = (void *)balance_init, .exit = (void *)balance_exit,
		.timeout_ms = 10000, /* rusty's; see README: Limits */
		.name = "balance");
