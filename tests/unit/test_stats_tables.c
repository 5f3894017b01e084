// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every scheduler's stats table, expanded from the list in its intf.h the
 * way its loader does: names unique snake_case, help text on every stat,
 * one table entry per BPF counter enumerator and per value, and the
 * stats_meta clients get describes exactly the served fields. Then the
 * check itself on broken tables, and the value setters.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <scxkit/stats.h>
#include <scxuser/wire.h>

#include "../../scheds/balance/intf.h"
#include "../../scheds/brisk/intf.h"
#include "../../scheds/cadence/intf.h"
#include "../../scheds/minimal/intf.h"
#include "../../scheds/relay/intf.h"
#include "../../scheds/strata/intf.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct scxk_stat_desc minimal_fields[] = {MINIMAL_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc brisk_fields[] = {BRISK_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc cadence_fields[] = {CADENCE_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc balance_fields[] = {BALANCE_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc strata_fields[] = {STRATA_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc scxu_fields[] = {SCXU_STATS(SCXK_STAT_DESC)};
static const struct scxk_stat_desc relay_fields[] = {RELAY_STATS(SCXK_STAT_DESC)};
/* What scx_relay serves: libscxuser's fields, then its own (names only: ids restart). */
static const struct scxk_stat_desc relay_served[] = {SCXU_STATS(SCXK_STAT_DESC)
							     RELAY_STATS(SCXK_STAT_DESC)};

struct table {
	const char *sched;
	const struct scxk_stat_desc *fields;
	size_t n;
	unsigned int nr_counters, nr_values; /* the list's enum counts */
};

static const struct table tables[] = {
	{"minimal", minimal_fields, N(minimal_fields), MINIMAL_NR_STATS, MINIMAL_NR_VALUES},
	{"brisk", brisk_fields, N(brisk_fields), BRISK_NR_STATS, BRISK_NR_VALUES},
	{"cadence", cadence_fields, N(cadence_fields), CADENCE_NR_STATS, CADENCE_NR_VALUES},
	{"balance", balance_fields, N(balance_fields), BALANCE_NR_STATS, BALANCE_NR_VALUES},
	{"strata", strata_fields, N(strata_fields), STRATA_NR_STATS, STRATA_NR_VALUES},
	{"libscxuser", scxu_fields, N(scxu_fields), SCXU_NR_COUNTERS, SCXU_NR_VALUES},
	{"relay", relay_fields, N(relay_fields), 0, RELAY_NR_VALUES},
};

static size_t nr_served(const struct scxk_stat_desc *f, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += scxk_stat_served(&f[i]);
	return k;
}

/* The stats_meta of @f: one field object per served stat, each with help text. */
static void check_meta(const char *sched, const struct scxk_stat_desc *f, size_t n)
{
	/* the structs DICT fields name live in the loaders: empty stand-ins here */
	struct scxk_stats_struct subs[8] = {0};
	struct scxk_stats_ops ops = {.name = "Metrics", .fields = f, .nr_fields = n, .subs = subs};
	json_t *meta, *fields, *fj;
	const char *key;

	for (size_t i = 0; i < n; i++) {
		const char *colon = f[i].unit ? strchr(f[i].unit, ':') : NULL;

		if (f[i].type != SCXK_STAT_DICT)
			continue;
		if (!colon || (strncmp(f[i].unit, "u64:", 4) && strncmp(f[i].unit, "string:", 7)))
			fail_msg("%s: dict field %s: unit '%s' is not KEY:STRUCT (u64 or string)",
				 sched, f[i].name, f[i].unit ? f[i].unit : "");
		assert_true(ops.nr_subs < 8);
		subs[ops.nr_subs++].name = colon + 1;
	}
	meta = scxk_stats_meta_json(&ops);
	if (!meta)
		fail_msg("%s: no stats_meta (a nested field's unit is malformed?)", sched);
	fields = json_object_get(json_object_get(meta, "Metrics"), "fields");
	assert_non_null(fields);
	/* A name used twice would collapse into one key here. */
	if (json_object_size(fields) != nr_served(f, n))
		fail_msg("%s: %zu fields in stats_meta for %zu served stats", sched,
			 json_object_size(fields), nr_served(f, n));
	json_object_foreach(fields, key, fj)
	{
		const char *desc = json_string_value(json_object_get(fj, "desc"));

		if (!desc || !*desc)
			fail_msg("%s: field %s has no desc in stats_meta", sched, key);
	}
	json_decref(meta);
}

static void test_every_table(void **state)
{
	(void)state;
	for (size_t t = 0; t < N(tables); t++) {
		const struct table *tb = &tables[t];
		size_t counters = 0, values = 0;
		const char *why = NULL;
		int bad;

		for (size_t i = 0; i < tb->n; i++) {
			counters += scxk_stat_is_counter(&tb->fields[i]);
			values += !scxk_stat_is_counter(&tb->fields[i]);
		}
		if (counters != tb->nr_counters || values != tb->nr_values)
			fail_msg("%s: %zu counters and %zu values in the table, the enums count %u "
				 "and %u",
				 tb->sched, counters, values, tb->nr_counters, tb->nr_values);
		if (tb->nr_counters > SCXK_MAX_COUNTERS)
			fail_msg("%s: %u counters, SCXK_MAX_COUNTERS is %d", tb->sched,
				 tb->nr_counters, SCXK_MAX_COUNTERS);
		if (scxk_stats_check_fields(tb->fields, tb->n, tb->nr_counters, tb->nr_values, &why,
					    &bad))
			fail_msg("%s: %s (field %d, \"%s\")", tb->sched, why, bad,
				 bad >= 0 ? tb->fields[bad].name : "");
		check_meta(tb->sched, tb->fields, tb->n);
	}
	check_meta("relay (served)", relay_served, N(relay_served));
}

