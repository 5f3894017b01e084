// SPDX-License-Identifier: GPL-2.0-only
/* scx_brisk's deadline, sleep-credit and slice arithmetic (scheds/brisk/policy.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy.h"

#define MS SCXK_NSEC_PER_MSEC
#define US SCXK_NSEC_PER_USEC

static void test_lag_scale(void **state)
{
	(void)state;
	/* Rare wakers get at least 1x, frequent ones more, capped at 64x. */
	assert_int_equal(brisk_lag_scale(0, 0, 4, 5 * MS), 1);
	assert_int_equal(brisk_lag_scale(10, 0, 4, 5 * MS), 10);
	assert_int_equal(brisk_lag_scale(1000, 0, 4, 5 * MS), BRISK_MAX_LAG_SCALE);
	/* Queue pressure shrinks it: 16 queued on 4 CPUs (q = 16) halves it. */
	assert_int_equal(brisk_lag_scale(16, 16, 4, 5 * MS), 8);
	/* A storm (queued work >= 500 ms) removes the bonus entirely. */
	assert_int_equal(brisk_lag_scale(64, 100, 4, 5 * MS), 1);
	assert_int_equal(brisk_lag_scale(64, 99, 4, 5 * MS), 16 * 16 / (16 + 99));
	/* nr_cpus 0 never divides by zero. */
	assert_true(brisk_lag_scale(8, 3, 0, 5 * MS) >= 1);
}

static void test_lag_budget_bounds_storm_wait(void **state)
{
	u64 nr;

	(void)state;
	assert_true(brisk_lag_budget(0, 4) == ~0ULL);
	/* 160 hackbench tasks on 2 CPUs: 500 ms * 2 / 320 = 3.125 ms each. */
	assert_int_equal(brisk_lag_budget(160, 2), 3125 * US);
	for (nr = 1; nr < 5000; nr += 37) {
		u64 b = brisk_lag_budget(nr, 2);

		/* Worst wait (credit + awake) * nr / cpus stays within the guard. */
		assert_true(2 * b * nr / 2 <= BRISK_STARVE_GUARD_NS);
		assert_true(brisk_lag_budget(nr + 1, 2) <= b);
	}
	assert_true(brisk_lag_budget(3, 0) > 0);
}

/* deadline_of() with an unbounded budget, as the tests below read it. */
static u64 deadline_of(u64 vtime, u64 now, u64 awake, u64 slice_lag, u64 scale, u32 weight)
{
	return brisk_deadline(&vtime, now, awake, brisk_lag(slice_lag, scale, ~0ULL, false), ~0ULL,
			      slice_lag, weight, true);
}

static void test_place_is_deadline_without_awake(void **state)
{
	u64 now = 1000 * MS;

	(void)state;
	/* A long sleeper comes back one credit behind the clock, no further. */
	assert_true(brisk_place(10 * MS, now, 40 * MS, 2, 100) == now - 80 * MS);
	assert_true(brisk_place(now - MS, now, 40 * MS, 2, 100) == now - MS);
	assert_true(deadline_of(10 * MS, now, 3 * MS, 40 * MS, 2, 100) ==
		    brisk_place(10 * MS, now, 40 * MS, 2, 100) + 3 * MS);
	/* Heavy tasks get proportionally more credit, light ones no less. */
	assert_true(brisk_place(0, now, 40 * MS, 1, 200) == now - 80 * MS);
	assert_true(brisk_place(0, now, 40 * MS, 1, 1) == now - 40 * MS);
}

static void test_vtime_ceil(void **state)
{
	u64 now = 1000 * MS;

	(void)state;
	assert_true(brisk_vtime_ceil(now - 5 * MS, now, 40 * MS) == now - 5 * MS);
	assert_true(brisk_vtime_ceil(now + 39 * MS, now, 40 * MS) == now + 39 * MS);
	/* A nice 19 task 400 ms ahead comes back to the lead. */
	assert_true(brisk_vtime_ceil(now + 400 * MS, now, 40 * MS) == now + 40 * MS);
	/* Wrapped clock values compare as times, not as integers. */
	assert_true(brisk_vtime_ceil(5 * MS, ~0ULL - MS, 2 * MS) == (~0ULL - MS) + 2 * MS);
}

static void test_deadline_orders_interactive_first(void **state)
{
	u64 now = 1000 * MS, lag = 40 * MS;
	u64 hog, interactive, sleeper;

	(void)state;
	/* A hog at the clock, which has used its full awake allowance. */
	hog = deadline_of(now, now, brisk_awake_vtime(0, 100 * MS, 100, lag), lag, 1, 100);
	/* An interactive task that ran 200 us since waking, woken often. */
	interactive = deadline_of(now, now, brisk_awake_vtime(0, 200 * US, 100, lag), lag, 20, 100);
	assert_true(scxk_time_before(interactive, hog));
	/* A long sleeper is pulled up to (at most) its credit behind now. */
	sleeper = deadline_of(0, now, 0, lag, 1, 100);
	assert_int_equal(sleeper, now - lag);
	/* ... and a frequent waker may bank more credit than a rare one. */
	assert_true(deadline_of(0, now, 0, lag, 8, 100) < sleeper);
	/* Heavier tasks (lower nice) get proportionally more credit ... */
	assert_true(deadline_of(0, now, 0, lag, 1, 200) < sleeper);
	/* ... lighter ones (nice 19, weight 1) never less than nice 0. */
	assert_int_equal(deadline_of(0, now, 0, lag, 1, 1), sleeper);
}

