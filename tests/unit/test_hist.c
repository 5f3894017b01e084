// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the workloads' latency histogram (bench/workloads/hist.c).
 * Build: cc -Ibench/workloads tests/unit/test_hist.c bench/workloads/hist.c
 *        -lcmocka -lm
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"

/* Samples for the randomised tests; enough to fill every percentile. */
#define NRANDOM 20000
/* Relative error bound of the layout: one bucket is <= 1/HIST_SUB wide. */
#define REL_ERR (1.0 / HIST_SUB)

static struct hist *new_hist(void)
{
	struct hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	hist_init(h);
	return h;
}

/* Deterministic xorshift64 so failures reproduce. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Log-uniform in [1, 2^37) ns (~137 s): exercises every magnitude. */
static uint64_t rnd_value(uint64_t *s)
{
	unsigned int e = rnd(s) % 37;

	return (1ULL << e) + rnd(s) % (1ULL << e);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The definition in hist.h: rank ceil(p * n / 100), at least 1. */
static uint64_t ref_percentile(const uint64_t *sorted, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p * (double)n / 100.0 - 1e-9);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void test_empty(void **state)
{
	struct hist *h = new_hist();

	(void)state;
	assert_int_equal(hist_count(h), 0);
	assert_int_equal(hist_min(h), 0);
	assert_int_equal(hist_max(h), 0);
	assert_true(hist_mean(h) == 0.0);
	assert_int_equal(hist_percentile(h, 0), 0);
	assert_int_equal(hist_percentile(h, 50), 0);
	assert_int_equal(hist_percentile(h, 100), 0);
	free(h);
}

static void test_single_value(void **state)
{
	static const double ps[] = {0, 1, 50, 90, 99, 99.9, 100};
	struct hist *h = new_hist();
	unsigned int i;

	(void)state;
	hist_record(h, 12345);
	assert_int_equal(hist_count(h), 1);
	assert_int_equal(hist_min(h), 12345);
	assert_int_equal(hist_max(h), 12345);
	assert_true(hist_mean(h) == 12345.0);
	/* The bucket's upper bound is clamped to the max: exact. */
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		assert_int_equal(hist_percentile(h, ps[i]), 12345);
	free(h);
}

static void test_uniform_small_exact(void **state)
{
	struct hist *h = new_hist();
	unsigned int v;

	(void)state;
	/* Below 2 * HIST_SUB every value has its own bucket. */
	for (v = 1; v <= 100; v++)
		hist_record(h, v);
	for (v = 1; v <= 100; v++)
		assert_int_equal(hist_percentile(h, v), v);
	assert_int_equal(hist_percentile(h, 0), 1);
	assert_int_equal(hist_percentile(h, 0.5), 1);
	assert_int_equal(hist_percentile(h, 99.5), 100);
	free(h);
}

static void test_uniform_1000(void **state)
{
	struct hist *h = new_hist();
	unsigned int v;

	(void)state;
	for (v = 1; v <= 1000; v++)
		hist_record(h, v);
	assert_int_equal(hist_count(h), 1000);
	assert_true(hist_mean(h) == 500.5);
	assert_int_equal(hist_percentile(h, 0), 1);
	assert_int_equal(hist_percentile(h, 10), 100); /* exact below 128 */
	/* 500 is in [500, 503] (width 4 in [256, 512)) */
	assert_int_equal(hist_percentile(h, 50), 503);
	/* 900, 990 and 999 are in the width-8 buckets of [512, 1024) */
	assert_int_equal(hist_percentile(h, 90), 903);
	assert_int_equal(hist_percentile(h, 99), 991);
	assert_int_equal(hist_percentile(h, 99.9), 999);
	/* [1000, 1007] is clamped to the max */
	assert_int_equal(hist_percentile(h, 99.95), 1000);
	assert_int_equal(hist_percentile(h, 100), 1000);
	free(h);
}

static void test_two_clusters(void **state)
{
	struct hist *h = new_hist();
	unsigned int i;

	(void)state;
	for (i = 0; i < 900; i++)
		hist_record(h, 1000);
	for (i = 0; i < 100; i++)
		hist_record(h, 1000000);
	assert_int_equal(hist_min(h), 1000);
	assert_int_equal(hist_max(h), 1000000);
	assert_true(hist_mean(h) == 100900.0);
	/* 1000 is in [1000, 1007] */
	assert_int_equal(hist_percentile(h, 0), 1000);
	assert_int_equal(hist_percentile(h, 50), 1007);
	assert_int_equal(hist_percentile(h, 90), 1007);
	/* rank 901 is the first sample of the upper cluster */
	assert_int_equal(hist_percentile(h, 90.05), 1000000);
	assert_int_equal(hist_percentile(h, 99), 1000000);
	assert_int_equal(hist_percentile(h, 100), 1000000);
	free(h);
}

static void test_out_of_range_p(void **state)
{
	struct hist *h = new_hist();

	(void)state;
	hist_record(h, 7);
	hist_record(h, 5000);
	assert_int_equal(hist_percentile(h, -1), 7);
	assert_int_equal(hist_percentile(h, NAN), 7);
	assert_int_equal(hist_percentile(h, 101), 5000);
	free(h);
}

static void test_bucket_layout(void **state)
{
	uint64_t v, up, prev_up = 0;
	unsigned int i;

	(void)state;
	/* Buckets tile the range without gaps or overlaps. */
	for (i = 0; i < HIST_NBUCKETS; i++) {
		up = hist_bucket_upper(i);
		assert_int_equal(hist_bucket(up), i);
		if (i) {
			assert_int_equal(hist_bucket(prev_up + 1), i);
			assert_true(up > prev_up);
		}
		prev_up = up;
	}
	assert_int_equal(prev_up, (1ULL << HIST_MAX_EXP) - 1);
	/* Beyond the range everything goes to the last bucket. */
	assert_int_equal(hist_bucket(1ULL << HIST_MAX_EXP), HIST_NBUCKETS - 1);
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_NBUCKETS - 1);
	/* Relative error: 1 ns .. ~100 s, in steps of 0.1% and some. */
	for (v = 1; v < 100 * 1000000000ULL; v = v + v / 1000 + 1) {
		up = hist_bucket_upper(hist_bucket(v));
		assert_true(up >= v);
		assert_true((double)(up - v) <= (double)v * REL_ERR);
	}
}

