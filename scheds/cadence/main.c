// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence's loader: options, compute domains and the CPU preference
 * order built from topology, the power profile for --autopower, futex
 * tracepoints, stats, and the --monitor-sched-samples client. Scheduling
 * decisions are all in cadence.bpf.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include <scxkit/exit.h>
#include <scxkit/log.h>
#include <scxkit/power.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>
#include <scxkit/topo.h>

#include "intf.h"
#include "policy.h"
#include "cadence.skel.h"

/* How often the loader looks at the power profile (--autopower). */
#define PROFILE_POLL_MS 1000
/* A sample client renews its request this often; samples stop 2 s after it leaves. */
#define SAMPLE_RENEW_NS (500ULL * 1000 * 1000)
#define SAMPLE_LEASE_NS (2000ULL * 1000 * 1000)

static struct {
	uint64_t slice_max_us, slice_min_us, preempt_shift, samples;
	bool performance, balanced, powersave, autopilot, autopower;
	bool no_compaction, no_freq_scaling, no_futex_boost, no_preemption, no_dl_preempt,
		no_wake_sync;
	bool no_slice_boost;
} cfg = {
	.slice_max_us = 5000,
	.slice_min_us = 500,
	.preempt_shift = 6,
};

static struct scxk_opt opts[] = {
	{"slice-max-us", 0, "US", SCXK_OPT_U64, &cfg.slice_max_us, "maximum time slice", .min = 100,
	 .max = 1000000, .upstream = "--slice-max-us"},
	{"slice-min-us", 0, "US", SCXK_OPT_U64, &cfg.slice_min_us,
	 "minimum time slice, however many tasks wait", .min = 10, .max = 1000000,
	 .upstream = "--slice-min-us"},
	{"preempt-shift", 0, "N", SCXK_OPT_U64, &cfg.preempt_shift,
	 "only the top 1/2^N of the criticality range may preempt", .max = 10,
	 .upstream = "--preempt-shift"},
	{"performance", 0, NULL, SCXK_OPT_FLAG, &cfg.performance,
	 "performance mode: every CPU active, full frequency", .upstream = "--performance"},
	{"balanced", 0, NULL, SCXK_OPT_FLAG, &cfg.balanced,
	 "balanced mode: core compaction in the performance order", .upstream = "--balanced"},
	{"powersave", 0, NULL, SCXK_OPT_FLAG, &cfg.powersave,
	 "powersave mode: core compaction in the powersave order", .upstream = "--powersave"},
	{"autopilot", 0, NULL, SCXK_OPT_FLAG, &cfg.autopilot,
	 "choose the power mode from the load (the default without a mode option)",
	 .upstream = "--autopilot"},
	{"autopower", 0, NULL, SCXK_OPT_FLAG, &cfg.autopower,
	 "follow the system power profile (platform_profile, EPP, governor)",
	 .upstream = "--autopower"},
	{"no-core-compaction", 0, NULL, SCXK_OPT_FLAG, &cfg.no_compaction,
	 "keep every CPU active whatever the load", .upstream = "--no-core-compaction"},
	{"no-freq-scaling", 0, NULL, SCXK_OPT_FLAG, &cfg.no_freq_scaling,
	 "leave CPU frequency to the cpufreq governor", .upstream = "--no-freq-scaling"},
	{"no-futex-boost", 0, NULL, SCXK_OPT_FLAG, &cfg.no_futex_boost,
	 "do not boost (or shield from preemption) futex lock holders",
	 .upstream = "--no-futex-boost"},
	{"no-preemption", 0, NULL, SCXK_OPT_FLAG, &cfg.no_preemption,
	 "never preempt a running task for a critical one", .upstream = "--no-preemption"},
	{"no-deadline-preempt", 0, NULL, SCXK_OPT_FLAG, &cfg.no_dl_preempt,
	 "only the most critical tasks preempt (strict LAVD); others wait for a slice end"},
	{"no-wake-sync", 0, NULL, SCXK_OPT_FLAG, &cfg.no_wake_sync,
	 "ignore synchronous-wakeup hints when placing a wakee", .upstream = "--no-wake-sync"},
	{"no-slice-boost", 0, NULL, SCXK_OPT_FLAG, &cfg.no_slice_boost,
	 "never lengthen the slice of long-running tasks", .upstream = "--no-slice-boost"},
	{"monitor-sched-samples", 0, "N", SCXK_OPT_U64, &cfg.samples,
	 "client only: print about N per-task samples per second from a running instance",
	 .max = 100000, .dfl = "off", .upstream = "--monitor-sched-samples"},
	/* scx_lavd's options that mean nothing here yet (docs/upstream-compat.md) */
	{"pinned-slice-us", 0, "US", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "pinned tasks do not shorten the running slice yet (issue 26, part 2)"},
	{"lat-load-target-pct", 0, "PCT", SCXK_OPT_U64, NULL, NULL, .max = 200,
	 .ignored = "the latency-load target is not modelled yet (issue 26, part 2)"},
	{"mig-delta-pct", 0, "PCT", SCXK_OPT_U64, NULL, NULL, .max = 100,
	 .ignored = "the migration threshold is not tunable yet (issue 26, part 2)"},
	{"warm-cpu-us", 0, "US", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "no warm-CPU wait: a wakee takes an idle CPU at once"},
	{"lb-low-util-pct", 0, "PCT", SCXK_OPT_U64, NULL, NULL, .max = 100,
	 .ignored = "no stealer/stealee load balancing between compute domains"},
	{"lb-local-dsq-util-pct", 0, "PCT", SCXK_OPT_U64, NULL, NULL, .max = 100,
	 .ignored = "no stealer/stealee load balancing between compute domains"},
	{"cpu-pref-order", 0, "ORDER", SCXK_OPT_STRING, NULL, NULL,
	 .ignored = "the CPU order comes from the topology (issue 26, part 2)"},
	{"no-use-em", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no energy model is used in the first place"},
	{"no-fast-lb", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no fast load balancing to turn off"},
	{"per-cpu-dsq", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "one queue per compute domain (issue 26, part 2)"},
	{"enable-cpu-bw", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "cgroup cpu.max is not enforced yet (issue 26, part 2)"},
	{"virt-llc", 0, NULL, SCXK_OPT_FLAG, NULL, NULL, .parse = scxk_parse_virt_llc,
	 .optval = true, .ignored = "compute domains follow the real LLCs"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_cadence",
	.summary = "Latency-criticality-aware virtual deadlines for games and interactive "
		   "work (LAVD-like), with core compaction.",
	.examples = "  scx_cadence                          autopilot: power mode from load\n"
		    "  scx_cadence --performance            gaming on mains power\n"
		    "  scx_cadence --autopower              laptop: follow the power profile\n"
		    "  scx_cadence --monitor 1              stats of a running instance\n"
		    "  scx_cadence --monitor-sched-samples 20   per-task samples\n",
	.opts = opts,
	/*
	 * Modes (scxctl --mode, org.scx.Loader): the intent of upstream scx_loader's
	 * scx_lavd profiles, without --pinned-slice-us (accepted but ignored here).
	 * Auto is the default, --autopilot.
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"--performance", NULL},
			[SCXK_MODE_POWERSAVE] = (const char *const[]){"--powersave", NULL},
			[SCXK_MODE_LOWLATENCY] = (const char *const[]){"--performance", NULL},
			[SCXK_MODE_SERVER] =
				(const char *const[]){"--performance", "--slice-min-us", "3000",
						      "--slice-max-us", "10000", NULL},
		},
};

static const char *const mode_names[CADENCE_NR_PM] = {"performance", "balanced", "powersave"};

/* ---- compute domains and the CPU preference order ---- */

struct layout {
	int nr_doms;
	int dom_llc[CADENCE_MAX_DOMS];
	bool dom_big[CADENCE_MAX_DOMS];
};

static int dom_find_or_add(struct layout *l, int llc, bool big)
{
	for (int d = 0; d < l->nr_doms; d++)
		if (l->dom_llc[d] == llc && l->dom_big[d] == big)
			return d;
	if (l->nr_doms == CADENCE_MAX_DOMS)
		return -E2BIG;
	l->dom_llc[l->nr_doms] = llc;
	l->dom_big[l->nr_doms] = big;
	return l->nr_doms++;
}

static int dom_distance(const struct scxk_topo *t, const struct layout *l, int a, int b)
{
	int na = t->llc_node[l->dom_llc[a]], nb = t->llc_node[l->dom_llc[b]];

	/* Core type first (a wrong type costs more than a remote cache), then node, then id. */
	return (l->dom_big[a] != l->dom_big[b]) * 1000000 + (na != nb) * 1000 + abs(a - b);
}

static int configure_layout(struct scx_cadence *skel, const struct scxk_topo *t)
{
	struct cadence_cpu_desc *desc;
	struct layout l = {0};
	unsigned int min_cap = SCXK_CAPACITY_MAX, cap;
	uint64_t total_cap = 0;
	int cpu, n = 0, d, i, j;

	desc = calloc(t->nr_cpu_ids, sizeof(*desc));
	if (!desc)
		return -ENOMEM;
	scxk_cpumask_for_each (cpu, &t->online) {
		bool big = t->hybrid && t->big[cpu];
		int core = t->core_id[cpu], rank = 0, sib;

		if (cpu >= SCXK_MAX_CPUS || t->llc_id[cpu] < 0)
			continue;
		if ((d = dom_find_or_add(&l, t->llc_id[cpu], big)) < 0) {
			free(desc);
			return scxk_err(d, "more than %d compute domains", CADENCE_MAX_DOMS);
		}
		skel->rodata->cpu_dom[cpu] = d;
		skel->rodata->dom_bits[d][cpu / 64] |= 1ULL << (cpu % 64);
		skel->rodata->dom_nr_cpus[d]++;
		if (core >= 0)
			scxk_cpumask_for_each (sib, &t->core_cpus[core])
				if (sib < cpu)
					rank++;
		cap = t->capacity[cpu] ? t->capacity[cpu] : SCXK_CAPACITY_MAX;
		desc[n++] = (struct cadence_cpu_desc){.cpu = cpu,
						      .capacity = cap,
						      .node = t->node_id[cpu],
						      .llc = t->llc_id[cpu],
						      .core = core,
						      .smt_rank = rank};
		min_cap = cap < min_cap ? cap : min_cap;
		total_cap += cap;
	}
	if (!n) {
		free(desc);
		return scxk_err(-ENODEV, "no online CPU with a known topology");
	}
	cadence_cpu_order(desc, n, false);
	for (i = 0; i < n; i++)
		skel->rodata->cpu_order[CADENCE_ORDER_PERF][i] = desc[i].cpu;
	cadence_cpu_order(desc, n, true);
	for (i = 0; i < n; i++)
		skel->rodata->cpu_order[CADENCE_ORDER_SAVE][i] = desc[i].cpu;
	free(desc);

	skel->rodata->nr_cpus = n;
	skel->rodata->nr_doms = l.nr_doms;
	for (d = 0; d < l.nr_doms; d++) {
		int k = 0;

		skel->rodata->dom_node[d] = t->llc_node[l.dom_llc[d]];
		skel->rodata->dom_big[d] = l.dom_big[d];
		skel->rodata->dom_twin[d] = CADENCE_NO_DOM;
		for (j = 0; j < l.nr_doms; j++)
			if (l.dom_llc[j] == l.dom_llc[d] && l.dom_big[j] != l.dom_big[d])
				skel->rodata->dom_twin[d] = j;
		/* Neighbours by distance: selection sort, nr_doms is small. */
		for (j = 0; j < l.nr_doms; j++)
			if (j != d)
				skel->rodata->dom_nbr[d][k++] = j;
		for (i = 0; i < k; i++)
			for (j = i + 1; j < k; j++) {
				uint32_t a = skel->rodata->dom_nbr[d][i],
					 b = skel->rodata->dom_nbr[d][j];

				if (dom_distance(t, &l, d, b) < dom_distance(t, &l, d, a)) {
					skel->rodata->dom_nbr[d][i] = b;
					skel->rodata->dom_nbr[d][j] = a;
				}
			}
	}
	/*
	 * Autopilot (LAVD's thresholds without an energy model): below half
	 * the smallest CPU the machine is nearly idle; above a quarter (SMT)
	 * or half of the total capacity the load is heavy.
	 */
	skel->rodata->ap_low_cap = min_cap / 2;
	skel->rodata->ap_high_cap = total_cap * (t->smt ? 25 : 50) / 100;
	scxk_info("%d CPUs in %d compute domain(s)%s", n, l.nr_doms, t->hybrid ? ", hybrid" : "");
	return 0;
}

/* ---- stats ---- */

static enum scxk_power_profile cur_profile = SCXK_PROFILE_BALANCED;
/* Per loaded object (run->priv): the futex hooks, attached after the scheduler. */
struct cadence_obj {
	struct bpf_link *futex[2];
};

static bool futex_on(const struct scxk_run *run)
{
	const struct cadence_obj *o = run->priv;

	return o && o->futex[0];
}

static const struct scxk_stat_desc stat_fields[] = {CADENCE_STATS(SCXK_STAT_DESC)};

/* Mode m's time is counter CADENCE_STAT_TIME_PM + m, its share value CADENCE_PC_PERFORMANCE + m. */
_Static_assert(CADENCE_STAT_TIME_PM_2 - CADENCE_STAT_TIME_PM == CADENCE_NR_PM - 1 &&
		       CADENCE_PC_POWERSAVE - CADENCE_PC_PERFORMANCE == CADENCE_NR_PM - 1,
	       "CADENCE_STATS has one time counter and one share per power mode");

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	struct scx_cadence *skel = run->skel;
	volatile struct cadence_sys *sys = &skel->bss->sys;
	const uint64_t *d = r->delta;
	uint64_t t_all = 0;
	int i;

	for (i = 0; i < CADENCE_NR_PM; i++)
		t_all += d[CADENCE_STAT_TIME_PM + i];

	scxk_stats_set_u64(r, CADENCE_NR_QUEUED_TASK, sys->nr_queued);
	scxk_stats_set_u64(r, CADENCE_NR_ACTIVE, sys->nr_running);
	scxk_stats_set_u64(r, CADENCE_NR_ACTIVE_CPUS, sys->nr_active_cpus);
	scxk_stats_set_real(r, CADENCE_AVG_ACTIVE_CPUS,
			    t_all ? (double)d[CADENCE_STAT_ACTIVE_NS] / t_all : 0.0);
	scxk_stats_set_u64(r, CADENCE_NR_CPUS, skel->bss->scxk_online.nr);
	scxk_stats_set_real(r, CADENCE_PC_LC, pct(d[CADENCE_STAT_LAT_CRI], d[CADENCE_STAT_SCHED]));
	scxk_stats_set_real(r, CADENCE_PC_PC, pct(d[CADENCE_STAT_PERF_CRI], d[CADENCE_STAT_SCHED]));
	scxk_stats_set_real(r, CADENCE_PC_BIG, pct(d[CADENCE_STAT_ON_BIG], d[CADENCE_STAT_SCHED]));
	scxk_stats_set_str(r, CADENCE_POWER_MODE,
			   mode_names[sys->power_mode < CADENCE_NR_PM ? sys->power_mode
								      : CADENCE_PM_BALANCED]);
	for (i = 0; i < CADENCE_NR_PM; i++)
		scxk_stats_set_real(r, CADENCE_PC_PERFORMANCE + i,
				    pct(d[CADENCE_STAT_TIME_PM + i], t_all));
	scxk_stats_set_u64(r, CADENCE_SLICE_US, sys->slice_ns / 1000);
	scxk_stats_set_real(r, CADENCE_UTIL_PCT, pct(sys->util, CADENCE_SCALE));
	scxk_stats_set_u64(r, CADENCE_REQUIRED_CAP, sys->required_cap);
	scxk_stats_set_real(r, CADENCE_CPUPERF_PCT, pct(sys->avg_perf, CADENCE_SCALE));
	scxk_stats_set_u64(r, CADENCE_AVG_LAT_CRI, sys->avg_lat_cri);
	scxk_stats_set_u64(r, CADENCE_MAX_LAT_CRI, sys->max_lat_cri);
	scxk_stats_set_u64(r, CADENCE_THR_LAT_CRI, sys->thr_lat_cri);
	scxk_stats_set_u64(r, CADENCE_FUTEX_BOOST, futex_on(run));
	return 0;
}

/*
 * Upstream lavd's second target, "sched_samples": per-task samples, as
 * --monitor-sched-samples prints them. Its struct for stats_meta:
 */
#define SAMPLE_FIELD(name, type, unit, help)                                                       \
	{                                                                                          \
		name, SCXK_STAT_##type, help, unit, SCXK_STAT_KIND_VAL, 0                          \
	}
static const struct scxk_stat_desc sample_fields[] = {
	SAMPLE_FIELD("pid", I64, "", "thread id"),
	SAMPLE_FIELD("comm", STRING, "", "thread name"),
	SAMPLE_FIELD("cpu", I64, "", "CPU it ran on"),
	SAMPLE_FIELD("dom", U64, "", "its compute domain"),
	SAMPLE_FIELD("big", U64, "", "1 on a big core"),
	SAMPLE_FIELD("lat_cri", U64, "", "latency criticality"),
	SAMPLE_FIELD("norm_lat_cri", U64, "", "the same, 0..1024 of the running maximum"),
	SAMPLE_FIELD("perf_cri", U64, "", "performance criticality"),
	SAMPLE_FIELD("wait_freq", U64, "", "blocking frequency"),
	SAMPLE_FIELD("wake_freq", U64, "", "wake-up frequency"),
	SAMPLE_FIELD("avg_runtime_us", U64, "us", "average run time per schedule"),
	SAMPLE_FIELD("slice_us", U64, "us", "its slice"),
	SAMPLE_FIELD("dl_delta_us", U64, "us", "deadline minus the clock"),
	SAMPLE_FIELD("lock_holder", U64, "", "1 if it held a futex"),
};

static const struct scxk_stats_struct sample_struct = {
	.name = "SchedSample",
	.desc = "one task as the scheduler saw it ({\"target\":\"sched_samples\"} answers "
		"{\"samples\":[...]})",
	.fields = sample_fields,
	.nr_fields = sizeof(sample_fields) / sizeof(sample_fields[0]),
	.om_prefix = "sample_",
	.om_label = "sample",
};

static int samples_target(json_t **resp, json_t *args, void *ctx, char *why, size_t len);

static const struct scxk_stats_target targets[] = {
	{"sched_samples", samples_target},
};

static const struct scxk_sched_stats stats = {
	.name = "Metrics",
	.desc = "scx_cadence: counters are deltas since the previous read",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.collect = stats_collect,
	.subs = &sample_struct,
	.nr_subs = 1,
	.targets = targets,
	.nr_targets = 1,
};

/* ---- --monitor-sched-samples: a client of a running instance ---- */

static volatile sig_atomic_t samples_stop;

static void on_stop(int sig)
{
	(void)sig;
	samples_stop = 1;
}

/* The fd of the loaded map called @name, or a negative errno. */
static int map_fd_by_name(const char *name)
{
	struct bpf_map_info info;
	uint32_t id = 0, len;
	int fd;

	while (!bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_map_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct sample_state {
	uint64_t start, printed, limit;
};

static int print_sample(void *ctx, void *data, size_t len)
{
	struct sample_state *st = ctx;
	const struct cadence_sample *s = data;

	if (len < sizeof(*s) || s->ts < st->start)
		return 0; /* left over from an earlier client */
	if (st->limit && st->printed >= st->limit)
		return 0; /* the rest of this batch, after --monitor-count */
	printf("pid=%d comm=%.16s cpu=%d dom=%u big=%u lat_cri=%llu norm_lat_cri=%u "
	       "perf_cri=%llu wait_freq=%llu wake_freq=%llu avg_runtime_us=%llu slice_us=%llu "
	       "dl_delta_us=%llu lock_holder=%u\n",
	       s->pid, s->comm, s->cpu, s->dom, s->big, s->lat_cri, s->norm_lat_cri, s->perf_cri,
	       s->wait_freq, s->wake_freq, s->avg_runtime_ns / 1000, s->slice_ns / 1000,
	       s->dl_delta_ns / 1000, s->lock_holder);
	st->printed++;
	if (st->limit && st->printed >= st->limit)
		samples_stop = 1;
	return 0;
}

static int monitor_samples(const struct scxk_common_opts *common)
{
	struct sample_state st = {.limit = common->monitor_count};
	struct cadence_sample_ctl ctl;
	struct ring_buffer *rb = NULL;
	int rb_fd, ctl_fd, err = 0;
	long nr = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t zero = 0;
	uint64_t renewed = 0;

	rb_fd = map_fd_by_name(CADENCE_SAMPLES_MAP);
	ctl_fd = map_fd_by_name(CADENCE_SAMPLE_CTL_MAP);
	if (rb_fd < 0 || ctl_fd < 0) {
		fprintf(stderr, "scx_cadence: no running scx_cadence found (run as root, after "
				"starting the scheduler)\n");
		return SCXK_EXIT_FAIL;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	st.start = mono_ns();
	/* N samples per second spread over the CPUs: one per CPU per interval. */
	ctl.interval_ns = 1000000000ULL * (nr > 0 ? nr : 1) / cfg.samples;
	rb = ring_buffer__new(rb_fd, print_sample, &st, NULL);
	if (!rb) {
		err = -errno;
		goto out;
	}
	while (!samples_stop) {
		uint64_t t = mono_ns();

		if (t - renewed >= SAMPLE_RENEW_NS) {
			ctl.until_ns = t + SAMPLE_LEASE_NS;
			if (bpf_map_update_elem(ctl_fd, &zero, &ctl, BPF_ANY)) {
				err = -errno;
				break;
			}
			renewed = t;
		}
		err = ring_buffer__poll(rb, 100 /* ms */);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		err = 0;
		fflush(stdout);
	}
out:
	ctl.until_ns = 0;
	bpf_map_update_elem(ctl_fd, &zero, &ctl, BPF_ANY);
	ring_buffer__free(rb);
	close(rb_fd);
	close(ctl_fd);
	if (err) {
		fprintf(stderr, "scx_cadence: reading samples failed: %s\n", strerror(-err));
		return SCXK_EXIT_FAIL;
	}
	return SCXK_EXIT_OK;
}

/* ---- the sched_samples stats target ---- */

/* Longest a request waits for samples: it holds up the stats thread meanwhile. */
#define SAMPLES_WAIT_MS 100

struct samples_req {
	json_t *list;
	uint64_t since, max;
};

static int add_sample(void *ctx, void *data, size_t len)
{
	const struct cadence_sample *s = data;
	struct samples_req *q = ctx;

	if (len < sizeof(*s) || s->ts < q->since || json_array_size(q->list) >= q->max)
		return 0;
	json_array_append_new(
		q->list,
		json_pack("{s:I,s:s%,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "pid",
			  (json_int_t)s->pid, "comm", s->comm, strnlen(s->comm, sizeof(s->comm)),
			  "cpu", (json_int_t)s->cpu, "dom", (json_int_t)s->dom, "big",
			  (json_int_t)s->big, "lat_cri", (json_int_t)s->lat_cri, "norm_lat_cri",
			  (json_int_t)s->norm_lat_cri, "perf_cri", (json_int_t)s->perf_cri,
			  "wait_freq", (json_int_t)s->wait_freq, "wake_freq",
			  (json_int_t)s->wake_freq, "avg_runtime_us",
			  (json_int_t)(s->avg_runtime_ns / 1000), "slice_us",
			  (json_int_t)(s->slice_ns / 1000), "dl_delta_us",
			  (json_int_t)(s->dl_delta_ns / 1000), "lock_holder",
			  (json_int_t)s->lock_holder));
	return 0;
}

/*
 * {"target":"sched_samples","nr_samples":"N"} (upstream passes N as a
 * string; default 1): renews the sampling lease, so samples flow for 2 s
 * after the last request, and answers with what the ring holds, waiting
 * at most SAMPLES_WAIT_MS. The first request of a series may get none.
 */
static int samples_target(json_t **resp, json_t *args, void *ctx, char *why, size_t len)
{
	struct scxk_run *run = ctx;
	json_t *n = json_object_get(args, "nr_samples");
	struct cadence_sample_ctl ctl = {0};
	struct samples_req q = {.max = 1};
	struct bpf_map *rb_map, *ctl_map;
	struct ring_buffer *rb;
	long nr = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t zero = 0;
	int err;

	if (n && (!json_is_string(n) || scxk_parse_u64(json_string_value(n), &q.max) || !q.max ||
		  q.max > 100000)) {
		snprintf(why, len, "\"nr_samples\" must be a string holding 1..100000");
		return -EINVAL;
	}
	rb_map = bpf_object__find_map_by_name(run->obj, CADENCE_SAMPLES_MAP);
	ctl_map = bpf_object__find_map_by_name(run->obj, CADENCE_SAMPLE_CTL_MAP);
	if (!rb_map || !ctl_map)
		return -ENOENT;
	/* q.max samples per second spread over the CPUs, as --monitor-sched-samples */
	ctl.interval_ns = 1000000000ULL * (nr > 0 ? nr : 1) / q.max;
	q.since = mono_ns() - SAMPLE_LEASE_NS;
	ctl.until_ns = mono_ns() + SAMPLE_LEASE_NS;
	if (bpf_map_update_elem(bpf_map__fd(ctl_map), &zero, &ctl, BPF_ANY))
		return -errno;
	q.list = json_array();
	rb = q.list ? ring_buffer__new(bpf_map__fd(rb_map), add_sample, &q, NULL) : NULL;
	if (!rb) {
		json_decref(q.list);
		return -ENOMEM;
	}
	err = ring_buffer__consume(rb);
	if (err >= 0 && !json_array_size(q.list))
		err = ring_buffer__poll(rb, SAMPLES_WAIT_MS);
	ring_buffer__free(rb);
	if (err < 0 && err != -EINTR) {
		json_decref(q.list);
		return err;
	}
	*resp = json_pack("{s:o}", "samples", q.list);
	return *resp ? 0 : -ENOMEM;
}

/* ---- life cycle hooks ---- */

static int cadence_validate(struct scxk_run *run)
{
	int modes = cfg.performance + cfg.balanced + cfg.powersave + cfg.autopilot + cfg.autopower;

	(void)run;
	if (modes > 1) {
		fprintf(stderr, "scx_cadence: --performance, --balanced, --powersave, --autopilot "
				"and --autopower exclude each other\n");
		return -EINVAL;
	}
	if (cfg.slice_min_us > cfg.slice_max_us) {
		fprintf(stderr,
			"scx_cadence: --slice-min-us (%llu) exceeds --slice-max-us (%llu)\n",
			(unsigned long long)cfg.slice_min_us, (unsigned long long)cfg.slice_max_us);
		return -EINVAL;
	}
	return 0;
}

SCXK_SKEL_OPEN(cadence_open, scx_cadence)

static int cadence_configure(struct scxk_run *run)
{
	struct scx_cadence *skel = run->skel;
	int err;

	run->priv = calloc(1, sizeof(struct cadence_obj));
	if (!run->priv)
		return scxk_err(-ENOMEM, "out of memory");
	if ((err = configure_layout(skel, run->topo)))
		return err;
	skel->rodata->slice_max_ns = cfg.slice_max_us * 1000;
	skel->rodata->slice_min_ns = cfg.slice_min_us * 1000;
	skel->rodata->preempt_shift = cfg.preempt_shift;
	skel->rodata->no_compaction = cfg.no_compaction;
	skel->rodata->no_freq_scaling = cfg.no_freq_scaling;
	skel->rodata->no_preemption = cfg.no_preemption;
	skel->rodata->no_dl_preempt = cfg.no_dl_preempt;
	skel->rodata->no_wake_sync = cfg.no_wake_sync;
	skel->rodata->no_slice_boost = cfg.no_slice_boost;
	if (cfg.performance || cfg.balanced || cfg.powersave) {
		skel->rodata->pm_policy = CADENCE_PMP_FIXED;
		skel->rodata->pm_fixed = cfg.performance ? CADENCE_PM_PERFORMANCE
					 : cfg.powersave ? CADENCE_PM_POWERSAVE
							 : CADENCE_PM_BALANCED;
	} else if (cfg.autopower) {
		skel->rodata->pm_policy = CADENCE_PMP_AUTOPOWER;
		cur_profile = scxk_power_profile_read();
		skel->data->pm_request =
			cur_profile == SCXK_PROFILE_PERFORMANCE ? CADENCE_PM_PERFORMANCE
			: cur_profile == SCXK_PROFILE_POWERSAVE ? CADENCE_PM_POWERSAVE
								: CADENCE_PM_BALANCED;
	} else {
		skel->rodata->pm_policy = CADENCE_PMP_AUTOPILOT;
	}
	/* Attached by hand after the scheduler, so a refusal only costs the boost. */
	bpf_program__set_autoattach(skel->progs.cadence_futex_enter, false);
	bpf_program__set_autoattach(skel->progs.cadence_futex_exit, false);
	if (cfg.no_futex_boost) {
		bpf_program__set_autoload(skel->progs.cadence_futex_enter, false);
		bpf_program__set_autoload(skel->progs.cadence_futex_exit, false);
	}
	return 0;
}

static int cadence_attached(struct scxk_run *run)
{
	struct scx_cadence *skel = run->skel;
	const char *how = cfg.performance ? "performance"
			  : cfg.balanced  ? "balanced"
			  : cfg.powersave ? "powersave"
			  : cfg.autopower ? "autopower"
					  : "autopilot";

	struct cadence_obj *o = run->priv;

	if (!cfg.no_futex_boost) {
		o->futex[0] = bpf_program__attach(skel->progs.cadence_futex_enter);
		o->futex[1] =
			o->futex[0] ? bpf_program__attach(skel->progs.cadence_futex_exit) : NULL;
		if (!o->futex[0] || !o->futex[1]) {
			scxk_warn("cannot attach the futex tracepoints (%s); running without the "
				  "lock-holder boost",
				  strerror(errno));
			bpf_link__destroy(o->futex[0]);
			o->futex[0] = o->futex[1] = NULL;
		}
	}
	scxk_info("power %s%s%s, slice %llu-%llu us, futex boost %s", how,
		  cfg.autopower ? " (profile " : "",
		  cfg.autopower ? scxk_power_profile_name(cur_profile) : "",
		  (unsigned long long)cfg.slice_min_us, (unsigned long long)cfg.slice_max_us,
		  futex_on(run) ? "on" : "off");
	return 0;
}

/* --autopower: hand the power profile to the BPF side when it changes. */
static int cadence_tick(struct scxk_run *run)
{
	struct scx_cadence *skel = run->skel;
	enum scxk_power_profile p;

	if (!cfg.autopower)
		return 0;
	p = scxk_power_profile_read();
	if (p == cur_profile)
		return 0;
	scxk_info("power profile changed: %s -> %s", scxk_power_profile_name(cur_profile),
		  scxk_power_profile_name(p));
	cur_profile = p;
	skel->data->pm_request = p == SCXK_PROFILE_PERFORMANCE ? CADENCE_PM_PERFORMANCE
				 : p == SCXK_PROFILE_POWERSAVE ? CADENCE_PM_POWERSAVE
							       : CADENCE_PM_BALANCED;
	return 0;
}

static void cadence_destroy(struct scxk_run *run)
{
	struct cadence_obj *o = run->priv;

	if (o) {
		bpf_link__destroy(o->futex[1]);
		bpf_link__destroy(o->futex[0]);
		free(o);
		run->priv = NULL;
	}
	scx_cadence__destroy(run->skel);
}

static const struct scxk_sched sched = {
	.name = "cadence",
	.cli = &cli,
	.validate = cadence_validate,
	.open = cadence_open,
	.configure = cadence_configure,
	.attached = cadence_attached,
	.tick = cadence_tick,
	.tick_ms = PROFILE_POLL_MS,
	.destroy = cadence_destroy,
	.stats = &stats,
};

int main(int argc, char **argv)
{
	struct scxk_common_opts common;
	int err;

	/*
	 * The sample client never loads anything: parse with the same table
	 * (so --help and errors are the scheduler's), then only read maps.
	 */
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--monitor-sched-samples", 23))
			continue;
		err = scxk_cli_parse(&cli, argc, argv, &common);
		if (err == SCXK_CLI_DONE)
			return SCXK_EXIT_OK;
		if (err)
			return SCXK_EXIT_USAGE;
		if (common.check_args) {
			scxk_cli_print_values(&cli, &common, stdout);
			return SCXK_EXIT_OK;
		}
		if (!cfg.samples) {
			fprintf(stderr, "scx_cadence: --monitor-sched-samples needs N >= 1\n");
			return SCXK_EXIT_USAGE;
		}
		return monitor_samples(&common);
	}
	return scxk_sched_main(&sched, argc, argv);
}