/* What enqueue computes: the budget caps credit and awake time, kthreads excepted. */
static void test_deadline_budget_and_kthreads(void **state)
{
	u64 now = 1000 * MS, slice_lag = 20 * MS, budget = 30 * MS, v;

	(void)state;
	assert_int_equal(brisk_lag(slice_lag, 4, budget, false), budget);
	assert_int_equal(brisk_lag(slice_lag, 1, budget, false), slice_lag);
	assert_int_equal(brisk_lag(slice_lag, 1, budget, true), slice_lag * BRISK_MAX_LAG_SCALE);
	/* A long sleeper keeps the capped credit as its new vruntime. */
	v = 0;
	assert_int_equal(brisk_deadline(&v, now, 50 * MS, budget, budget, slice_lag, 100, true),
			 now - budget + budget);
	assert_int_equal(v, now - budget);
	/* A light task far ahead of the clock is brought back to the lead. */
	v = now + 400 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, budget, budget, slice_lag, 1, true),
			 now + slice_lag);
	assert_int_equal(v, now + slice_lag);
	/*
	 * Requeued without a wakeup (slice over, preempted): no sleep credit,
	 * so a heavy task that is behind by its share stays behind (cgroup
	 * weights flattened into charges 2-16x the run time would otherwise
	 * be squeezed into one credit), up to the lag budget and no further;
	 * the ceil still applies.
	 */
	v = now - 25 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, slice_lag, budget, slice_lag, 100, false),
			 now - 25 * MS);
	v = now - 200 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, slice_lag, budget, slice_lag, 100, false),
			 now - budget);
	v = now + 400 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, budget, budget, slice_lag, 1, false),
			 now + slice_lag);
	/* Nothing queued (budget ~0): neither bound, and no wrap below the clock. */
	v = now + 400 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, ~0ULL, ~0ULL, ~0ULL, 1, false), now + 400 * MS);
	v = now - 200 * MS;
	assert_int_equal(brisk_deadline(&v, now, 0, ~0ULL, ~0ULL, ~0ULL, 100, false),
			 now - 200 * MS);
}

static void test_awake_vtime_capped(void **state)
{
	u64 lag = 40 * MS, a = 0;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		a = brisk_awake_vtime(a, 5 * MS, 100, lag);
	assert_int_equal(a, lag);
	/* A heavier task (weight 200) accumulates half as fast. */
	assert_int_equal(brisk_awake_vtime(0, 10 * MS, 200, lag), 5 * MS);
	/* The cap does not grow for light tasks: nice 19 stays within reach. */
	assert_int_equal(brisk_awake_vtime(0, 10 * MS, 1, lag), lag);
}

static void test_slice(void **state)
{
	(void)state;
	assert_int_equal(brisk_slice(5 * MS, 250 * US, 100, 0), 5 * MS);
	assert_int_equal(brisk_slice(5 * MS, 250 * US, 100, 4), 1250 * US);
	/* Never below the minimum however many wait. */
	assert_int_equal(brisk_slice(5 * MS, 250 * US, 100, 1000), 250 * US);
	/* Weight scales it. */
	assert_int_equal(brisk_slice(5 * MS, 250 * US, 200, 1), 10 * MS);
	assert_int_equal(brisk_slice(5 * MS, 250 * US, 1, 1), 250 * US);
}

static void test_wakeup_freq(void **state)
{
	u64 f = 0;
	int i;

	(void)state;
	/* Waking every 5 ms is 20 per 100 ms. */
	for (i = 0; i < 50; i++)
		f = brisk_wakeup_freq(f, 5 * MS);
	assert_in_range(f, 19, 20);
	/* A rare waker decays toward 0. */
	for (i = 0; i < 50; i++)
		f = brisk_wakeup_freq(f, 10 * 1000 * MS);
	assert_int_equal(f, 0);
	/* Back-to-back wakeups are capped, no division by zero. */
	assert_true(brisk_wakeup_freq(0, 0) <= 1024);
}

static void test_preempt(void **state)
{
	(void)state;
	assert_true(brisk_should_preempt(100, 1000, 500));
	assert_false(brisk_should_preempt(600, 1000, 500));
	assert_false(brisk_should_preempt(1000, 1000, 0));
	/* Wrap-safe, like every vtime comparison. */
	assert_true(brisk_should_preempt(UINT64_MAX - 1000, 10, 500));
}

static void test_buckets_and_perf(void **state)
{
	(void)state;
	assert_int_equal(scxk_log2_bucket(0, 2, 8), 0);
	assert_int_equal(scxk_log2_bucket(3, 2, 8), 0);
	assert_int_equal(scxk_log2_bucket(4, 2, 8), 1);
	assert_int_equal(scxk_log2_bucket(7, 2, 8), 1);
	assert_int_equal(scxk_log2_bucket(8, 2, 8), 2);
	assert_int_equal(scxk_log2_bucket(1ULL << 40, 2, 8), 7);
	assert_int_equal(brisk_perf_target(0, 100), 0);
	assert_int_equal(brisk_perf_target(50, 100), 512);
	assert_int_equal(brisk_perf_target(75, 100), 1024);
	assert_int_equal(brisk_perf_target(200, 100), 1024);
	assert_int_equal(brisk_perf_target(5, 0), 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lag_scale),
		cmocka_unit_test(test_lag_budget_bounds_storm_wait),
		cmocka_unit_test(test_vtime_ceil),
		cmocka_unit_test(test_place_is_deadline_without_awake),
		cmocka_unit_test(test_deadline_orders_interactive_first),
		cmocka_unit_test(test_deadline_budget_and_kthreads),
		cmocka_unit_test(test_awake_vtime_capped),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_wakeup_freq),
		cmocka_unit_test(test_preempt),
		cmocka_unit_test(test_buckets_and_perf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
