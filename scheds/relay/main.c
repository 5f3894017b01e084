// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_relay - a deadline scheduler whose every decision is taken in user
 * space, on libscxuser (policy in policy.h, transport in common/libscxuser/).
 *
 * Each round: take every queued task off the ring, give it a vruntime and
 * a deadline, and hand them back earliest deadline first. The most urgent
 * ones get idle CPUs (claimed through BPF, nearest to where they ran), the
 * rest go to the shared queue, which the kernel keeps in deadline order,
 * so a task queued in a later round still overtakes later deadlines. Each
 * gets a slice of --slice-us shared among the tasks waiting (not below
 * --slice-us-min), scaled by weight. Nothing is held back between rounds:
 * the heap is only the order of one round.
 */
#include <errno.h>
#include <string.h>

#include <scxkit/log.h>
#include <scxuser/scxuser.h>

#include "intf.h"
#include "policy.h"

/* One round takes at most this many tasks: two rings' worth. */
#define HEAP_CAP (2 * SCXU_RING_ENTRIES)

static struct {
	uint64_t slice_us, slice_us_min;
	bool percpu_local, no_preempt;
	uint64_t fault_slice_ns; /* -Dfault_injection: every answer's slice */
} cfg = {
	.slice_us = 20000,    /* the kernel's default slice, as upstream rustland */
	.slice_us_min = 1000, /* below ~1 ms, switching costs dominate */
};

