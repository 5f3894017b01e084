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
	{"fifo", 'f', NULL, SCXK_OPT_FLAG, &cfg.fifo,
	 "first-come first-served instead of weighted virtual time", .upstream = "-f"},
	{"slice-us", 's', "US", SCXK_OPT_U64, &cfg.slice_us, "time slice in microseconds",
	 .min = 100, .max = 1000000},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_minimal",
	.summary = "The template scheduler: weighted vtime (or FIFO) on one shared queue, "
		   "idle-core-aware CPU selection.",
	.examples = "  scx_minimal                 weighted vtime, 20 ms slices\n"
		    "  scx_minimal --fifo -s 5000  FIFO with 5 ms slices\n"
		    "  scx_minimal --monitor 1     print a running instance's stats every second\n",
	.opts = opts,
	/*
	 * Modes (scxctl --mode, org.scx.Loader): the template has one knob, the
	 * slice; shorter for latency, longer (fewer switches) for servers and
	 * power. Auto is the defaults.
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"--slice-us", "10000", NULL},
			[SCXK_MODE_POWERSAVE] = (const char *const[]){"--slice-us", "40000", NULL},
			[SCXK_MODE_LOWLATENCY] = (const char *const[]){"--slice-us", "5000", NULL},
			[SCXK_MODE_SERVER] = (const char *const[]){"--slice-us", "40000", NULL},
		},
};

/* ---- stats: the counters are served as deltas by libscxkit; the rest here ---- */

static const struct scxk_stat_desc stat_fields[] = {MINIMAL_STATS(SCXK_STAT_DESC)};

static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	uint64_t local = r->delta[MINIMAL_STAT_LOCAL];
	uint64_t placed = local + r->delta[MINIMAL_STAT_GLOBAL];

	(void)run;
	scxk_stats_set_real(r, MINIMAL_LOCAL_PCT, placed ? 100.0 * local / placed : 0.0);
	scxk_stats_set_u64(r, MINIMAL_FIFO, cfg.fifo);
	return 0;
}

static const struct scxk_sched_stats stats = {
	.name = "Metrics",
	.desc = "scx_minimal",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.collect = stats_collect,
};

/* ---- life cycle hooks ---- */

SCXK_SKEL_OPEN(minimal_open, scx_minimal)

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