/* The check finds each kind of fault it promises to. */
static void test_check_catches(void **state)
{
	struct scxk_stat_desc f[] = {
		{"a", SCXK_STAT_U64, "counter a", "", SCXK_STAT_KIND_CNT, 0},
		{"b", SCXK_STAT_U64, "counter b", "", SCXK_STAT_KIND_RAW, 1},
		{"c", SCXK_STAT_FLOAT, "value c", "%", SCXK_STAT_KIND_VAL, 0},
	};
	const char *why;
	int bad;

	(void)state;
	assert_int_equal(scxk_stats_check_fields(f, N(f), 2, 1, &why, &bad), 0);
	/* An enumerator the table lacks, or one too few. */
	assert_int_equal(scxk_stats_check_fields(f, N(f), 3, 1, &why, &bad), -EINVAL);
	assert_int_equal(scxk_stats_check_fields(f, N(f), 1, 1, &why, &bad), -EINVAL);
	assert_int_equal(bad, 1);
	/* A name used twice, even by a counter that is not served. */
	f[1].name = "a";
	assert_int_equal(scxk_stats_check_fields(f, N(f), 2, 1, &why, &bad), -EINVAL);
	assert_int_equal(bad, 1);
	f[1].name = "Not_snake";
	assert_int_equal(scxk_stats_check_fields(f, N(f), 2, 1, &why, &bad), -EINVAL);
	f[1].name = "b";
	/* No help text. */
	f[2].desc = "";
	assert_int_equal(scxk_stats_check_fields(f, N(f), 2, 1, &why, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	f[2].desc = "value c";
	/* Two counters on one id. */
	f[1].id = 0;
	assert_int_equal(scxk_stats_check_fields(f, N(f), 2, 1, &why, &bad), -EINVAL);
	f[1].id = 1;
	/* More counters than the BPF array holds. */
	assert_int_equal(scxk_stats_check_fields(f, N(f), SCXK_MAX_COUNTERS + 1, 1, &why, &bad),
			 -EINVAL);
}

/* A unit is described after the help text; RAW counters stay out of the meta. */
static void test_meta_units_and_raw(void **state)
{
	const struct scxk_stat_desc f[] = {
		{"pct", SCXK_STAT_FLOAT, "a share", "%", SCXK_STAT_KIND_VAL, 0},
		{"hidden", SCXK_STAT_U64, "input", "", SCXK_STAT_KIND_RAW, 0},
		{"plain", SCXK_STAT_U64, "no unit", NULL, SCXK_STAT_KIND_CNT, 1},
	};
	struct scxk_stats_ops ops = {.name = "M", .fields = f, .nr_fields = N(f)};
	json_t *meta = scxk_stats_meta_json(&ops);
	json_t *fields = json_object_get(json_object_get(meta, "M"), "fields");

	(void)state;
	assert_int_equal(json_object_size(fields), 2);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(fields, "pct"), "desc")),
		"a share (%)");
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(fields, "plain"), "desc")),
		"no unit");
	assert_null(json_object_get(fields, "hidden"));
	json_decref(meta);
}

/* The setters take value ids, refuse counters, unknown ids and mismatched types. */
static void test_set(void **state)
{
	const struct scxk_stat_desc f[] = {
		{"n", SCXK_STAT_U64, "a number", "", SCXK_STAT_KIND_VAL, 0},
		{"x", SCXK_STAT_FLOAT, "a real", "", SCXK_STAT_KIND_VAL, 1},
		{"s", SCXK_STAT_STRING, "a string", "", SCXK_STAT_KIND_VAL, 2},
		{"c", SCXK_STAT_U64, "a counter", "", SCXK_STAT_KIND_CNT, 3},
		{"d", SCXK_STAT_DICT, "a dict", "string:S", SCXK_STAT_KIND_VAL, 4},
	};
	struct scxk_stats_read r = {.out = json_object(), .fields = f, .nr_fields = N(f)};

	(void)state;
	assert_int_equal(scxk_stats_set_u64(&r, 0, 7), 0);
	assert_int_equal(scxk_stats_set_real(&r, 1, 0.5), 0);
	assert_int_equal(scxk_stats_set_str(&r, 2, "on"), 0);
	/* a string is a string: nested values are DICT or ARRAY fields */
	assert_int_equal(scxk_stats_set(&r, 2, json_object()), -EINVAL);
	assert_int_equal(scxk_stats_set(&r, 4, json_object()), 0);
	assert_int_equal(scxk_stats_set(&r, 4, json_array()), -EINVAL);
	assert_int_equal(scxk_stats_set_real(&r, 0, 1.0), -EINVAL);
	assert_int_equal(scxk_stats_set_u64(&r, 1, 1), -EINVAL);
	assert_int_equal(scxk_stats_set_u64(&r, 3, 1), -ENOENT); /* a counter's id, not a value */
	assert_int_equal(scxk_stats_set_u64(&r, 9, 1), -ENOENT);
	assert_int_equal(scxk_stats_set(&r, 1, NULL), 0); /* NaN: left out */
	assert_int_equal(json_integer_value(json_object_get(r.out, "n")), 7);
	assert_string_equal(json_string_value(json_object_get(r.out, "s")), "on");
	assert_true(json_is_object(json_object_get(r.out, "d")));
	assert_int_equal(json_object_size(r.out), 4);
	json_decref(r.out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table),
		cmocka_unit_test(test_check_catches),
		cmocka_unit_test(test_meta_units_and_raw),
		cmocka_unit_test(test_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