static struct scxk_opt opts[] = {
	{"slice-us", 's', "US", SCXK_OPT_U64, &cfg.slice_us,
	 "longest time slice, and the most sleep credit a waking task gets", .min = 100,
	 .max = 1000000, .upstream = "-s --slice-us"},
	{"slice-us-min", 'S', "US", SCXK_OPT_U64, &cfg.slice_us_min,
	 "shortest time slice when many tasks wait", .min = 50, .max = 1000000,
	 .upstream = "-S --slice-us-min"},
	{"percpu-local", 'l', NULL, SCXK_OPT_FLAG, &cfg.percpu_local,
	 "keep each task on the CPU it ran on last (no idle-CPU search)",
	 .upstream = "-l --percpu-local"},
	{"no-preempt", 0, NULL, SCXK_OPT_FLAG, &cfg.no_preempt,
	 "never let a waking short-running task preempt a CPU hog"},
	/* scx_rustland's -p: the common --partial */
	{"partial", 'p', NULL, SCXK_OPT_COMMON, .upstream = "-p --partial"},
	/* scx_rustland's options that mean nothing here (docs/upstream-compat.md) */
	{"numa-local", 'n', NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no per-node placement: the idle-CPU search spans every node"},
#ifdef SCXK_FAULT_INJECTION
	{"fault-slice-ns", 0, "NS", SCXK_OPT_U64, &cfg.fault_slice_ns,
	 "TEST BUILD ONLY: answer every task with this slice, however bogus (libscxuser "
	 "clamps it)",
	 .min = 1, .dfl = "off"},
#endif
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_relay",
	.summary = "deadline scheduling decided in user space (libscxuser)",
	.examples = "  scx_relay                     20 ms slices, idle-CPU placement\n"
		    "  scx_relay -s 5000 -S 500      shorter slices for lower latency\n"
		    "  scx_relay --partial           only tasks set to SCHED_EXT\n"
		    "  scx_relay --monitor 1         print a running instance's stats\n",
	.opts = opts,
	/*
	 * Modes (scxctl --mode, org.scx.Loader): shorter slices for latency;
	 * no idle-CPU search (fewer wakeups of idle CPUs) to save power; longer
	 * slices for throughput. Auto is the defaults.
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"--slice-us", "10000",
								   "--slice-us-min", "500", NULL},
			[SCXK_MODE_POWERSAVE] = (const char *const[]){"--percpu-local", NULL},
			[SCXK_MODE_LOWLATENCY] =
				(const char *const[]){"--slice-us", "5000", "--slice-us-min", "500",
						      NULL},
			[SCXK_MODE_SERVER] = (const char *const[]){"--slice-us", "40000", NULL},
		},
};

static struct scxu_opts lib_opts;

struct relay {
	struct relay_params params;
	struct relay_heap heap;
	uint64_t vnow;
	/* written by the scheduling thread, read by stats */
	volatile uint64_t idle_picks, dispatch_any, dispatch_local, ring_full;
};

static struct relay relay;

static int relay_validate(void)
{
	if (cfg.slice_us_min > cfg.slice_us) {
		scxk_log(SCXK_LOG_ERROR, "--slice-us-min %llu is above --slice-us %llu",
			 (unsigned long long)cfg.slice_us_min, (unsigned long long)cfg.slice_us);
		return -EINVAL;
	}
	lib_opts.slice_ns = cfg.slice_us * 1000;
	/* Idle CPUs on wakeup are the point of --percpu-local not to use. */
	lib_opts.builtin_idle = !cfg.percpu_local;
	lib_opts.preempt_after_ns = cfg.slice_us_min * 1000;
	return 0;
}

static int relay_init(struct scxu *u)
{
	struct relay *r = &relay;

	memset(r, 0, sizeof(*r));
	r->params.slice_ns = cfg.slice_us * 1000;
	r->params.slice_min_ns = cfg.slice_us_min * 1000;
	r->heap.cap = HEAP_CAP;
	r->heap.items = scxu_alloc(u, HEAP_CAP * sizeof(struct relay_item), 64);
	if (!r->heap.items)
		return scxk_err(-ENOMEM, "the arena cannot hold a %d-task heap", HEAP_CAP);
	scxu_set_priv(u, r);
	return 0;
}

static void take(struct relay *r, const struct scxu_task *t)
{
	struct relay_item it = {
		.enq_ts = t->enq_ts,
		.enq_cnt = t->enq_cnt,
		.pid = t->pid,
		.cpu = t->cpu,
		.weight = (u32)t->weight,
		.nr_cpus_allowed = t->nr_cpus_allowed,
	};

	it.vruntime = relay_vruntime(t->vtime, r->vnow, t->run_ns, it.weight, &r->params);
	it.deadline = relay_deadline(t->enq_ts, it.vruntime, r->vnow, t->exec_runtime_ns, it.weight,
				     &r->params);
	relay_heap_push(&r->heap, &it);
}

/* Where @it should run: its own CPU, a claimed idle CPU, or any. */
static int32_t place(struct scxu *u, struct relay *r, const struct relay_item *it, bool *idle_left)
{
	int cpu;

	if (cfg.percpu_local || it->nr_cpus_allowed == 1) {
		r->dispatch_local++;
		return it->cpu;
	}
	if (*idle_left) {
		cpu = scxu_select_cpu(u, it->pid, it->cpu);
		if (cpu >= 0) {
			r->idle_picks++;
			return cpu;
		}
		/* None idle now: the tasks after this one need not ask. */
		*idle_left = false;
	}
	r->dispatch_any++;
	return SCXU_CPU_ANY;
}

static int relay_schedule(struct scxu *u)
{
	struct relay *r = scxu_priv(u);
	struct relay_item it;
	struct scxu_task t;
	uint64_t in_dsq = scxu_nr_waiting(u), waiting;
	/*
	 * Tasks already waiting in the shared queue mean no CPU idles (an
	 * idle CPU takes from it first): skip the search, a system call per
	 * round when the machine is saturated. Should one idle after all, the
	 * BPF side kicks it for the task sent to the shared queue.
	 */
	bool idle_left = !in_dsq;
	int err;

	while (r->heap.nr < r->heap.cap && scxu_dequeue(u, &t) == 0)
		take(r, &t);

	/* Besides each task: relay_slice() adds the task itself back. */
	waiting = in_dsq + r->heap.nr ? in_dsq + r->heap.nr - 1 : 0;
	while (relay_heap_pop(&r->heap, &it)) {
		struct scxu_dispatch d = {
			.pid = it.pid,
			.slice_ns = relay_slice(waiting, it.weight, &r->params),
			.vtime = it.vruntime,
			.deadline = it.deadline,
			.enq_cnt = it.enq_cnt,
		};

#ifdef SCXK_FAULT_INJECTION
		if (cfg.fault_slice_ns)
			d.slice_ns = cfg.fault_slice_ns;
#endif
		d.cpu = place(u, r, &it, &idle_left);
		if (!cfg.no_preempt && (d.cpu == SCXU_CPU_ANY || it.nr_cpus_allowed == 1))
			d.flags |= SCXU_DISPATCH_PREEMPT_SHORT;
		err = scxu_dispatch(u, &d);
		if (err == -EINVAL && d.cpu != SCXU_CPU_ANY) {
			/* A CPU id the library refuses (hotplug): let BPF place it. */
			d.cpu = SCXU_CPU_ANY;
			err = scxu_dispatch(u, &d);
		}
		if (err == -ENOSPC) {
			/* BPF has not drained yet: keep it for the next round. */
			relay_heap_push(&r->heap, &it);
			r->ring_full++;
			break;
		}
		/*
		 * "Now" is the furthest vruntime dispatched: it moves forward
		 * with every task's progress, so sleepers (lifted to now -
		 * slice) cannot keep overtaking a task with a later deadline.
		 */
		if (scxk_time_before(r->vnow, it.vruntime))
			r->vnow = it.vruntime;
	}
	return scxu_notify_complete(u, r->heap.nr);
}

static const struct scxk_stat_desc relay_stats[] = {RELAY_STATS(SCXK_STAT_DESC)};

static int relay_collect(struct scxu *u, struct scxk_stats_read *r)
{
	(void)u;
	scxk_stats_set_u64(r, RELAY_IDLE_PICKS, relay.idle_picks);
	scxk_stats_set_u64(r, RELAY_DISPATCH_ANY, relay.dispatch_any);
	scxk_stats_set_u64(r, RELAY_DISPATCH_LOCAL, relay.dispatch_local);
	scxk_stats_set_u64(r, RELAY_SLICE_US, cfg.slice_us);
	scxk_stats_set_u64(r, RELAY_SLICE_US_MIN, cfg.slice_us_min);
	return 0;
}

static const struct scxu_sched sched = {
	.name = "relay",
	.cli = &cli,
	.opts = &lib_opts,
	.validate = relay_validate,
	.init = relay_init,
	.schedule = relay_schedule,
	.stats = relay_stats,
	.nr_stats = sizeof(relay_stats) / sizeof(relay_stats[0]),
	.collect = relay_collect,
};

int main(int argc, char **argv)
{
	return scxu_main(&sched, argc, argv);
}