static void test_random_vs_reference(void **state)
{
	static const double ps[] = {0, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
	uint64_t *vals = malloc(NRANDOM * sizeof(*vals)), s = 42, ref, got, up;
	struct hist *h = new_hist();
	long double sum = 0;
	unsigned int i;

	(void)state;
	assert_non_null(vals);
	for (i = 0; i < NRANDOM; i++) {
		vals[i] = rnd_value(&s);
		sum += vals[i];
		hist_record(h, vals[i]);
	}
	qsort(vals, NRANDOM, sizeof(*vals), cmp_u64);
	assert_int_equal(hist_min(h), vals[0]);
	assert_int_equal(hist_max(h), vals[NRANDOM - 1]);
	assert_true(fabs(hist_mean(h) - (double)(sum / NRANDOM)) <= 1e-9 * hist_mean(h));
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		ref = ref_percentile(vals, NRANDOM, ps[i]);
		got = hist_percentile(h, ps[i]);
		assert_true(got >= ref);
		assert_true((double)(got - ref) <= (double)ref * REL_ERR);
		/* exactly the defined value: the bucket's upper bound, clamped */
		up = hist_bucket_upper(hist_bucket(ref));
		assert_int_equal(got, up < vals[NRANDOM - 1] ? up : vals[NRANDOM - 1]);
		if (ps[i] == 0)
			assert_int_equal(got, vals[0]);
	}
	free(vals);
	free(h);
}

