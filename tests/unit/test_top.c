// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human stats format (common/stats/stats_view.c) and what scxctl top
 * prints around it (scxctl/top_fmt.c), from fixture samples: units, rates,
 * alignment, the per-key tables of dict fields, CPU bars and the header.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures/top/stats_fixture.h"
#include "top.h"

static const char *sample1 =
	"{\"placed\":50,\"hotplug\":3,\"busy\":10.0,\"cpu_list\":\"0-1\",\"layers\":{"
	"\"batch\":{\"tasks\":4,\"util\":0.5,\"hist\":[1,2]},"
	"\"interactive\":{\"tasks\":12,\"util\":1.25,\"hist\":[]}}}";
static const char *sample2 =
	"{\"placed\":300,\"hotplug\":7,\"busy\":95.66,\"cpu_list\":\"0-3\",\"layers\":{"
	"\"batch\":{\"tasks\":5,\"util\":0.75,\"hist\":[3,4]},"
	"\"interactive\":{\"tasks\":12,\"util\":1.25,\"hist\":[]}}}";

static char out_buf[16384];

/* Print @s2 (after @s1 if given, 2 s apart) with the fixture's meta; the text in out_buf. */
static void view_print(const char *s1, const char *s2, int width)
{
	json_t *meta = scxk_stats_meta_json(&fx_ops), *j;
	struct scxk_stats_view *v;
	FILE *f = fmemopen(out_buf, sizeof(out_buf), "w");

	assert_non_null(meta);
	assert_non_null(f);
	assert_int_equal(scxk_stats_view_new(&v, meta), 0);
	if (s1) {
		j = json_loads(s1, 0, NULL);
		scxk_stats_view_feed(v, j, 10.0);
		json_decref(j);
	}
	j = json_loads(s2, 0, NULL);
	assert_non_null(j);
	scxk_stats_view_print(v, j, 12.0, width, f);
	fclose(f);
	json_decref(j);
	scxk_stats_view_free(v);
	json_decref(meta);
}

/* The line of out_buf that starts with @prefix followed by a blank, copied into @line. */
static const char *line_of(const char *prefix, char *line, size_t len)
{
	const char *p = out_buf;
	size_t n = strlen(prefix);

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, prefix, n) && (p[n] == ' ' || p[n] == '\n')) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);

			snprintf(line, len, "%.*s", (int)(l < len ? l : len - 1), p);
			return line;
		}
	}
	fail_msg("no line starting with '%s' in:\n%s", prefix, out_buf);
	return NULL;
}

/* Column where @needle ends in @line. */
static int end_of(const char *line, const char *needle)
{
	const char *p = strstr(line, needle);

	if (!p)
		fail_msg("'%s' not in '%s'", needle, line);
	return (int)(p - line + strlen(needle));
}

static void test_meta_attrs(void **state)
{
	json_t *meta = scxk_stats_meta_json(&fx_ops), *fs;

	(void)state;
	fs = json_object_get(json_object_get(meta, "Metrics"), "fields");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(fs, "placed"), "user"), "_scxk_kind")),
		"delta");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(fs, "hotplug"), "user"), "_scxk_kind")),
		"total");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(fs, "busy"), "user"), "_scxk_unit")),
		"%");
	/* nothing to add: no user object, as before */
	assert_null(json_object_get(json_object_get(fs, "cpu_list"), "user"));
	json_decref(meta);
}

