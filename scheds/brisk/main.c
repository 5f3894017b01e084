// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_brisk's loader: options, the primary domain and power profile, idle
 * resume-latency QoS, and stats. All scheduling decisions are in
 * brisk.bpf.c; this side only configures it and watches the power profile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include <scxkit/cpumask.h>
#include <scxkit/log.h>
#include <scxkit/power.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>
#include <scxkit/topo.h>
#include <scxkit/tunable.h>

#include "intf.h"
#include "brisk.skel.h"

/* How often the loader looks at the power profile in "-m auto" mode. */
#define PROFILE_POLL_MS 1000
#define QOS_UNSET	UINT64_MAX

static struct {
	uint64_t slice_us, slice_min_us, slice_lag_us, throttle_us, idle_resume_us;
	bool local_pcpu, local_kthreads, no_wake_sync, sticky, disable_smt, disable_numa;
	bool cpufreq, no_preempt;
	const char *primary;
} cfg = {
	.slice_us = 5000,
	.slice_min_us = 250,
	.slice_lag_us = 40000,
	.idle_resume_us = QOS_UNSET,
	.primary = "auto",
};

static bool is_domain_word(const char *s)
{
	static const char *const words[] = {"auto", "performance", "powersave", "turbo", "all"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

static int parse_primary(const char *arg, void *dest)
{
	struct scxk_cpumask m;

	if (is_domain_word(arg)) {
		*(const char **)dest = arg;
		return 0;
	}
	/* upstream's "none" (no preferred CPUs) is a primary domain of every CPU */
	if (!strcmp(arg, "none")) {
		*(const char **)dest = "all";
		return 0;
	}
	/* CPU numbers are checked against this machine in validate(). */
	if (scxk_cpumask_parse(arg, &m, SCXK_MAX_CPUS) || scxk_cpumask_empty(&m))
		return -EINVAL;
	*(const char **)dest = arg;
	return 0;
}

static int parse_qos(const char *arg, void *dest)
{
	uint64_t v;

	/* upstream's -1: leave the QoS alone (its default) */
	if (!strcmp(arg, "-1")) {
		*(uint64_t *)dest = QOS_UNSET;
		return 0;
	}
	/* The kernel's PM QoS resume latency is an s32 of microseconds. */
	if (scxk_parse_u64(arg, &v) || v > INT32_MAX)
		return -EINVAL;
	*(uint64_t *)dest = v;
	return 0;
}

static const char *show_qos(const void *dest, char *buf, size_t len)
{
	uint64_t v = *(const uint64_t *)dest;

	if (v == QOS_UNSET)
		return "off";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static const char *show_str(const void *dest, char *buf, size_t len)
{
	(void)buf, (void)len;
	return *(const char *const *)dest;
}

/* Shorter slices than this cost more in switches than they give in latency. */
#define SLICE_MIN_FLOOR_US 10

static int parse_slice_min(const char *arg, void *dest)
{
	uint64_t v;

	if (scxk_parse_u64(arg, &v) || v > 1000000 || (v && v < SLICE_MIN_FLOOR_US))
		return -EINVAL;
	/* upstream's 0 ("no minimum") is the floor */
	*(uint64_t *)dest = v ? v : SLICE_MIN_FLOOR_US;
	return 0;
}

static const char *show_u64(const void *dest, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)dest);
	return buf;
}

/* upstream's TIMELY tunables (numbers, checked as such): ignored with --timely */
#define TIMELY_KNOB(n)                                                                             \
	{                                                                                          \
		n, 0, "N", SCXK_OPT_U64, NULL, NULL,                                               \
			.ignored = "tunes TIMELY, which is not implemented"                        \
	}

static struct scxk_opt opts[] = {
	{"slice-us", 's', "US", SCXK_OPT_U64, &cfg.slice_us, "maximum time slice", .min = 100,
	 .max = 1000000, .upstream = "-s --slice-us"},
	{"slice-min-us", 'L', "US", SCXK_OPT_CUSTOM, &cfg.slice_min_us,
	 "minimum time slice, however many tasks wait (10 or more; 0: 10)",
	 .parse = parse_slice_min, .show = show_u64, .dfl = "250", .upstream = "-L --slice-min-us",
	 .note = "0 (upstream: no minimum) is the floor, 10 us"},
	{"slice-us-lag", 'l', "US", SCXK_OPT_U64, &cfg.slice_lag_us,
	 "base sleep credit a waking task may bank", .max = 10000000,
	 .upstream = "-l --slice-us-lag"},
	{"throttle-us", 't', "US", SCXK_OPT_U64, &cfg.throttle_us,
	 "inject this much idle after every slice to save power (0 = off)", .max = 1000000,
	 .upstream = "-t --throttle-us"},
	{"idle-resume-us", 'I', "US", SCXK_OPT_CUSTOM, &cfg.idle_resume_us,
	 "set every CPU's idle resume-latency QoS, restored on exit (-1: off)", .parse = parse_qos,
	 .show = show_qos, .dfl = "off", .upstream = "-I --idle-resume-us",
	 .note = "-1 (upstream's default) is off"},
	{"local-pcpu", 'p', NULL, SCXK_OPT_FLAG, &cfg.local_pcpu,
	 "send per-CPU tasks straight to their CPU's local queue", .upstream = "-p --local-pcpu"},
	{"local-kthreads", 'k', NULL, SCXK_OPT_FLAG, &cfg.local_kthreads,
	 "send per-CPU kthreads straight to their CPU (implied by -t)",
	 .upstream = "-k --local-kthreads"},
	{"no-wake-sync", 'w', NULL, SCXK_OPT_FLAG, &cfg.no_wake_sync,
	 "ignore synchronous-wakeup hints", .upstream = "-w --no-wake-sync"},
	{"sticky-tasks", 'S', NULL, SCXK_OPT_FLAG, &cfg.sticky,
	 "keep tasks that run under 10 us per schedule on their CPU",
	 .upstream = "-S --sticky-tasks"},
	{"primary-domain", 'm', "DOMAIN", SCXK_OPT_CUSTOM, &cfg.primary,
	 "preferred CPUs: auto|performance|powersave|turbo|all (none: all), a cpulist or 0x mask",
	 .parse = parse_primary, .show = show_str, .upstream = "-m --primary-domain",
	 .note = "`none` (no preferred CPUs) is `all`"},
	{"disable-smt", 0, NULL, SCXK_OPT_FLAG, &cfg.disable_smt,
	 "ignore SMT: do not prefer whole idle cores", .upstream = "--disable-smt"},
	{"disable-numa", 0, NULL, SCXK_OPT_FLAG, &cfg.disable_numa, "one queue for all NUMA nodes",
	 .upstream = "--disable-numa"},
	{"cpufreq", 'f', NULL, SCXK_OPT_FLAG, &cfg.cpufreq,
	 "set each CPU's performance level from its busy ratio", .upstream = "-f --cpufreq"},
	{"no-preempt", 0, NULL, SCXK_OPT_FLAG, &cfg.no_preempt,
	 "never preempt a running task for a waking interactive one"},
	/* scx_bpfland's options that mean nothing here (docs/upstream-compat.md) */
	{"preferred-idle-scan", 'P', NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no ranked-core idle scan; -m performance prefers the fastest CPUs"},
	{"timely", 'T', NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no TIMELY delay feedback; slices follow the number of waiting tasks"},
	TIMELY_KNOB("timely-tlow-us"),
	TIMELY_KNOB("timely-thigh-us"),
	TIMELY_KNOB("timely-gain-min"),
	TIMELY_KNOB("timely-gain-step"),
	TIMELY_KNOB("timely-hai-thresh"),
	TIMELY_KNOB("timely-hai-multiplier"),
	TIMELY_KNOB("timely-backoff-low"),
	TIMELY_KNOB("timely-backoff-high"),
	TIMELY_KNOB("timely-backoff-gradient"),
	TIMELY_KNOB("timely-gradient-margin-us"),
	TIMELY_KNOB("timely-control-interval-us"),
	{"debug", 'd', NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no bpf_printk output; use -v and --stats"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_brisk",
	.summary = "Responsiveness first: interactive tasks get early deadlines and idle "
		   "cores, CPU hogs wait.",
	.examples = "  scx_brisk                      desktop defaults\n"
		    "  scx_brisk -m performance -w    gaming on big cores, no wake-sync\n"
		    "  scx_brisk -s 20000 -S          server-like: long slices, sticky tasks\n"
		    "  scx_brisk -m powersave -t 100 -I 100   save power\n",
	.opts = opts,
	/*
	 * Modes (scxctl --mode, org.scx.Loader): the intent of upstream scx_loader's
	 * scx_bpfland profiles, in the same (upstream-compatible) spellings. Auto is
	 * the defaults (-m auto).
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"-m", "all", NULL},
			[SCXK_MODE_POWERSAVE] =
				(const char *const[]){"-s", "20000", "-m", "powersave", "-I", "100",
						      "-t", "100", NULL},
			[SCXK_MODE_LOWLATENCY] =
				(const char *const[]){"-m", "performance", "-w", NULL},
			[SCXK_MODE_SERVER] = (const char *const[]){"-s", "20000", "-S", NULL},
		},
};

/* ---- power profile and primary domain ---- */

static const char *sysfs_prefix(void)
{
	const char *p = getenv("SCX_SYSFS_PREFIX");

	return p && *p ? p : "";
}

struct domain {
	struct scxk_cpumask mask;
	const char *mode; /* what -m resolved to */
	enum scxk_power_profile profile;
};

static void resolve_domain(const struct scxk_topo *t, const char *spec, struct domain *d)
{
	unsigned int best_freq = 0;
	int cpu;

	d->profile = scxk_power_profile_read();
	d->mode = spec;
	if (!strcmp(spec, "auto"))
		d->mode = d->profile == SCXK_PROFILE_POWERSAVE	   ? "powersave"
			  : d->profile == SCXK_PROFILE_PERFORMANCE ? "performance"
								   : "all";
	scxk_cpumask_zero(&d->mask);
	if (!is_domain_word(d->mode)) {
		scxk_cpumask_parse(d->mode, &d->mask, t->nr_cpu_ids);
		scxk_cpumask_and(&d->mask, &d->mask, &t->online);
		return;
	}
	scxk_cpumask_for_each (cpu, &t->online)
		if (t->big[cpu] && t->max_freq_khz[cpu] > best_freq)
			best_freq = t->max_freq_khz[cpu];
	scxk_cpumask_for_each (cpu, &t->online) {
		bool big = !t->hybrid || t->big[cpu];

		if (!strcmp(d->mode, "all") || (!strcmp(d->mode, "performance") && big) ||
		    (!strcmp(d->mode, "powersave") && (!t->hybrid || !t->big[cpu])) ||
		    (!strcmp(d->mode, "turbo") && big &&
		     (!best_freq || t->max_freq_khz[cpu] == best_freq)))
			scxk_cpumask_set(&d->mask, cpu);
	}
	if (scxk_cpumask_empty(&d->mask))
		d->mask = t->online;
}

/* ---- idle resume-latency QoS (-I), restored on exit ---- */

/* Bits of the CPUs whose QoS this process changed, so a restart restores exactly those. */
static struct scxk_cpumask qos_changed;

static void qos_key(int cpu, char *key, size_t len)
{
	snprintf(key, len, "cpu%d.pm_qos_resume_latency_us", cpu);
}

/*
 * Through the shared tunable store: the original survives a SIGKILL of
 * this loader and the next start puts it back ("n/a", no constraint, and
 * "0" differ, so it is kept verbatim).
 */
static void qos_apply(const struct scxk_topo *t)
{
	char path[512], key[64], val[24];
	int cpu;

	if (cfg.idle_resume_us == QOS_UNSET)
		return;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)cfg.idle_resume_us);
	scxk_cpumask_for_each (cpu, &t->online) {
		if (scxk_cpumask_test(&qos_changed, cpu))
			continue; /* set already: this is a CPU coming (back) online */
		snprintf(path, sizeof(path),
			 "%s/sys/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us",
			 sysfs_prefix(), cpu);
		if (access(path, F_OK)) {
			scxk_warn("cpu%d has no resume-latency QoS; -I ignored there", cpu);
			continue;
		}
		qos_key(cpu, key, sizeof(key));
		if (scxk_tunable_set(key, path, val))
			scxk_warn("cannot set cpu%d's resume-latency QoS", cpu);
		else
			scxk_cpumask_set(&qos_changed, cpu);
	}
}

static void qos_restore(void)
{
	char key[64];
	int cpu;

	scxk_cpumask_for_each (cpu, &qos_changed) {
		qos_key(cpu, key, sizeof(key));
		if (!scxk_tunable_restore(key))
			scxk_cpumask_clear(&qos_changed, cpu);
	}
}

/* ---- stats ---- */

static struct domain cur_domain;
/* scxk_online.gen when the loader last looked (follow_hotplug()). */
static uint64_t online_gen;

static const struct scxk_stat_desc stat_fields[] = {BRISK_STATS(SCXK_STAT_DESC)};

static uint64_t nr_running(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "cpu_ctxs");
	int nr = libbpf_num_possible_cpus();
	struct brisk_cpu_ctx *v;
	uint32_t zero = 0;
	uint64_t sum = 0;

	if (!map || nr <= 0 || bpf_map__value_size(map) != sizeof(*v))
		return 0;
	v = calloc(nr, sizeof(*v));
	if (v && !bpf_map_lookup_elem(bpf_map__fd(map), &zero, v))
		for (int i = 0; i < nr; i++)
			sum += v[i].running;
	free(v);
	return sum;
}

static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	char buf[SCXK_CPULIST_BUF_LEN];

	scxk_stats_set_u64(r, BRISK_NR_RUNNING, nr_running(run->obj));
	scxk_stats_set_u64(r, BRISK_NR_CPUS, ((struct scx_brisk *)run->skel)->bss->scxk_online.nr);
	scxk_cpumask_format_list(&cur_domain.mask, buf, sizeof(buf));
	scxk_stats_set_str(r, BRISK_PRIMARY, buf);
	scxk_stats_set_str(r, BRISK_MODE, cur_domain.mode);
	return 0;
}

static const struct scxk_sched_stats stats = {
	.name = "Metrics",
	.desc = "scx_brisk: dispatch paths as deltas since the previous read",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.collect = stats_collect,
};

/* ---- life cycle hooks ---- */

static int brisk_validate(struct scxk_run *run)
{
	struct scxk_cpumask m;
	struct scxk_topo *t;
	int err;

	(void)run;
	if (cfg.slice_min_us > cfg.slice_us) {
		fprintf(stderr, "scx_brisk: --slice-min-us (%llu) exceeds --slice-us (%llu)\n",
			(unsigned long long)cfg.slice_min_us, (unsigned long long)cfg.slice_us);
		return -EINVAL;
	}
	if (!is_domain_word(cfg.primary)) {
		/* A CPU list or mask must name CPUs this machine has. */
		if ((err = scxk_topo_read(&t)))
			return err;
		err = scxk_cpumask_parse(cfg.primary, &m, t->nr_cpu_ids);
		scxk_topo_free(t);
		if (err) {
			fprintf(stderr,
				"scx_brisk: --primary-domain %s names CPUs this machine "
				"does not have\n",
				cfg.primary);
			return -EINVAL;
		}
	}
	return 0;
}

SCXK_SKEL_OPEN(brisk_open, scx_brisk)

static int brisk_configure(struct scxk_run *run)
{
	struct scx_brisk *skel = run->skel;
	const struct scxk_topo *t = run->topo;
	struct bpf_map *map;
	uint64_t *bits;
	size_t size;

	resolve_domain(t, cfg.primary, &cur_domain);
	skel->rodata->slice_max = cfg.slice_us * 1000;
	skel->rodata->slice_min = cfg.slice_min_us * 1000;
	skel->rodata->slice_lag = cfg.slice_lag_us * 1000;
	skel->rodata->throttle_ns = cfg.throttle_us * 1000;
	skel->rodata->local_pcpu = cfg.local_pcpu;
	skel->rodata->local_kthreads = cfg.local_kthreads;
	skel->rodata->no_wake_sync = cfg.no_wake_sync;
	skel->rodata->sticky_tasks = cfg.sticky;
	skel->rodata->smt_aware = !cfg.disable_smt && t->smt;
	skel->rodata->numa_aware = !cfg.disable_numa && t->nr_nodes > 1;
	skel->rodata->no_preempt = cfg.no_preempt;
	skel->rodata->primary_all = scxk_cpumask_equal(&cur_domain.mask, &t->online);
	skel->rodata->cpufreq_mode =
		cfg.cpufreq				? BRISK_CPUFREQ_AUTO
		: !strcmp(cur_domain.mode, "powersave") ? BRISK_CPUFREQ_MIN
		: !strcmp(cur_domain.mode, "performance") || !strcmp(cur_domain.mode, "turbo")
			? BRISK_CPUFREQ_MAX
			: BRISK_CPUFREQ_OFF;

	map = bpf_object__find_map_by_name(run->obj, ".data.brisk_primary");
	bits = map ? bpf_map__initial_value(map, &size) : NULL;
	if (!bits || size < sizeof(cur_domain.mask.bits))
		return scxk_err(-ENOENT, "cannot set the primary domain");
	memcpy(bits, cur_domain.mask.bits, sizeof(cur_domain.mask.bits));
	return 0;
}

static int brisk_attached(struct scxk_run *run)
{
	char buf[SCXK_CPULIST_BUF_LEN];

	online_gen = 0;
	scxk_cpumask_format_list(&cur_domain.mask, buf, sizeof(buf));
	scxk_info("primary domain %s (%s), slice %llu-%llu us", buf, cur_domain.mode,
		  (unsigned long long)cfg.slice_min_us, (unsigned long long)cfg.slice_us);
	qos_apply(run->topo);
	return 0;
}

/*
 * A CPU went on/offline (the BPF side handles it in place): -I for a CPU
 * that came online without it, and a primary domain that should now cover
 * a CPU it could not cover at start (offline then) is laid out again by a
 * restart. A CPU coming back into the domain it left needs nothing.
 */
static int follow_hotplug(struct scxk_run *run)
{
	struct scx_brisk *skel = run->skel;
	uint64_t gen = skel->bss->scxk_online.gen;
	struct scxk_cpumask added;
	struct scxk_topo *t;
	struct domain d;
	int ret = 0;

	if (gen == online_gen)
		return 0;
	online_gen = gen;
	if (scxk_topo_read(&t))
		return 0; /* mid-change: the next tick looks again */
	qos_apply(t);
	resolve_domain(t, cfg.primary, &d);
	scxk_cpumask_andnot(&added, &d.mask, &cur_domain.mask);
	if (skel->rodata->primary_all) {
		cur_domain.mask = d.mask; /* every CPU: nothing is laid out by it */
	} else if (!scxk_cpumask_empty(&added)) {
		scxk_info("a CPU of the primary domain came online: laying it out again");
		ret = SCXK_TICK_RESTART;
	}
	scxk_topo_free(t);
	return ret;
}

/* "-m auto" follows the power profile: a change restarts with the new domain. */
static int brisk_tick(struct scxk_run *run)
{
	struct domain d;
	int err;

	if ((err = follow_hotplug(run)))
		return err;
	if (strcmp(cfg.primary, "auto"))
		return 0;
	resolve_domain(run->topo, "auto", &d);
	if (strcmp(d.mode, cur_domain.mode)) {
		scxk_info("power profile changed: primary domain %s -> %s", cur_domain.mode,
			  d.mode);
		return SCXK_TICK_RESTART;
	}
	return 0;
}

static void brisk_destroy(struct scxk_run *run)
{
	qos_restore();
	scx_brisk__destroy(run->skel);
}

static const struct scxk_sched sched = {
	.name = "brisk",
	.cli = &cli,
	.validate = brisk_validate,
	.open = brisk_open,
	.configure = brisk_configure,
	.attached = brisk_attached,
	.tick = brisk_tick,
	.tick_ms = PROFILE_POLL_MS,
	.destroy = brisk_destroy,
	.stats = &stats,
};

int main(int argc, char **argv)
{
	return scxk_sched_main(&sched, argc, argv);
}
