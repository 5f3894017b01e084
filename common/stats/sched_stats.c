// SPDX-License-Identifier: GPL-2.0-only
/*
 * A scheduler's stats on the scx_stats socket: the glue between its table
 * (struct scxk_sched_stats, declared once in its intf.h) and the server of
 * stats.c. Here the BPF counters are summed, each client keeps its previous
 * read so that CNT fields are deltas, and the scheduler's collect() is
 * called for the values only it knows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>

struct scxk_sched_stats_server {
	struct scxk_stats_ops ops;
	struct scxk_run *run;
	bool has_counters;
	struct scxk_stats_server *srv;
};

/* One connection: the counters at its previous read, and the scheduler's state. */
struct client {
	uint64_t prev[SCXK_MAX_COUNTERS];
	void *state;
};

static void client_close(void *state, void *arg)
{
	struct client *c = state;

	(void)arg;
	if (c)
		free(c->state);
	free(c);
}

static void *client_open(void *arg)
{
	const struct scxk_sched_stats_server *g = arg;
	size_t size = g->run->sched->stats->state_size;
	struct client *c = calloc(1, sizeof(*c));

	if (c && size && !(c->state = calloc(1, size))) {
		free(c);
		c = NULL;
	}
	return c;
}

static int collect(json_t *out, void *state, void *arg)
{
	const struct scxk_sched_stats_server *g = arg;
	const struct scxk_sched_stats *st = g->run->sched->stats;
	uint64_t now[SCXK_MAX_COUNTERS] = {0}, delta[SCXK_MAX_COUNTERS];
	struct client *c = state;
	struct scxk_stats_read r = {
		.out = out,
		.delta = delta,
		.total = now,
		.state = c->state,
		.fields = st->fields,
		.nr_fields = st->nr_fields,
	};
	size_t i;
	int err;

	if (g->has_counters && (err = scxk_counters_read(g->run->obj, now)))
		return err;
	for (i = 0; i < SCXK_MAX_COUNTERS; i++) {
		delta[i] = now[i] - c->prev[i];
		c->prev[i] = now[i];
	}
	for (i = 0; i < st->nr_fields; i++) {
		const struct scxk_stat_desc *f = &st->fields[i];

		if (f->kind == SCXK_STAT_KIND_CNT || f->kind == SCXK_STAT_KIND_TOT)
			json_object_set_new(out, f->name,
					    json_integer((json_int_t)(f->kind == SCXK_STAT_KIND_CNT
									      ? delta[f->id]
									      : now[f->id])));
	}
	return st->collect ? st->collect(g->run, &r) : 0;
}

/* The table's own enum counts, for the check: each kind's ids are 0..n-1. */
static void count_ids(const struct scxk_sched_stats *st, unsigned int *nr_counters,
		      unsigned int *nr_values)
{
	*nr_counters = *nr_values = 0;
	for (size_t i = 0; i < st->nr_fields; i++) {
		if (scxk_stat_is_counter(&st->fields[i]))
			(*nr_counters)++;
		else
			(*nr_values)++;
	}
}

/* What the socket server and --help-stats see of @st. */
static struct scxk_stats_ops ops_of(const struct scxk_sched_stats *st)
{
	return (struct scxk_stats_ops){
		.name = st->name,
		.desc = st->desc,
		.fields = st->fields,
		.nr_fields = st->nr_fields,
		.subs = st->subs,
		.nr_subs = st->nr_subs,
		.targets = st->targets,
		.nr_targets = st->nr_targets,
	};
}

int scxk_sched_stats_start(struct scxk_run *run, struct scxk_sched_stats_server **out)
{
	const struct scxk_sched_stats *st = run->sched->stats;
	struct scxk_sched_stats_server *g;
	unsigned int nr_counters, nr_values;
	const char *why;
	int err, bad;

	count_ids(st, &nr_counters, &nr_values);
	if (scxk_stats_check_fields(st->fields, st->nr_fields, nr_counters, nr_values, &why, &bad))
		return scxk_err(-EINVAL, "the stats table is broken: %s (field %d, \"%s\")", why,
				bad, bad >= 0 ? st->fields[bad].name : "");
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->run = run;
	g->has_counters = nr_counters > 0;
	g->ops = ops_of(st);
	g->ops.open = client_open;
	g->ops.close = client_close;
	g->ops.collect = collect;
	g->ops.arg = g;
	g->ops.target_ctx = run;
	if ((err = scxk_stats_server_start(&g->srv, run->common.stats_path, &g->ops))) {
		free(g);
		return err;
	}
	*out = g;
	return 0;
}

void scxk_sched_stats_stop(struct scxk_sched_stats_server *g)
{
	if (!g)
		return;
	scxk_stats_server_stop(g->srv);
	free(g);
}

void scxk_sched_stats_print_meta(const struct scxk_sched_stats *st, FILE *out)
{
	struct scxk_stats_ops ops = ops_of(st);

	scxk_stats_print_meta(&ops, out);
}
