// SPDX-License-Identifier: GPL-2.0-only
/*
 * What scxctl top prints, apart from any terminal: the header, the stats
 * tables (the shared human format of stats_view.c) and the per-CPU bars
 * from two /proc/stat samples. Kept free of I/O so the unit tests render
 * fixtures through the same code the live view uses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

#define BAR_LEN	    20 /* characters in a utilisation bar */
#define BAR_CELL    38 /* "cpu127 [" + bar + "] 100.0%" and a gap */
#define CPU_ALL	    -1 /* the "cpu" line: every CPU together */
#define STAT_FIELDS 10 /* user nice system idle iowait irq softirq steal guest guest_nice */

void scxctl_cpustat_free(struct scxctl_cpustat *s)
{
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}

/*
 * busy = everything but idle and iowait. guest and guest_nice are already
 * inside user and nice (proc(5)), so they are not added again.
 */
static int parse_line(const char *line, struct scxctl_cpu *c)
{
	unsigned long long v[STAT_FIELDS] = {0};
	int id = CPU_ALL, n, i;
	const char *p;

	if (strncmp(line, "cpu", 3))
		return -ENOENT;
	p = line + 3;
	if (*p >= '0' && *p <= '9')
		id = (int)strtol(p, (char **)&p, 10);
	else if (*p != ' ')
		return -ENOENT;
	n = sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7]);
	if (n < 4)
		return -EINVAL;
	c->id = id;
	c->idle = v[3] + v[4];
	c->total = 0;
	for (i = 0; i < 8; i++)
		c->total += v[i];
	return 0;
}

int scxctl_cpustat_parse(const char *text, struct scxctl_cpustat *out)
{
	const char *line = text;
	struct scxctl_cpu c;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		if (!parse_line(line, &c)) {
			if (c.id == CPU_ALL) {
				out->all = c;
				out->has_all = true;
			} else {
				if (out->nr == cap) {
					struct scxctl_cpu *n;

					cap = cap ? cap * 2 : 16;
					n = realloc(out->cpu, cap * sizeof(*n));
					if (!n) {
						scxctl_cpustat_free(out);
						return -ENOMEM;
					}
					out->cpu = n;
				}
				out->cpu[out->nr++] = c;
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return out->has_all || out->nr ? 0 : -EINVAL;
}

/* Busy share of @b's CPU between samples @a and @b, 0..1; < 0 when unknown. */
static double util_of(const struct scxctl_cpu *a, const struct scxctl_cpu *b)
{
	uint64_t dt, di;

	if (!a || b->total <= a->total || b->idle < a->idle)
		return -1;
	dt = b->total - a->total;
	di = b->idle - a->idle;
	return di >= dt ? 0 : (double)(dt - di) / (double)dt;
}

static const struct scxctl_cpu *find_cpu(const struct scxctl_cpustat *s, int id)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->cpu[i].id == id)
			return &s->cpu[i];
	return NULL;
}

/* "cpu3   [########            ]  41.0%" (or "  n/a" for a CPU gone since @a) */
static int bar(FILE *out, const char *label, double u)
{
	char b[BAR_LEN + 1];
	int fill = u < 0 ? 0 : (int)(u * BAR_LEN + 0.5);

	memset(b, ' ', BAR_LEN);
	memset(b, '#', fill > BAR_LEN ? BAR_LEN : fill);
	b[BAR_LEN] = '\0';
	if (u < 0)
		return fprintf(out, "%-6s [%s]    n/a", label, b);
	return fprintf(out, "%-6s [%s] %5.1f%%", label, b, u * 100);
}

void scxctl_top_cpu_bars(FILE *out, const struct scxctl_cpustat *a, const struct scxctl_cpustat *b,
			 int width)
{
	int per_line = width > 0 ? width / BAR_CELL : 1;
	char label[16];
	size_t i;

	if (per_line < 1)
		per_line = 1;
	fprintf(out, "\nCPU utilisation (/proc/stat, busy = not idle or iowait)\n");
	if (b->has_all) {
		bar(out, "all", util_of(a->has_all ? &a->all : NULL, &b->all));
		fputc('\n', out);
	}
	for (i = 0; i < b->nr; i++) {
		int n;

		snprintf(label, sizeof(label), "cpu%d", b->cpu[i].id);
		n = bar(out, label, util_of(find_cpu(a, b->cpu[i].id), &b->cpu[i]));
		if ((int)(i + 1) % per_line && i + 1 < b->nr)
			fprintf(out, "%*s", BAR_CELL - n, "");
		else
			fputc('\n', out);
	}
}

void scxctl_uptime_text(long long s, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "unknown");
	else if (s < 3600)
		snprintf(buf, len, "%lldm %02llds", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lldh %02lldm %02llds", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%lldd %02lldh %02lldm", s / 86400, s / 3600 % 24, s / 60 % 60);
}

void scxctl_top_render(FILE *out, const struct scxctl_top_frame *f, int width)
{
	const struct scxctl_top_info *i = f->info;
	char up[48];

	scxctl_uptime_text(i->uptime_s, up, sizeof(up));
	fprintf(out, "scheduler: %s", i->sched[0] ? i->sched : "?");
	if (i->pid > 0)
		fprintf(out, " (scx_%s, pid %d)", i->loader, (int)i->pid);
	else
		fprintf(out, " (no scxkit loader process found)");
	fprintf(out, "   uptime: %s", up);
	/* a mode exists only once the loader can report one (issue 27): no placeholder */
	if (i->mode && *i->mode)
		fprintf(out, "   mode: %s", i->mode);
	fprintf(out, "\nscope: %s   stats: %s", i->scope, i->stats_path);
	if (f->interval_s > 0)
		fprintf(out, ", counters over %.2f s", f->interval_s);
	fputc('\n', out);
	if (f->note && *f->note)
		fprintf(out, "%s\n", f->note);
	if (f->view && f->resp) {
		fputc('\n', out);
		scxk_stats_view_print(f->view, f->resp, f->t_s, width, out);
	}
	if (f->cpu_a && f->cpu_b)
		scxctl_top_cpu_bars(out, f->cpu_a, f->cpu_b, width);
}
