// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_strata's loader: options, the layer config (config.c), the periodic
 * sizing loop (alloc.c) that hands cores to layers, the cgroup scan that
 * lets BPF match cgroup paths, and the stats.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include <scxkit/cpumask.h>
#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>

#include "alloc.h"
#include "config.h"
#include "intf.h"
#include "strata.skel.h"

#define MAX_SPECS	 32
#define CGROUP_ROOT	 "/sys/fs/cgroup"
#define CGROUP_MAX_DEPTH 32
/*
 * A CPU that a higher class (RT, deadline) held for more than this share
 * of an interval is left out of the sizing: a layer given only such CPUs
 * got the ext DL server's 5% of one CPU.
 */
#define HELD_SHARE   0.5
#define NSEC_PER_SEC 1000000000ULL

static struct {
	uint64_t slice_us;
	double interval;
	const char *example_path;
	bool run_example;
	bool print_and_exit;
	bool strict;
	uint64_t lo_fb_wait_us;
	double lo_fb_share;
	bool disable_antistall;
	uint64_t antistall_sec;
	bool disable_topology;
	const char *task_hint_map;
} opt = {
	.slice_us = 20000, /* SCX_SLICE_DFL, as scx_layered's -s */
	.interval = 0.1,
	.lo_fb_wait_us = 10000,
	.lo_fb_share = 0.05,
	.antistall_sec = 3,
};

static struct scxk_topo_data topo;	 /* as written for BPF, copied in configure */
static struct scxk_topo_data sized_topo; /* topo without the offline and held CPUs */
static const char *specs[MAX_SPECS];
static unsigned int nr_specs;
static struct strata_config config;

static int add_spec(const char *arg)
{
	if (nr_specs >= MAX_SPECS) {
		fprintf(stderr, "scx_strata: more than %d specs\n", MAX_SPECS);
		return -EINVAL;
	}
	specs[nr_specs++] = arg;
	return 0;
}

