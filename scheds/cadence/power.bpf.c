// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence: power and compaction. Every 10 ms a timer sums the CPUs'
 * utilisation and criticality, sets the system statistics the policy
 * reads (sys), chooses the power mode, keeps only the CPUs the load needs
 * active (compaction) and marks over-loaded domains for stealing; each
 * CPU's performance target is set when a task starts running there.
 */
#include "cadence.bpf.h"

/* A task running this long on a little core while a big one idles is moved. */
#define UPGRADE_RUN_NS (2 * SCXK_NSEC_PER_MSEC)
/* The running maximum of lat_cri decays by 1/8 per timer period. */
#define LC_MAX_DECAY_SHIFT 3
/* Domain load (queued per CPU, 1/1024) above 3/2 of the average: stealee. */
#define STEALEE_NUM 3
#define STEALEE_DEN 2

static u64 dom_load[CADENCE_MAX_DOMS]; /* queued per CPU, 1/1024 (the timer's scratch) */

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

__hidden void update_cpuperf(s32 cpu, struct cpu_ctx *c)
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

/*
 * The timer's work is split into global functions, one loop each: the
 * verifier checks a global function once, on its own, instead of once per
 * state the previous loops left behind (which multiplied into minutes of
 * verification). They share the accumulator below instead of the stack.
 */
struct sys_acc {
	u64 util_cap, util_sum, cap_sum, big_cap, perf_sum;
	u64 lc_sum, lc_nr, lc_max, pc_sum, pc_min, pc_max;
	u64 nr_running, nr_queued;
	u32 nr_online; /* online CPUs of the layout */
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
	/* Offline: no load, no capacity (its queue is empty: the kernel moved its tasks). */
	if (!scxk_cpu_online(cpu)) {
		c->busy_ns = 0;
		c->cur_util = c->avg_util = 0;
		return;
	}
	a->nr_online++;
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
	c->lc_sum = c->lc_nr = c->lc_max = 0;
	c->pc_sum = c->pc_min = c->pc_max = 0;

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
	bpf_for (i, 0, nr)
		collect_cpu(cpu_order[0][SCXK_CPU_IDX(i)], now, interval, &acc);
	nd = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS;
	bpf_for (i, 0, nd)
		acc.nr_queued += scx_bpf_dsq_nr_queued(i);
	return 0;
}

/*
 * Keep the first @nr_active CPUs of @order active, the rest off. An offline
 * CPU among them is harmless: it is never idle in the kernel's masks.
 */
__noinline int set_active(u32 order, u32 nr_active)
{
	struct bpf_cpumask *active, *dact;
	u32 i, cpu;

	bpf_rcu_read_lock();
	active = mask_of(MASK_ACTIVE);
	if (!active)
		goto out;
	bpf_for (i, 0, nr_cpus) {
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

/*
 * Activate the shortest prefix of the CPU order whose online CPUs have the
 * capacity required (sys.active_pos); offline CPUs add none. Return the
 * online CPUs active: those of the prefix, and any the layout does not
 * know (offline at start), which are always active (cadence_cpu_online()).
 */
__noinline u32 compact(u32 mode, u64 required)
{
	u32 order = mode == CADENCE_PM_POWERSAVE ? CADENCE_ORDER_SAVE : CADENCE_ORDER_PERF;
	u64 sum = 0;
	u32 i, cpu, pos = nr_cpus, nr = 0, outside;

	if (!no_compaction && mode != CADENCE_PM_PERFORMANCE) {
		bpf_for (i, 0, nr_cpus) {
			cpu = cpu_order[order & 1][SCXK_CPU_IDX(i)];
			if (!scxk_cpu_online(cpu))
				continue;
			if (cadence_compact_add(&sum, scxk_cpu_capacity(cpu), required)) {
				pos = i + 1;
				break;
			}
		}
	}
	if (pos != sys.active_pos || order != (active_epoch & 1)) {
		set_active(order, pos);
		active_epoch = ((active_epoch + 2) & ~1U) | order;
		sys.active_pos = pos;
	}
	bpf_for (i, 0, pos)
		nr += scxk_cpu_online(cpu_order[order & 1][SCXK_CPU_IDX(i)]);
	outside = scxk_online.nr > acc.nr_online ? scxk_online.nr - acc.nr_online : 0;
	return nr + outside;
}

/* Mark domains with well above the average queue per CPU as stealees. */
__noinline int plan_stealing(void)
{
	u64 sum = 0, avg;
	u32 d, nr = nr_doms < CADENCE_MAX_DOMS ? nr_doms : CADENCE_MAX_DOMS, stealees = 0;

	if (nr < 2)
		return 0;
	bpf_for (d, 0, nr) {
		u32 n = dom_nr_cpus[d & (CADENCE_MAX_DOMS - 1)];

		dom_load[d & (CADENCE_MAX_DOMS - 1)] =
			scx_bpf_dsq_nr_queued(d) * CADENCE_SCALE / (n ? n : 1);
		sum += dom_load[d & (CADENCE_MAX_DOMS - 1)];
	}
	avg = sum / nr;
	bpf_for (d, 0, nr) {
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
	u32 mode, nr, n;
	u64 max_lc, avg_lc;

	t->last = now;
	timer_collect(now, interval);

	sys.nr_queued = a->nr_queued;
	sys.nr_running = a->nr_running;
	nr = a->nr_online;
	sys.util = a->util_sum / (nr ? nr : 1);
	sys.avg_perf = a->perf_sum / (nr ? nr : 1);
	sys.required_cap = cadence_required_cap(a->util_cap);

	if (a->lc_nr) {
		avg_lc = a->lc_sum / a->lc_nr;
		sys.avg_lat_cri = scxk_calc_avg(sys.avg_lat_cri, avg_lc);
		if (a->pc_sum)
			sys.thr_perf_cri = cadence_perf_thresh(
				a->pc_min, a->pc_sum / a->lc_nr, a->pc_max,
				a->cap_sum ? a->big_cap * CADENCE_SCALE / a->cap_sum
					   : CADENCE_SCALE);
	}
	max_lc = sys.max_lat_cri - (sys.max_lat_cri >> LC_MAX_DECAY_SHIFT);
	max_lc = max(max_lc, a->lc_max);
	sys.max_lat_cri = max(max_lc, sys.avg_lat_cri);
	sys.thr_lat_cri = cadence_preempt_thresh(sys.max_lat_cri, sys.avg_lat_cri, preempt_shift);

	n = sys.nr_active_cpus ? sys.nr_active_cpus : nr;
	sys.slice_ns = cadence_slice_smooth(
		sys.slice_ns, cadence_sys_slice(n, a->nr_queued, slice_min_ns, slice_max_ns));

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
			scxk_kick_cpu(a->long_little, SCX_KICK_PREEMPT);
		}
	}
	bpf_timer_start(&t->timer, CADENCE_TIMER_NS, 0);
	return 0;
}

/* Arm the timer; ops.init() calls it once. */
__hidden s32 start_sys_timer(void)
{
	struct sys_timer *t;
	u32 zero = 0;

	t = bpf_map_lookup_elem(&sys_timer_map, &zero);
	if (!t)
		return -ENOENT;
	t->last = scxk_now();
	bpf_timer_init(&t->timer, &sys_timer_map, CLOCK_MONOTONIC);
	bpf_timer_set_callback(&t->timer, sys_timerfn);
	return bpf_timer_start(&t->timer, CADENCE_TIMER_NS, 0);
}
