/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top.h - scxctl top: the live view (top.c) and what it prints (top_fmt.c,
 * which the unit tests also build).
 */
#ifndef __SCXCTL_TOP_H
#define __SCXCTL_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>
#include <scxkit/stats.h>

/* One CPU's (or, id -1, all CPUs') times from /proc/stat, in USER_HZ ticks. */
struct scxctl_cpu {
	int id;
	uint64_t idle;	/* idle + iowait */
	uint64_t total; /* user .. steal */
};

/* One sample of /proc/stat. */
struct scxctl_cpustat {
	struct scxctl_cpu all;
	bool has_all;
	struct scxctl_cpu *cpu;
	size_t nr;
};

/** scxctl_cpustat_parse - parse /proc/stat's text; 0, -EINVAL (no cpu line) or -ENOMEM */
int scxctl_cpustat_parse(const char *text, struct scxctl_cpustat *out);

/** scxctl_cpustat_free - free what scxctl_cpustat_parse() allocated */
void scxctl_cpustat_free(struct scxctl_cpustat *s);

/**
 * scxctl_top_cpu_bars - one utilisation bar per CPU of @b over the time
 *                       since @a, as many side by side as @width allows
 *                       (one per line if @width <= 0)
 */
void scxctl_top_cpu_bars(FILE *out, const struct scxctl_cpustat *a, const struct scxctl_cpustat *b,
			 int width);

/** scxctl_uptime_text - "4m 05s", "2h 03m 04s", "3d 04h 05m"; "unknown" if @s < 0 */
void scxctl_uptime_text(long long s, char *buf, size_t len);

/* Who runs: from sysfs and the loader process (loader.c). */
struct scxctl_top_info {
	const char *sched;  /* the kernel's ops name */
	const char *loader; /* the loader's scheduler name ("minimal"), if found */
	pid_t pid;	    /* the loader's pid; 0 if not found */
	long long uptime_s; /* since the loader started; -1 if unknown */
	/*
	 * The scheduler's mode (issue 27: Auto, Gaming, ...), once the loader
	 * can report one; NULL until then and not shown.
	 */
	const char *mode;
	const char *scope;	/* "all tasks" or "only SCHED_EXT tasks (--partial)" */
	const char *stats_path; /* the socket read */
};

/* One screen (or --once snapshot). */
struct scxctl_top_frame {
	const struct scxctl_top_info *info;
	struct scxk_stats_view *view; /* NULL: no stats part */
	json_t *resp;		      /* the sample to show */
	double t_s;		      /* when it was taken (monotonic seconds) */
	double interval_s;	      /* since the previous sample; 0 if none */
	const char *note;	      /* a line under the header (a lost connection), or NULL */
	const struct scxctl_cpustat *cpu_a, *cpu_b; /* NULL: no bars */
};

/** scxctl_top_render - print @f: header, stats tables, CPU bars; lines cut at @width if > 0 */
void scxctl_top_render(FILE *out, const struct scxctl_top_frame *f, int width);

#endif /* __SCXCTL_TOP_H */