static struct scxk_opt opts[] = {
	{"slice-us", 's', "US", SCXK_OPT_U64, &opt.slice_us,
	 "default time slice of layers without slice_us", .min = 100, .max = 1000000,
	 .upstream = "-s --slice-us"},
	{"interval", 'i', "SECONDS", SCXK_OPT_DOUBLE, &opt.interval,
	 "layer sizing interval (0.01 to 10)", .max = 10, .upstream = "-i --interval"},
	{"example", 'e', "FILE", SCXK_OPT_STRING, &opt.example_path,
	 "write the documented example config to FILE and exit", .dfl = "none",
	 .upstream = "-e --example"},
	{"run-example", 0, NULL, SCXK_OPT_FLAG, &opt.run_example,
	 "run with the built-in example config", .upstream = "--run-example"},
	{"print-and-exit", 0, NULL, SCXK_OPT_FLAG, &opt.print_and_exit,
	 "print the expanded config (every default filled in) and exit",
	 .upstream = "--print-and-exit"},
	{"strict", 0, NULL, SCXK_OPT_FLAG, &opt.strict,
	 "refuse a config with unknown fields or fields ignored here (warnings otherwise)"},
	{"lo-fb-wait-us", 0, "US", SCXK_OPT_U64, &opt.lo_fb_wait_us,
	 "fallback queue wait after which it is served first", .max = 10000000,
	 .upstream = "--lo-fb-wait-us"},
	{"lo-fb-share", 0, "FRAC", SCXK_OPT_DOUBLE, &opt.lo_fb_share,
	 "CPU share guaranteed to the fallback queue (0 to 1)", .max = 1,
	 .upstream = "--lo-fb-share"},
	{"disable-antistall", 0, NULL, SCXK_OPT_FLAG, &opt.disable_antistall,
	 "never serve a long-waiting queue out of turn", .upstream = "--disable-antistall"},
	{"antistall-sec", 0, "SECONDS", SCXK_OPT_U64, &opt.antistall_sec,
	 "queue wait after which any CPU of its LLC serves it first", .min = 1, .max = 3600,
	 .upstream = "--antistall-sec"},
	{"disable-topology", 't', NULL, SCXK_OPT_FLAG, &opt.disable_topology,
	 "ignore the layers' nodes and llcs restrictions", .upstream = "-t --disable-topology",
	 .optval = true},
	/* scx_layered's options that mean nothing here (docs/upstream-compat.md) */
	{"max-exec-us", 'M', "US", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "no per-task execution cap beyond the layer's slice"},
	{"no-load-frac-limit", 'n', NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "layer sizing has no load-fraction limit to lift"},
	{"monitor-disable", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no stats thread to turn off; the socket answers on demand"},
	{"layer-preempt-weight-disable", 0, "FRAC", SCXK_OPT_DOUBLE, NULL, NULL,
	 .ignored = "preemption is per layer, never disabled by weight"},
	{"layer-growth-weight-disable", 0, "FRAC", SCXK_OPT_DOUBLE, NULL, NULL,
	 .ignored = "growth is per layer, never disabled by weight"},
	{"stats-columns", 0, "N", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "--stats prints one line per layer, not a table"},
	{"stats-no-llc", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "--stats has no per-LLC part"},
	{"allow-partial-core", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "layers are sized in CPUs, not whole cores"},
	{"local-llc-iteration", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "queues are always scanned from the local LLC outwards"},
	{"enable-gpu-affinitize", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "no GPU awareness"},
	{"gpu-affinitize-secs", 0, "SECONDS", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "no GPU awareness"},
	{"enable-gpu-support", 0, NULL, SCXK_OPT_FLAG, NULL, NULL, .ignored = "no GPU awareness"},
	{"gpu-kprobe-level", 0, "N", SCXK_OPT_U64, NULL, NULL, .ignored = "no GPU awareness"},
	{"enable-match-debug", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "matches are not traced; --print-and-exit shows the rules"},
	{"util-compensation", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "utilisation is measured, not compensated"},
	{"netdev-irq-balance", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "network IRQs are left where the kernel puts them"},
	{"disable-queued-wakeup", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "queued wakeups are the kernel's to use"},
	{"disable-percpu-kthread-preempt", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "per-CPU kthreads never preempt here"},
	{"percpu-kthread-preempt-all", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "per-CPU kthreads never preempt here"},
	{"layer-refresh-ms-avgruntime", 0, "MS", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "no AvgRuntime matcher to refresh"},
	{"task-hint-map", 0, "PATH", SCXK_OPT_STRING, &opt.task_hint_map,
	 "pin the task-hint map (HintEquals) at PATH, mode 0666; an existing one there is reused",
	 .upstream = "--task-hint-map"},
	{"hi-fb-thread-name", 0, "NAME", SCXK_OPT_STRING, NULL, NULL,
	 .ignored = "one fallback queue per LLC, no high-priority one"},
	{"virt-llc", 0, NULL, SCXK_OPT_FLAG, NULL, NULL, .parse = scxk_parse_virt_llc,
	 .optval = true, .ignored = "layers use the real LLCs"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_strata",
	.summary = "partitioning scheduler driven by a JSON config of layers (layered-like)",
	.examples =
		"  scx_strata f:/etc/scx/layers.json     layers from a file (\"file:\" works too)\n"
		"  scx_strata '[{\"name\":\"all\",\"matches\":[[]],\"kind\":{\"Open\":{}}}]'\n"
		"  scx_strata -e layers.json             write the documented example and exit\n"
		"  scx_strata --run-example --stats 1    run the example, print stats every "
		"second\n"
		"  scx_strata f:layers.json --print-and-exit   check a config, show its defaults\n",
	.opts = opts,
	.positional = add_spec,
	.args = "[SPEC...]",
	/*
	 * Modes (scxctl --mode, org.scx.Loader): the layers come from the config,
	 * so a mode only sets the default slice of layers without slice_us and
	 * the sizing interval. Auto is the defaults.
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"--slice-us", "10000", NULL},
			[SCXK_MODE_POWERSAVE] = (const char *const[]){"--interval", "2", NULL},
			[SCXK_MODE_LOWLATENCY] = (const char *const[]){"--slice-us", "5000",
								       "--interval", "0.1", NULL},
			[SCXK_MODE_SERVER] = (const char *const[]){"--slice-us", "40000", NULL},
		},
};

/* ---- loader state, shared with the stats thread under lock ---- */

struct layer_state {
	uint64_t prev_runtime;
	double util;
	unsigned int min_cpus, max_cpus, target;
	unsigned int nr_cpus;
	char cpu_list[256];
	int64_t nr_tasks;
};

static struct {
	pthread_mutex_t lock;
	struct layer_state layers[STRATA_MAX_LAYERS];
	struct strata_alloc_layer alloc[STRATA_MAX_LAYERS];
	uint8_t owner[SCXK_MAX_CPUS];
	struct timespec last;
	uint64_t prev_fb_runtime;
	unsigned int nr_cpus, open_cpus;
	double fb_util;
	unsigned int cg_matchers;
	struct strata_match_cfg *cg_match[STRATA_MAX_CGRP_MATCHERS];
	regex_t cg_re[STRATA_MAX_CGRP_MATCHERS]; /* compiled CgroupRegex patterns */
	bool cg_has_re[STRATA_MAX_CGRP_MATCHERS];
	bool cmd_join; /* some layer has a CmdJoin matcher: the rename hook is needed */
	uint64_t cg_scans;
	unsigned int nr_cgroups;
	uint64_t hotplug_gen;		   /* the BPF side's, when sized_topo was derived */
	uint64_t held_prev[SCXK_MAX_CPUS]; /* each CPU's held time at the last interval */
	bool held[SCXK_MAX_CPUS];	   /* held for more than HELD_SHARE of it */
	unsigned int nr_held;
} st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- config: parsed before anything touches the kernel ---- */

static int write_example(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(strata_example_config, f) < 0 || fclose(f)) {
		fprintf(stderr, "scx_strata: cannot write %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static bool uses_matcher(enum strata_match_kind kind)
{
	for (unsigned int l = 0; l < config.nr_layers; l++)
		for (unsigned int o = 0; o < config.layers[l].nr_ors; o++)
			for (unsigned int a = 0; a < config.layers[l].nr_ands[o]; a++)
				if (config.layers[l].m[o][a].kind == kind)
					return true;
	return false;
}

static int strata_validate(struct scxk_run *run)
{
	char err[STRATA_ERR_LEN];
	unsigned int i;

	if (opt.example_path) {
		if (write_example(opt.example_path))
			return -EIO;
		exit(0);
	}
	/* Describing the stats or reading another instance's needs no config. */
	if (run->common.help_stats || run->common.monitor_interval)
		return 0;
	if (opt.interval < 0.01) {
		fprintf(stderr, "scx_strata: --interval: %g s is below the 0.01 s minimum\n",
			opt.interval);
		return -EINVAL;
	}
	if (opt.run_example && nr_specs) {
		fprintf(stderr, "scx_strata: --run-example and layer specs exclude each other\n");
		return -EINVAL;
	}
	config.strict = opt.strict;
	if (opt.run_example &&
	    strata_config_add_json(&config, strata_example_config, "example", err, sizeof(err)))
		goto bad;
	for (i = 0; i < nr_specs; i++)
		if (strata_config_add_spec(&config, specs[i], err, sizeof(err)))
			goto bad;
	/*
	 * No spec at all: the system's layers, so that a start with no
	 * arguments (org.scx.Loader's StartScheduler, a mode switch from a
	 * GUI) runs what the administrator configured instead of failing.
	 */
	if (!opt.run_example && !nr_specs && !access(STRATA_DEFAULT_SPEC, F_OK)) {
		fprintf(stderr, "scx_strata: no spec given: layers from %s\n", STRATA_DEFAULT_SPEC);
		if (strata_config_add_spec(&config, "f:" STRATA_DEFAULT_SPEC, err, sizeof(err)))
			goto bad;
	}
	if (!opt.run_example && !nr_specs && !config.nr_layers) {
		fprintf(stderr,
			"scx_strata: no layer config: give a spec (inline JSON or f:PATH), "
			"--run-example, or put the layers in %s\n",
			STRATA_DEFAULT_SPEC);
		return -EINVAL;
	}
	if (strata_config_finish(&config, err, sizeof(err)))
		goto bad;
	for (i = 0; i < config.nr_warnings; i++)
		fprintf(stderr, "scx_strata: warning: %s\n", config.warnings[i]);
	if (!opt.task_hint_map && uses_matcher(STRATA_M_HINT))
		fprintf(stderr, "scx_strata: warning: HintEquals never matches without "
				"--task-hint-map PATH (as in scx_layered)\n");
	if (opt.print_and_exit) {
		json_t *j = strata_config_to_json(&config);

		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(j);
		exit(0);
	}
	return 0;
bad:
	fprintf(stderr, "scx_strata: %s\n", err);
	return -EINVAL;
}

/* ---- BPF setup ---- */

SCXK_SKEL_OPEN(strata_open, scx_strata)

/* Flatten the matchers: one list, layer by layer, AND block by AND block. */
static int fill_matchers(struct scx_strata *skel)
{
	unsigned int n = 0, l, o, a, cg = 0;
	int err;

	for (l = 0; l < config.nr_layers; l++) {
		const struct strata_layer_cfg *lc = &config.layers[l];

		for (o = 0; o < lc->nr_ors; o++) {
			unsigned int nr_ands = lc->nr_ands[o] ? lc->nr_ands[o] : 1;

			for (a = 0; a < nr_ands; a++) {
				struct strata_match *m =
					(struct strata_match *)&skel->rodata->flat[n++];

				m->layer = (u8)l;
				m->end_block = a + 1 == nr_ands;
				if (!lc->nr_ands[o]) {
					m->kind = STRATA_M_ALWAYS;
					continue;
				}
				const struct strata_match_cfg *mc = &lc->m[o][a];

				m->kind = (u8)mc->kind;
				m->val = (s32)mc->val;
				m->val2 = (s32)mc->val2;
				if (mc->kind == STRATA_M_AVG_RUNTIME)
					skel->rodata->match_runtime = true;
				if (mc->kind == STRATA_M_NS || mc->kind == STRATA_M_NSPID)
					skel->rodata->match_ns = true;
				if (mc->kind == STRATA_M_CMD_JOIN)
					st.cmd_join = true;
				if (mc->kind == STRATA_M_CGROUP) {
					m->cg_bit = (u8)cg;
					if (mc->cg == STRATA_CG_REGEX && !st.cg_has_re[cg]) {
						/* validated by the config parser */
						if (regcomp(&st.cg_re[cg], mc->str,
							    STRATA_CG_REGEX_FLAGS))
							return scxk_err(
								-EINVAL,
								"cannot compile regex \"%s\"",
								mc->str);
						st.cg_has_re[cg] = true;
					}
					st.cg_match[cg++] = (struct strata_match_cfg *)mc;
				} else {
					snprintf(m->str, sizeof(m->str), "%s", mc->str);
				}
			}
		}
	}
	skel->rodata->nr_flat = n;
	st.cg_matchers = cg;
	if (opt.task_hint_map) {
		/* libbpf pins it at load, or reuses the map already pinned there */
		if ((err = bpf_map__set_pin_path(skel->maps.task_hints, opt.task_hint_map)))
			return scxk_err(err, "cannot pin the task-hint map at %s: %s",
					opt.task_hint_map, strerror(-err));
		skel->rodata->match_hint = true;
	}
	/* the rename hook costs every rename of every task: only when asked for */
	bpf_program__set_autoattach(skel->progs.strata_task_rename, false);
	bpf_program__set_autoload(skel->progs.strata_task_rename, st.cmd_join);
	return 0;
}

static void layer_alloc_input(unsigned int nr_cpus)
{
	for (unsigned int l = 0; l < config.nr_layers; l++) {
		const struct strata_layer_cfg *lc = &config.layers[l];
		struct strata_alloc_layer *a = &st.alloc[l];

		a->kind = lc->kind;
		a->weight = lc->weight;
		a->growth = lc->growth;
		strata_layer_bounds(lc, nr_cpus, &a->min_cpus, &a->max_cpus);
		a->nr_nodes = opt.disable_topology ? 0 : lc->nr_nodes;
		a->nr_llcs = opt.disable_topology ? 0 : lc->nr_llcs;
		memcpy(a->nodes, lc->nodes, sizeof(a->nodes));
		memcpy(a->llcs, lc->llcs, sizeof(a->llcs));
		st.layers[l].min_cpus = a->min_cpus;
		st.layers[l].max_cpus = a->max_cpus;
	}
}

/*
 * Derive sized_topo from topo, the BPF side's cpu_online[] (the hotplug
 * callbacks run before sysfs shows a change) and st.held: the allocator
 * takes a CPU as present when its LLC mask has it, and leaves the others
 * unowned (open to the shared layers). A CPU offline at load is not in topo
 * and stays unowned. If every online CPU is held, none is left out for it.
 * Returns how many CPUs the layers are sized over; caller holds st.lock.
 */
static unsigned int derive_sized_topo(const u8 *online)
{
	unsigned int cpu, nr = 0, pass;

	for (pass = 0; pass < 2 && !nr; pass++) {
		sized_topo = topo;
		for (cpu = 0; cpu < topo.nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++) {
			u64 *w = &sized_topo.llc_mask[topo.cpus[cpu].llc % SCXK_MAX_LLCS][cpu / 64];

			if (!online[cpu] || (!pass && st.held[cpu]))
				*w &= ~(1ULL << (cpu % 64));
			nr += (*w >> (cpu % 64)) & 1;
		}
	}
	return nr;
}

/* Publish st.owner to BPF; caller holds st.lock. */
static void publish(struct scx_strata *skel, const struct scxk_topo_data *t)
{
	unsigned int counts[STRATA_MAX_LAYERS] = {0}, l, cpu;
	bool changed = false;

	for (cpu = 0; cpu < SCXK_MAX_CPUS; cpu++) {
		if (st.owner[cpu] < STRATA_MAX_LAYERS)
			counts[st.owner[cpu]]++;
		if (skel->bss->cpu_owner[cpu] != st.owner[cpu]) {
			skel->bss->cpu_owner[cpu] = st.owner[cpu];
			changed = true;
		}
	}
	for (l = 0; l < STRATA_MAX_LAYERS; l++) {
		struct scxk_cpumask m = {0};

		skel->bss->layer_nr_cpus[l] = counts[l];
		st.layers[l].nr_cpus = counts[l];
		for (cpu = 0; cpu < t->nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++)
			if (st.owner[cpu] == l)
				scxk_cpumask_set(&m, (int)cpu);
		if (scxk_cpumask_format_list(&m, st.layers[l].cpu_list,
					     sizeof(st.layers[l].cpu_list)) < 0)
			snprintf(st.layers[l].cpu_list, sizeof(st.layers[l].cpu_list), "?");
	}
	skel->bss->fully_allocated = st.open_cpus == 0;
	if (changed) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		skel->bss->alloc_gen++;
	}
}

static int strata_configure(struct scxk_run *run)
{
	struct scx_strata *skel = run->skel;
	const struct scxk_topo_data *t = &sized_topo;
	unsigned int l, cpu, nr = 0, target[STRATA_MAX_LAYERS] = {0};
	int err;
	struct bpf_map *tmap = bpf_object__find_map_by_name(run->obj, ".data.scxk_topo");
	const void *tdata;
	size_t tsize = 0;

	if (!tmap || !(tdata = bpf_map__initial_value(tmap, &tsize)) || tsize < sizeof(topo))
		return scxk_err(-EINVAL, "topology section missing from the BPF object");
	memcpy(&topo, tdata, sizeof(topo));

	for (l = 0; l < config.nr_layers; l++) {
		const struct strata_layer_cfg *lc = &config.layers[l];
		struct strata_layer_bpf *b = (struct strata_layer_bpf *)&skel->rodata->layers[l];

		b->kind = lc->kind;
		b->slice_ns = lc->slice_us * 1000;
		b->min_exec_ns = lc->min_exec_us * 1000;
		b->weight = lc->weight;
		b->yield_ignore_pct = (u32)lround(lc->yield_ignore * 100);
		b->perf = lc->perf;
		b->placement = lc->placement;
		b->fifo = lc->fifo;
		b->preempt = lc->preempt;
		b->preempt_first = lc->preempt_first;
		b->exclusive = lc->exclusive;
		b->protect = lc->protect;
		b->idle_confined = lc->idle_confined;
	}
	skel->rodata->nr_layers = config.nr_layers;
	if ((err = fill_matchers(skel)))
		return err;
	skel->rodata->slice_ns = opt.slice_us * 1000;
	skel->rodata->lo_fb_wait_ns = opt.lo_fb_wait_us * 1000;
	skel->rodata->antistall_ns = opt.disable_antistall ? 0 : opt.antistall_sec * 1000000000ULL;
	/* The topology read at start seeds what the hotplug callbacks keep. */
	for (cpu = 0; cpu < topo.nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++) {
		u64 w = topo.llc_mask[topo.cpus[cpu].llc % SCXK_MAX_LLCS][cpu / 64];

		skel->bss->cpu_online[cpu] = (w >> (cpu % 64)) & 1;
		nr += skel->bss->cpu_online[cpu];
	}
	skel->bss->nr_online_cpus = nr ? nr : 1;

	/* The first allocation: every layer at its minimum until utilisation is known. */
	pthread_mutex_lock(&st.lock);
	/* A new object counts from zero, and nothing is known held yet. */
	st.hotplug_gen = 0;
	memset(st.held_prev, 0, sizeof(st.held_prev));
	memset(st.held, 0, sizeof(st.held));
	st.nr_held = 0;
	nr = derive_sized_topo(skel->bss->cpu_online);
	st.nr_cpus = nr;
	layer_alloc_input(nr);
	memset(st.owner, STRATA_OWNER_OPEN, sizeof(st.owner));
	for (l = 0; l < config.nr_layers; l++)
		target[l] = st.layers[l].min_cpus;
	st.open_cpus = strata_alloc(t, st.alloc, config.nr_layers, target, st.owner);
	memset(skel->bss->cpu_owner, 0, sizeof(skel->bss->cpu_owner));
	publish(skel, t);
	skel->bss->alloc_gen = 1;
	for (l = 0; l < STRATA_MAX_LAYERS; l++)
		st.layers[l].prev_runtime = 0;
	st.prev_fb_runtime = 0;
	clock_gettime(CLOCK_MONOTONIC, &st.last);
	pthread_mutex_unlock(&st.lock);
	return 0;
}

/* ---- cgroup paths -> matcher bits, for the BPF side ---- */

static uint64_t cg_bits_of(const char *rel)
{
	uint64_t bits = 0;

	for (unsigned int i = 0; i < st.cg_matchers; i++)
		if (strata_cgroup_match_re(st.cg_match[i], &st.cg_re[i], rel))
			bits |= 1ULL << i;
	return bits;
}

static uint64_t *seen_ids;
static size_t nr_seen, seen_cap;

static void note_seen(uint64_t id)
{
	if (nr_seen == seen_cap) {
		size_t cap = seen_cap ? seen_cap * 2 : 256;
		uint64_t *n = realloc(seen_ids, cap * sizeof(*n));

		if (!n)
			return;
		seen_ids = n;
		seen_cap = cap;
	}
	seen_ids[nr_seen++] = id;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Drop map entries of cgroups the scan did not see: they were removed. */
static void prune_cgroups(int map_fd)
{
	uint64_t key, next;
	bool more;

	qsort(seen_ids, nr_seen, sizeof(*seen_ids), cmp_u64);
	if (bpf_map_get_next_key(map_fd, NULL, &key))
		return;
	do {
		more = !bpf_map_get_next_key(map_fd, &key, &next);
		if (!bsearch(&key, seen_ids, nr_seen, sizeof(*seen_ids), cmp_u64))
			bpf_map_delete_elem(map_fd, &key);
		key = next;
	} while (more);
}

/* Walk the cgroup tree below @dir; @rel is "a/b/" relative to the root. */
static int scan_dir(int map_fd, const char *dir, const char *rel, int depth, bool *changed)
{
	struct dirent *de;
	struct stat sb;
	uint64_t id, bits, old;
	DIR *d;

	if (depth > CGROUP_MAX_DEPTH || stat(dir, &sb))
		return 0;
	id = sb.st_ino; /* the cgroup id is the cgroup2 inode number */
	bits = cg_bits_of(rel);
	if (bpf_map_lookup_elem(map_fd, &id, &old) || old != bits) {
		if (!bpf_map_update_elem(map_fd, &id, &bits, BPF_ANY))
			*changed = true;
	}
	st.nr_cgroups++;
	note_seen(id);
	if (!(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		char sub[4096], subrel[4096];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= (int)sizeof(sub) ||
		    snprintf(subrel, sizeof(subrel), "%s%s/", rel, de->d_name) >=
			    (int)sizeof(subrel))
			continue;
		scan_dir(map_fd, sub, subrel, depth + 1, changed);
	}
	closedir(d);
	return 0;
}

static void scan_cgroups(struct scx_strata *skel)
{
	int fd = bpf_map__fd(skel->maps.cgrp_bits);
	bool changed = false;

	if (!st.cg_matchers)
		return;
	st.nr_cgroups = 0;
	nr_seen = 0;
	scan_dir(fd, CGROUP_ROOT, "", 0, &changed);
	st.cg_scans++;
	prune_cgroups(fd);
	if (changed)
		__atomic_add_fetch(&skel->bss->cg_gen, 1, __ATOMIC_SEQ_CST);
}

static int strata_attached(struct scxk_run *run)
{
	struct scx_strata *skel = run->skel;

	scan_cgroups(skel);
	/* any task may set its own hint, as with scx_layered */
	if (opt.task_hint_map && chmod(opt.task_hint_map, 0666))
		scxk_warn("cannot make %s writable by all: %s", opt.task_hint_map, strerror(errno));
	/* after the scheduler: join commands land in task contexts, which exist from now on */
	if (st.cmd_join && !skel->links.strata_task_rename) {
		skel->links.strata_task_rename =
			bpf_program__attach(skel->progs.strata_task_rename);
		if (!skel->links.strata_task_rename)
			return scxk_err(-errno,
					"cannot attach the task_rename tracepoint that CmdJoin "
					"needs: %s",
					strerror(errno));
	}
	return 0;
}

/* ---- the sizing loop ---- */

static int read_lstats(struct scx_strata *skel, struct strata_lstats *sum)
{
	int nr = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.lstats);
	struct strata_lstats *vals;

	if (nr <= 0)
		return -EINVAL;
	vals = calloc((size_t)nr, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t l = 0; l < STRATA_MAX_LAYERS; l++) {
		memset(&sum[l], 0, sizeof(sum[l]));
		if (bpf_map_lookup_elem(fd, &l, vals))
			continue;
		for (int c = 0; c < nr; c++) {
			for (int i = 0; i < STRATA_NR_LSTATS; i++)
				sum[l].cnt[i] += vals[c].cnt[i];
			for (int i = 0; i < STRATA_LAT_BUCKETS; i++)
				sum[l].lat[i] += vals[c].lat[i];
		}
	}
	free(vals);
	return 0;
}

/*
 * Which online CPUs a higher class held for more than HELD_SHARE of the
 * last @dt seconds, from the BPF side's held time (a spell still open at
 * @now counts up to it). Returns whether that set changed; caller holds
 * st.lock.
 */
static bool update_held(struct scx_strata *skel, const struct timespec *now, double dt)
{
	uint64_t now_ns = (uint64_t)now->tv_sec * NSEC_PER_SEC + (uint64_t)now->tv_nsec;
	unsigned int cpu, nr = 0;
	bool changed = false;

	for (cpu = 0; cpu < topo.nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++) {
		/* Total first: a spell closing between the two reads is counted next time. */
		uint64_t total = skel->bss->cpu_held_ns[cpu];
		uint64_t at = skel->bss->cpu_released_at[cpu], d;
		bool held;

		if (at && now_ns > at)
			total += now_ns - at;
		d = total > st.held_prev[cpu] ? total - st.held_prev[cpu] : 0;
		st.held_prev[cpu] = total;
		held = skel->bss->cpu_online[cpu] && d > HELD_SHARE * dt * NSEC_PER_SEC;
		changed |= held != st.held[cpu];
		st.held[cpu] = held;
		nr += held;
	}
	st.nr_held = nr;
	return changed;
}

/*
 * The CPUs to size over changed (hotplug, or a higher class took or left
 * one): derive them again and re-apply each layer's bounds for the new
 * count; caller holds st.lock.
 */
static void resize_cpus(struct scx_strata *skel)
{
	st.hotplug_gen = skel->bss->hotplug_gen;
	st.nr_cpus = derive_sized_topo(skel->bss->cpu_online);
	layer_alloc_input(st.nr_cpus);
}

/*
 * A CPU went on/offline (the BPF side bumped hotplug_gen): at once, not at
 * the next interval, size the layers over the CPUs online now, each at its
 * last target within the bounds for the new count.
 */
static void resize_after_hotplug(struct scx_strata *skel)
{
	unsigned int target[STRATA_MAX_LAYERS] = {0}, l;

	pthread_mutex_lock(&st.lock);
	resize_cpus(skel);
	for (l = 0; l < config.nr_layers; l++) {
		const struct layer_state *ls = &st.layers[l];

		if (config.layers[l].kind == STRATA_OPEN)
			continue;
		target[l] = ls->target < ls->min_cpus ? ls->min_cpus : ls->target;
		if (target[l] > ls->max_cpus)
			target[l] = ls->max_cpus;
	}
	st.open_cpus = strata_alloc(&sized_topo, st.alloc, config.nr_layers, target, st.owner);
	publish(skel, &sized_topo);
	pthread_mutex_unlock(&st.lock);
	scxk_info("CPUs online: %u, sized over %u; layers re-sized without a restart",
		  skel->bss->nr_online_cpus, st.nr_cpus);
}

static int strata_tick(struct scxk_run *run)
{
	struct scx_strata *skel = run->skel;
	const struct scxk_topo_data *t = &sized_topo;
	struct strata_lstats sum[STRATA_MAX_LAYERS];
	uint64_t ctr[SCXK_MAX_COUNTERS];
	unsigned int target[STRATA_MAX_LAYERS] = {0}, l;
	struct timespec now;
	double dt;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = (now.tv_sec - st.last.tv_sec) + (now.tv_nsec - st.last.tv_nsec) / 1e9;
	if (skel->bss->hotplug_gen != st.hotplug_gen)
		resize_after_hotplug(skel);
	/*
	 * Ticks come every 50 ms or a little later: act on the one nearest the
	 * interval. (Half the interval let every tick through at the default
	 * 0.1 s, which sized layers twice per interval.)
	 */
	if (dt < opt.interval - 0.025)
		return 0;
	if ((err = read_lstats(skel, sum)) || (err = scxk_counters_read(run->obj, ctr)))
		return err;
	scan_cgroups(skel);

	pthread_mutex_lock(&st.lock);
	st.last = now;
	if (update_held(skel, &now, dt))
		resize_cpus(skel);
	for (l = 0; l < config.nr_layers; l++) {
		struct layer_state *ls = &st.layers[l];
		const struct strata_layer_cfg *lc = &config.layers[l];
		uint64_t rt = sum[l].cnt[STRATA_LS_RUNTIME_NS];

		ls->util = rt >= ls->prev_runtime ? (rt - ls->prev_runtime) / 1e9 / dt : 0;
		ls->prev_runtime = rt;
		ls->nr_tasks = skel->bss->layer_nr_tasks[l];
		if (lc->kind != STRATA_OPEN)
			target[l] =
				strata_target_cpus(ls->util, ls->nr_cpus, lc->util_lo, lc->util_hi,
						   ls->min_cpus, ls->max_cpus, ls->nr_tasks > 0);
		ls->target = target[l];
	}
	st.fb_util = ctr[STRATA_STAT_FB_RUNTIME] >= st.prev_fb_runtime
			     ? (ctr[STRATA_STAT_FB_RUNTIME] - st.prev_fb_runtime) / 1e9 / dt
			     : 0;
	st.prev_fb_runtime = ctr[STRATA_STAT_FB_RUNTIME];
	/* Below its guaranteed share of the machine: serve the fallback first. */
	skel->bss->fb_boost = st.fb_util < opt.lo_fb_share * st.nr_cpus;
	st.open_cpus = strata_alloc(t, st.alloc, config.nr_layers, target, st.owner);
	publish(skel, t);
	pthread_mutex_unlock(&st.lock);
	return 0;
}

static void strata_destroy(struct scxk_run *run)
{
	scx_strata__destroy(run->skel);
}

/* ---- stats ---- */

static const struct scxk_stat_desc stat_fields[] = {STRATA_STATS(SCXK_STAT_DESC)};

#define STRATA_LSTAT_NAME(id, name, help) [(id)] = (name),
static const char *const lstat_names[STRATA_NR_LSTATS] = {STRATA_LSTATS(STRATA_LSTAT_NAME)};

/* The struct of "layers": what layers_json() sends for each layer, declared for stats_meta. */
#define LAYER_FIELD(name, type, unit, help)                                                        \
	{                                                                                          \
		name, SCXK_STAT_##type, help, unit, SCXK_STAT_KIND_VAL, 0                          \
	}
/* runtime_ns feeds util and is not sent */
#define LAYER_LSTAT(id, name, help)                                                                \
	{name,                                                                                     \
	 SCXK_STAT_U64,                                                                            \
	 help " (since the previous read)",                                                        \
	 "",                                                                                       \
	 (id) == STRATA_LS_RUNTIME_NS ? SCXK_STAT_KIND_RAW : SCXK_STAT_KIND_VAL,                   \
	 0},
static const struct scxk_stat_desc layer_fields[] = {
	LAYER_FIELD("tasks", U64, "", "tasks in the layer"),
	LAYER_FIELD("util", FLOAT, "CPUs", "CPU time run over the last interval"),
	LAYER_FIELD("cpus", U64, "", "CPUs the layer holds"),
	LAYER_FIELD("cpu_list", STRING, "", "those CPUs, as a list"),
	LAYER_FIELD("target", U64, "", "CPUs the sizing wants for it"),
	LAYER_FIELD("min_cpus", U64, "", "its lower bound"),
	LAYER_FIELD("max_cpus", U64, "", "its upper bound"),
	/* clang-format off */
	STRATA_LSTATS(LAYER_LSTAT)
	/* clang-format on */
	LAYER_FIELD("lat_hist", ARRAY, "u64",
		    "run-queue latency since the previous read: bucket b counts waits in "
		    "[2^(b-1), 2^b) us"),
};

static const struct scxk_stats_struct layer_struct = {
	.name = "LayerStats",
	.desc = "one layer of the config",
	.fields = layer_fields,
	.nr_fields = sizeof(layer_fields) / sizeof(layer_fields[0]),
	.om_prefix = "layer_",
	.om_label = "layer_name",
};

/* "layers": one object per layer; its counters are deltas since this client's previous read. */
static json_t *layers_json(const struct strata_lstats *ls, struct strata_lstats *prev)
{
	json_t *layers = json_object();
	int i;

	for (unsigned int l = 0; l < config.nr_layers; l++) {
		const struct layer_state *s = &st.layers[l];
		json_t *lj = json_object(), *hist = json_array();

		json_object_set_new(lj, "tasks", json_integer(s->nr_tasks));
		json_object_set_new(lj, "util", json_real(round(s->util * 1000) / 1000));
		json_object_set_new(lj, "cpus", json_integer(s->nr_cpus));
		json_object_set_new(lj, "cpu_list", json_string(s->cpu_list));
		json_object_set_new(lj, "target", json_integer(s->target));
		json_object_set_new(lj, "min_cpus", json_integer(s->min_cpus));
		json_object_set_new(lj, "max_cpus", json_integer(s->max_cpus));
		for (i = 0; i < STRATA_NR_LSTATS; i++)
			if (i != STRATA_LS_RUNTIME_NS)
				json_object_set_new(lj, lstat_names[i],
						    json_integer(ls[l].cnt[i] - prev[l].cnt[i]));
		for (i = 0; i < STRATA_LAT_BUCKETS; i++)
			json_array_append_new(hist, json_integer(ls[l].lat[i] - prev[l].lat[i]));
		json_object_set_new(lj, "lat_hist", hist);
		json_object_set_new(layers, config.layers[l].name, lj);
	}
	return layers;
}

/* r->state: the layer counters at this client's previous read. */
static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	struct strata_lstats ls[STRATA_MAX_LAYERS], *prev = r->state;
	int err;

	if ((err = read_lstats(run->skel, ls)))
		return err;
	pthread_mutex_lock(&st.lock);
	scxk_stats_set_u64(r, STRATA_NR_LAYERS, config.nr_layers);
	scxk_stats_set_u64(r, STRATA_OPEN_CPUS, st.open_cpus);
	scxk_stats_set_u64(r, STRATA_HELD_CPUS, st.nr_held);
	scxk_stats_set_real(r, STRATA_FB_UTIL, st.fb_util);
	scxk_stats_set_u64(r, STRATA_CGROUPS, st.nr_cgroups);
	scxk_stats_set(r, STRATA_LAYERS, layers_json(ls, prev));
	pthread_mutex_unlock(&st.lock);
	memcpy(prev, ls, sizeof(ls));
	return 0;
}

static const struct scxk_sched_stats stats = {
	.name = "Metrics",
	.desc = "scx_strata: system counters and one object per layer",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.state_size = sizeof(struct strata_lstats) * STRATA_MAX_LAYERS,
	.collect = stats_collect,
	.subs = &layer_struct,
	.nr_subs = 1,
};

static struct scxk_sched sched = {
	.name = "strata",
	.cli = &cli,
	.validate = strata_validate,
	.open = strata_open,
	.configure = strata_configure,
	.attached = strata_attached,
	.tick = strata_tick,
	.tick_ms = 100,
	.destroy = strata_destroy,
	.stats = &stats,
};

int main(int argc, char **argv)
{
	/*
	 * --interval is only known after parsing: tick at the life cycle's finest
	 * poll (50 ms) and let strata_tick() wait for the interval.
	 */
	sched.tick_ms = 50;
	return scxk_sched_main(&sched, argc, argv);
}
