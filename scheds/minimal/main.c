// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_minimal's loader: its options, its stats, and the hooks the shared
 * life cycle (libscxkit, scxk_sched_main) calls. Copy this file with the
 * rest of the folder to start a new scheduler (tools/new-scheduler).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>

#include "intf.h"
#include "minimal.skel.h"

static struct {
	bool fifo;
	uint64_t slice_us;
} cfg = {
	.slice_us = 20000, /* the kernel's default slice, SCX_SLICE_DFL */
};

static struct scxk_opt opts[] = {
	{ "fifo", 'f', NULL, SCXK_OPT_FLAG, &cfg.fifo,
	  "first-come first-served instead of weighted virtual time" },
	{ "slice-us", 's', "US", SCXK_OPT_U64, &cfg.slice_us, "time slice in microseconds",
	  .min = 100, .max = 1000000 },
	{ 0 },
};

static const struct scxk_cli cli = {
	.prog = "scx_minimal",
	.summary = "The template scheduler: weighted vtime (or FIFO) on one shared queue, "
		   "idle-core-aware CPU selection.",
	.examples = "  scx_minimal                 weighted vtime, 20 ms slices\n"
		    "  scx_minimal --fifo -s 5000  FIFO with 5 ms slices\n"
		    "  scx_minimal --monitor 1     print a running instance's stats every second\n",
	.opts = opts,
};

/* ---- stats: counters as deltas since this client's previous read ---- */

static struct scxk_run *the_run;

static const struct scxk_stat_desc stat_fields[] = {
	{ "local", SCXK_STAT_U64, "tasks placed directly on an idle CPU" },
	{ "global", SCXK_STAT_U64, "tasks that went through the shared queue" },
	{ "kicks", SCXK_STAT_U64, "idle CPUs woken to take queued work" },
	{ "hotplug", SCXK_STAT_U64, "CPUs gone offline or online, handled without a restart" },
	{ "local_pct", SCXK_STAT_FLOAT, "share of placements that found an idle CPU (%)" },
	{ "fifo", SCXK_STAT_U64, "1 in --fifo mode" },
};

static void *stats_open(void *arg)
{
	(void)arg;
	return calloc(1, sizeof(uint64_t) * SCXK_MAX_COUNTERS);
}

static void stats_close(void *state, void *arg)
{
	(void)arg;
	free(state);
}

static int stats_collect(json_t *out, void *state, void *arg)
{
	uint64_t now[SCXK_MAX_COUNTERS], *prev = state, d[MINIMAL_NR_STATS];
	int err, i;

	(void)arg;
	if ((err = scxk_counters_read(the_run->obj, now)))
		return err;
	for (i = 0; i < MINIMAL_NR_STATS; i++) {
		d[i] = now[i] - prev[i];
		prev[i] = now[i];
	}
	json_object_set_new(out, "local", json_integer(d[MINIMAL_STAT_LOCAL]));
	json_object_set_new(out, "global", json_integer(d[MINIMAL_STAT_GLOBAL]));
	json_object_set_new(out, "kicks", json_integer(d[MINIMAL_STAT_KICKS]));
	json_object_set_new(out, "hotplug", json_integer(d[MINIMAL_STAT_HOTPLUG]));
	json_object_set_new(out, "local_pct",
			    json_real(d[MINIMAL_STAT_LOCAL] + d[MINIMAL_STAT_GLOBAL]
					      ? 100.0 * d[MINIMAL_STAT_LOCAL] /
							(d[MINIMAL_STAT_LOCAL] + d[MINIMAL_STAT_GLOBAL])
					      : 0.0));
	json_object_set_new(out, "fifo", json_integer(cfg.fifo));
	return 0;
}

static const struct scxk_stats_ops stats = {
	.name = "Metrics",
	.desc = "scx_minimal",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.open = stats_open,
	.close = stats_close,
	.collect = stats_collect,
};

/* ---- life cycle hooks ---- */

SCXK_SKEL_OPEN(minimal_open, scx_minimal, the_run)

static int minimal_configure(struct scxk_run *run)
{
	struct scx_minimal *skel = run->skel;

	skel->rodata->fifo_sched = cfg.fifo;
	skel->rodata->slice_ns = cfg.slice_us * 1000;
	return 0;
}

static void minimal_destroy(struct scxk_run *run)
{
	scx_minimal__destroy(run->skel);
}

static const struct scxk_sched sched = {
	.name = "minimal",
	.cli = &cli,
	.open = minimal_open,
	.configure = minimal_configure,
	.destroy = minimal_destroy,
	.stats = &stats,
};

int main(int argc, char **argv)
{
	return scxk_sched_main(&sched, argc, argv);
}
