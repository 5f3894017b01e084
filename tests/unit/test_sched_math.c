// SPDX-License-Identifier: GPL-2.0-only
/* The shared scheduling arithmetic, the same header the BPF side compiles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <scxkit/sched_math.h>

static void test_time_before_wraps(void **state)
{
	(void)state;
	assert_true(scxk_time_before(1, 2));
	assert_false(scxk_time_before(2, 1));
	assert_false(scxk_time_before(5, 5));
	/* Across the u64 wrap, "before" still means "earlier". */
	assert_true(scxk_time_before(UINT64_MAX - 10, 5));
	assert_false(scxk_time_before(5, UINT64_MAX - 10));
}

static void test_vtime_floor(void **state)
{
	(void)state;
	/* A long sleeper is pulled up to one credit behind now. */
	assert_int_equal(scxk_vtime_floor(100, 10000, 1000), 9000);
	/* A recent sleeper keeps its own vtime. */
	assert_int_equal(scxk_vtime_floor(9500, 10000, 1000), 9500);
	/* A task ahead of the clock is not pulled back. */
	assert_int_equal(scxk_vtime_floor(20000, 10000, 1000), 20000);
	/* Before the clock has advanced a whole credit, no floor applies. */
	assert_int_equal(scxk_vtime_floor(0, 500, 1000), 0);
	/* Exactly at the floor. */
	assert_int_equal(scxk_vtime_floor(9000, 10000, 1000), 9000);
}

static void test_weight_scaling(void **state)
{
	(void)state;
	assert_int_equal(scxk_scale_by_weight(1000, SCXK_WEIGHT_DFL), 1000);
	assert_int_equal(scxk_scale_by_weight(1000, 200), 2000);
	assert_int_equal(scxk_scale_by_weight_inv(1000, 200), 500);
	assert_int_equal(scxk_scale_by_weight_inv(1000, 1), 100000);
	/* Weight 0 never divides by zero. */
	assert_int_equal(scxk_scale_by_weight_inv(1000, 0), 100000);
	/* nice -20 (weight 8876 in sched_ext units ~ 88761/1024*100) runs vtime slowly. */
	assert_true(scxk_scale_by_weight_inv(20000000, 8876) < 20000000 / 80);
}

static void test_ewma(void **state)
{
	uint64_t avg = 0;
	int i;

	(void)state;
	assert_int_equal(scxk_calc_avg(1000, 1000), 1000);
	assert_int_equal(scxk_calc_avg(0, 1000), 250);
	assert_int_equal(scxk_calc_avg(1000, 0), 750);
	assert_int_equal(scxk_calc_avg(3, 0), 2);
	/* Reaches a constant input exactly, rising and falling. */
	for (i = 0; i < 100; i++)
		avg = scxk_calc_avg(avg, 4000);
	assert_int_equal(avg, 4000);
	for (i = 0; i < 100; i++)
		avg = scxk_calc_avg(avg, 0);
	assert_int_equal(avg, 0);
	/* No overflow at the top of the range. */
	assert_int_equal(scxk_ewma(UINT64_MAX, UINT64_MAX, 3), UINT64_MAX);
	assert_int_equal(scxk_ewma(123, 456, 64), 123);
	assert_int_equal(scxk_ewma(123, 456, 0), 456);
}

static void test_freq(void **state)
{
	uint64_t f = 0;
	int i;

	(void)state;
	/* One event per millisecond settles at ~1000/s. */
	for (i = 0; i < 100; i++)
		f = scxk_freq_update(f, 1000000);
	assert_in_range(f, 990, 1000);
	/* A zero interval does not divide by zero. */
	assert_true(scxk_freq_update(0, 0) > 0);
}

static void test_clamp(void **state)
{
	(void)state;
	assert_int_equal(scxk_clamp(5, 10, 20), 10);
	assert_int_equal(scxk_clamp(25, 10, 20), 20);
	assert_int_equal(scxk_clamp(15, 10, 20), 15);
	assert_int_equal(scxk_clamp(15, 30, 20), 20);
}

static void test_log2(void **state)
{
	static const struct {
		u64 v;
		u32 log2;
	} cases[] = {{0, 0},	 {1, 0},     {2, 1},	  {3, 1},
		     {1024, 10}, {1025, 10}, {~0ULL, 63}, {1ULL << 40, 40}};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(scxk_log2(cases[i].v), cases[i].log2);
}

/* The loops the schedulers had before scxk_log2_bucket(), as the reference. */
static u32 bucket_by_loop(u64 v, u32 lo, u32 nr)
{
	u32 b = 0;

	while (b < nr - 1 && v >= (1ULL << (lo + b)))
		b++;
	return b;
}

static void test_log2_bucket(void **state)
{
	static const u64 vals[] = {0,	1,   2,	  3,   4,     7,     8,		 127,
				   128, 129, 255, 256, 16383, 16384, 1ULL << 20, ~0ULL};
	static const u32 los[] = {0, 2, 7};

	(void)state;
	for (unsigned int i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (unsigned int j = 0; j < sizeof(los) / sizeof(los[0]); j++)
			for (u32 nr = 1; nr <= 16; nr++)
				assert_int_equal(scxk_log2_bucket(vals[i], los[j], nr),
						 bucket_by_loop(vals[i], los[j], nr));
	assert_int_equal(scxk_log2_bucket(127, 7, 8), 0);
	assert_int_equal(scxk_log2_bucket(128, 7, 8), 1);
	assert_int_equal(scxk_log2_bucket(16384, 7, 8), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_before_wraps),
		cmocka_unit_test(test_vtime_floor),
		cmocka_unit_test(test_weight_scaling),
		cmocka_unit_test(test_ewma),
		cmocka_unit_test(test_freq),
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_log2_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