static void test_merge(void **state)
{
	struct hist *one = new_hist(), *sum = new_hist(), *part[4];
	uint64_t s = 7, v;
	unsigned int i;

	(void)state;
	for (i = 0; i < 4; i++)
		part[i] = new_hist();
	/* part[3] stays empty: merging it must change nothing */
	for (i = 0; i < NRANDOM; i++) {
		v = rnd_value(&s);
		hist_record(one, v);
		hist_record(part[rnd(&s) % 3], v);
	}
	for (i = 0; i < 4; i++)
		hist_merge(sum, part[i]);
	assert_memory_equal(one, sum, sizeof(*one));
	/* an empty destination takes min and max from the source */
	hist_init(sum);
	hist_merge(sum, one);
	assert_memory_equal(one, sum, sizeof(*one));
	for (i = 0; i < 4; i++)
		free(part[i]);
	free(one);
	free(sum);
}

static void test_huge_value(void **state)
{
	struct hist *h = new_hist();
	uint64_t big = 5000ULL * 1000000000ULL; /* 5000 s: above the range */

	(void)state;
	hist_record(h, 10);
	hist_record(h, big);
	assert_int_equal(hist_max(h), big);
	assert_int_equal(hist_percentile(h, 100), big);
	assert_int_equal(hist_percentile(h, 50), 10);
	assert_int_equal(hist_percentile(h, 51), (1ULL << HIST_MAX_EXP) - 1);
	free(h);
}

/*
 * Tiny parser for what hist_json() prints: "key":{"name":number,...}.
 * Returns the number of members, their names in @names, values in @vals.
 */
static int parse_json_member(const char *s, const char *key, char names[][16], double *vals,
			     int max)
{
	size_t kl = strlen(key);
	int n = 0;
	char *end;

	if (*s++ != '"' || strncmp(s, key, kl) || s[kl] != '"')
		return -1;
	s += kl + 1;
	if (*s++ != ':' || *s++ != '{')
		return -1;
	while (n < max) {
		const char *q;

		if (*s++ != '"')
			return -1;
		q = strchr(s, '"');
		if (!q || q - s >= 16)
			return -1;
		memcpy(names[n], s, (size_t)(q - s));
		names[n][q - s] = 0;
		s = q + 1;
		if (*s++ != ':')
			return -1;
		/* JSON numbers: no leading '+', no hex, no nan/inf */
		if (!(*s == '-' || (*s >= '0' && *s <= '9')))
			return -1;
		vals[n++] = strtod(s, &end);
		s = end;
		if (*s == '}')
			return s[1] ? -1 : n;
		if (*s++ != ',')
			return -1;
	}
	return -1;
}

static void check_json(const struct hist *h, const double *want)
{
	static const char *const keys[] = {
		"count", "min_us", "mean_us", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us",
	};
	char *buf = NULL, names[16][16];
	double vals[16];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int i, n;

	assert_non_null(f);
	hist_json(h, f, "lat");
	fclose(f);
	n = parse_json_member(buf, "lat", names, vals, 16);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++) {
		assert_string_equal(names[i], keys[i]);
		/* the mean may have a fraction of a ns: printed to 0.001 us */
		assert_true(fabs(vals[i] - want[i]) <= (i == 2 ? 0.0005 : 0) + 1e-9);
	}
	free(buf);
}

static void test_json(void **state)
{
	static const double want_empty[] = {0, 0, 0, 0, 0, 0, 0, 0};
	/* uniform 1..1000 ns, percentiles from test_uniform_1000() */
	static const double want[] = {
		1000, 0.001, 0.5005, 0.503, 0.903, 0.991, 0.999, 1.000,
	};
	struct hist *h = new_hist();
	unsigned int v;

	(void)state;
	check_json(h, want_empty);
	for (v = 1; v <= 1000; v++)
		hist_record(h, v);
	check_json(h, want);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_single_value),
		cmocka_unit_test(test_uniform_small_exact),
		cmocka_unit_test(test_uniform_1000),
		cmocka_unit_test(test_two_clusters),
		cmocka_unit_test(test_out_of_range_p),
		cmocka_unit_test(test_bucket_layout),
		cmocka_unit_test(test_random_vs_reference),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_huge_value),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