static void test_rates_units_alignment(void **state)
{
	char hdr[512], placed[512], hot[512], busy[512], cpus[512];

	(void)state;
	view_print(sample1, sample2, 0);
	line_of("STAT", hdr, sizeof(hdr));
	line_of("placed", placed, sizeof(placed));
	line_of("hotplug", hot, sizeof(hot));
	line_of("busy", busy, sizeof(busy));
	line_of("cpu_list", cpus, sizeof(cpus));
	/* a delta counter: 300 over 2 s; a total one: (7 - 3) over 2 s */
	assert_non_null(strstr(placed, " 150.0/s "));
	assert_non_null(strstr(hot, " 2.0/s "));
	/* values are not rates */
	assert_null(strstr(busy, "/s"));
	assert_null(strstr(cpus, "/s"));
	/* the unit has its own column, and is not repeated in the description */
	assert_non_null(strstr(busy, " % "));
	assert_non_null(strstr(busy, "share of time the CPUs ran tasks"));
	assert_null(strstr(busy, "(%)"));
	/* numbers right-aligned under VALUE and RATE */
	assert_int_equal(end_of(placed, "300"), end_of(hdr, "VALUE"));
	assert_int_equal(end_of(hot, " 7"), end_of(hdr, "VALUE"));
	assert_int_equal(end_of(busy, "95.66"), end_of(hdr, "VALUE"));
	assert_int_equal(end_of(placed, "/s"), end_of(hdr, "RATE"));
	assert_int_equal(end_of(hot, "/s"), end_of(hdr, "RATE"));
	/* descriptions start in one column */
	assert_int_equal(strstr(placed, "tasks placed") - placed, strstr(hdr, "DESCRIPTION") - hdr);
	assert_int_equal(strstr(busy, "share of") - busy, strstr(hdr, "DESCRIPTION") - hdr);
	/* the dict is not a row of the main table */
	assert_null(strstr(out_buf, "{\"batch\""));
}

static void test_first_sample_has_no_rates(void **state)
{
	char placed[512];

	(void)state;
	view_print(NULL, sample2, 0);
	line_of("placed", placed, sizeof(placed));
	assert_non_null(strstr(placed, "300"));
	assert_null(strstr(out_buf, "/s"));
}

static void test_dict_rows(void **state)
{
	char hdr[512], batch[512], inter[512];

	(void)state;
	view_print(sample1, sample2, 0);
	assert_non_null(strstr(out_buf, "\nlayers: 2 (one layer)\n"));
	line_of("layers", hdr, sizeof(hdr));
	line_of("batch", batch, sizeof(batch));
	line_of("interactive", inter, sizeof(inter));
	/* units in the header, arrays left out */
	assert_non_null(strstr(hdr, "tasks"));
	assert_non_null(strstr(hdr, "util[CPUs]"));
	assert_null(strstr(hdr, "hist"));
	assert_int_equal(end_of(batch, "0.75"), end_of(hdr, "util[CPUs]"));
	assert_int_equal(end_of(inter, "1.25"), end_of(hdr, "util[CPUs]"));
	assert_int_equal(end_of(inter, "12"), end_of(hdr, "tasks"));
	assert_int_equal(end_of(batch, " 5"), end_of(hdr, "tasks"));
}

static void test_width_cut(void **state)
{
	const char *p;

	(void)state;
	view_print(sample1, sample2, 40);
	for (p = out_buf; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n > 40)
			fail_msg("line longer than 40: '%.*s'", (int)n, p);
		p += n + (e ? 1 : 0);
	}
}

static void test_rate_text(void **state)
{
	char b[32];

	(void)state;
	scxk_stats_rate_text(0.5, b, sizeof(b));
	assert_string_equal(b, "0.5/s");
	scxk_stats_rate_text(9999, b, sizeof(b));
	assert_string_equal(b, "9999.0/s");
	scxk_stats_rate_text(12345, b, sizeof(b));
	assert_string_equal(b, "12.3k/s");
	scxk_stats_rate_text(2.5e6, b, sizeof(b));
	assert_string_equal(b, "2.5M/s");
}

static const char *stat_a = "cpu  100 0 100 800 0 0 0 0 0 0\n"
			    "cpu0 50 0 50 400 0 0 0 0 0 0\n"
			    "cpu1 50 0 50 400 0 0 0 0 0 0\n"
			    "intr 12345 0\n";
/* cpu0: 100 busy + 100 idle more (50%); cpu1 200 busy (100%); cpu2 came online */
static const char *stat_b = "cpu  400 0 100 900 0 0 0 0 0 0\n"
			    "cpu0 100 0 100 500 0 0 0 0 0 0\n"
			    "cpu1 250 0 50 400 0 0 0 0 0 0\n"
			    "cpu2 0 0 0 10 0 0 0 0 0 0\n"
			    "intr 12399 0\n";

static void bars(int width)
{
	struct scxctl_cpustat a, b;
	FILE *f = fmemopen(out_buf, sizeof(out_buf), "w");

	assert_int_equal(scxctl_cpustat_parse(stat_a, &a), 0);
	assert_int_equal(scxctl_cpustat_parse(stat_b, &b), 0);
	assert_int_equal(b.nr, 3);
	scxctl_top_cpu_bars(f, &a, &b, width);
	fclose(f);
	scxctl_cpustat_free(&a);
	scxctl_cpustat_free(&b);
}

static void test_cpu_bars(void **state)
{
	(void)state;
	bars(0);
	/* all: 300 busy of 400 */
	assert_non_null(strstr(out_buf, "\nall    [###############     ]  75.0%\n"));
	assert_non_null(strstr(out_buf, "\ncpu0   [##########          ]  50.0%\n"));
	assert_non_null(strstr(out_buf, "\ncpu1   [####################] 100.0%\n"));
	assert_non_null(strstr(out_buf, "\ncpu2   [                    ]    n/a\n"));
	/* two side by side in 80 columns */
	bars(80);
	assert_non_null(strstr(out_buf, "  50.0%  cpu1   [####################] 100.0%\n"));
}

static void test_cpustat_bad(void **state)
{
	struct scxctl_cpustat s;

	(void)state;
	assert_int_equal(scxctl_cpustat_parse("intr 1\n", &s), -EINVAL);
	assert_int_equal(scxctl_cpustat_parse("cpu0 1 2\n", &s), -EINVAL);
}

static void render(const char *mode, pid_t pid, long long up)
{
	struct scxctl_top_info i = {.sched = "minimal",
				    .loader = "minimal",
				    .pid = pid,
				    .uptime_s = up,
				    .mode = mode,
				    .scope = "all tasks",
				    .stats_path = "/run/x"};
	struct scxctl_top_frame fr = {.info = &i, .interval_s = 1.0};
	FILE *f = fmemopen(out_buf, sizeof(out_buf), "w");

	scxctl_top_render(f, &fr, 0);
	fclose(f);
}

static void test_header(void **state)
{
	(void)state;
	render(NULL, 42, 3723);
	assert_non_null(
		strstr(out_buf, "scheduler: minimal (scx_minimal, pid 42)   uptime: 1h 02m 03s\n"));
	assert_null(strstr(out_buf, "mode"));
	assert_non_null(
		strstr(out_buf, "scope: all tasks   stats: /run/x, counters over 1.00 s\n"));
	render("gaming", 42, 59);
	assert_non_null(strstr(out_buf, "uptime: 0m 59s   mode: gaming\n"));
	render(NULL, 0, -1);
	assert_non_null(strstr(out_buf, "(no scxkit loader process found)   uptime: unknown"));
	render(NULL, 1, 3 * 86400 + 4 * 3600 + 5 * 60);
	assert_non_null(strstr(out_buf, "uptime: 3d 04h 05m"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_attrs),
		cmocka_unit_test(test_rates_units_alignment),
		cmocka_unit_test(test_first_sample_has_no_rates),
		cmocka_unit_test(test_dict_rows),
		cmocka_unit_test(test_width_cut),
		cmocka_unit_test(test_rate_text),
		cmocka_unit_test(test_cpu_bars),
		cmocka_unit_test(test_cpustat_bad),
		cmocka_unit_test(test_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
