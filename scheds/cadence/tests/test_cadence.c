// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence's arithmetic (scheds/cadence/policy.h): criticality,
 * deadlines, slices, compaction, power modes, frequency and the CPU
 * preference order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy.h"

#define MS SCXK_NSEC_PER_MSEC
#define US SCXK_NSEC_PER_USEC

static void test_lat_cri_orders_chain_above_hog(void **state)
{
	u64 chain, hog, sleeper;

	(void)state;
	/* A frame stage: waits and wakes 60x/s, runs 300 us, woken with boosts. */
	chain = cadence_lat_cri(60, 60, 300 * US, 100, CADENCE_BOOST_WAKEUP + CADENCE_BOOST_SYNC);
	/* A CPU hog: never waits or wakes anyone, 5 ms runs, no boost. */
	hog = cadence_lat_cri(0, 0, 5 * MS, 100, 0);
	/* A sleeper that waits often but wakes nobody. */
	sleeper = cadence_lat_cri(60, 0, 300 * US, 100, CADENCE_BOOST_WAKEUP);
	assert_true(chain > sleeper);
	assert_true(sleeper > hog);
	/* Squaring spreads them: the chain is several times the hog. */
	assert_true(chain > 3 * hog);
	/* Exact value for the hog: log2(1) + log2(1991 * 101) = 17, squared. */
	assert_int_equal(hog, 17 * 17);
}

static void test_lat_cri_inputs(void **state)
{
	(void)state;
	/* Shorter runs and more boost never lower criticality. */
	assert_true(cadence_lat_cri(10, 10, 100 * US, 100, 0) >=
		    cadence_lat_cri(10, 10, 10 * MS, 100, 0));
	assert_true(cadence_lat_cri(10, 10, 1 * MS, 100, CADENCE_BOOST_IRQ) >
		    cadence_lat_cri(10, 10, 1 * MS, 100, 0));
	/* Frequencies saturate at CADENCE_FREQ_MAX; runtimes beyond 1 s too. */
	assert_int_equal(cadence_lat_cri(CADENCE_FREQ_MAX, 5, 1 * MS, 100, 0),
			 cadence_lat_cri(10 * CADENCE_FREQ_MAX, 5, 1 * MS, 100, 0));
	assert_int_equal(cadence_lat_cri(0, 0, 5 * SCXK_NSEC_PER_SEC, 100, 0),
			 cadence_lat_cri(0, 0, SCXK_NSEC_PER_SEC, 100, 0));
	/* Never 0: it is a divisor. */
	assert_true(cadence_lat_cri(0, 0, SCXK_NSEC_PER_SEC, 0, 0) >= 1);
}

static void test_inherit(void **state)
{
	(void)state;
	/* A less critical waker gives nothing. */
	assert_int_equal(cadence_inherit(400, 100), 400);
	assert_int_equal(cadence_inherit(400, 400), 400);
	/* 1/8 of the gap... */
	assert_int_equal(cadence_inherit(400, 480), 410);
	/* ...capped at a quarter of the wakee's own value. */
	assert_int_equal(cadence_inherit(400, 10000), 500);
}

static void test_normalize_and_preempt_thresh(void **state)
{
	(void)state;
	assert_int_equal(cadence_normalize(50, 100), 512);
	assert_int_equal(cadence_normalize(200, 100), 1024);
	assert_int_equal(cadence_normalize(5, 0), 1024);
	/* shift 6: the top 1/64 of the avg..max range. */
	assert_int_equal(cadence_preempt_thresh(1000, 360, 6), 990);
	assert_int_equal(cadence_preempt_thresh(1000, 360, 0), 360);
	assert_int_equal(cadence_preempt_thresh(300, 500, 6), 300);
	assert_int_equal(cadence_preempt_thresh(1000, 0, 200), 1000);
}

static void test_dl_preempts(void **state)
{
	(void)state;
	/* A probe (about 2.7 ms) may preempt a CPU hog (about 6 ms). */
	assert_true(cadence_dl_preempts(2700 * US, 6000 * US));
	/* Peers within a quarter of each other never preempt each other. */
	assert_false(cadence_dl_preempts(4600 * US, 6000 * US));
	assert_false(cadence_dl_preempts(4500 * US, 6000 * US));
	assert_true(cadence_dl_preempts(4499 * US, 6000 * US));
	/* Kernel threads queue at the clock (distance 0) and preempt hogs... */
	assert_true(cadence_dl_preempts(0, 6000 * US));
	/* ...but nothing preempts a task whose distance is unknown or 0. */
	assert_false(cadence_dl_preempts(0, 0));
	assert_false(cadence_dl_preempts(100 * US, 0));
}

static void test_greedy_penalty(void **state)
{
	(void)state;
	/* Behind or at the average: no penalty. */
	assert_int_equal(cadence_greedy_penalty(100 * MS, 200 * MS), CADENCE_SCALE);
	assert_int_equal(cadence_greedy_penalty(200 * MS, 200 * MS), CADENCE_SCALE);
	/* Half the lag bound ahead: 1.5x; beyond the bound: 2x, no more. */
	assert_int_equal(cadence_greedy_penalty(200 * MS + CADENCE_LAG_MAX_NS / 2, 200 * MS),
			 CADENCE_SCALE * 3 / 2);
	assert_int_equal(cadence_greedy_penalty(10 * SCXK_NSEC_PER_SEC, 0), 2 * CADENCE_SCALE);
}

static void test_svc_floor_bounds_sleep_credit(void **state)
{
	u64 avg = 10 * SCXK_NSEC_PER_SEC;

	(void)state;
	/* A long sleeper comes back at most CADENCE_LAG_MAX_NS behind. */
	assert_int_equal(cadence_svc_floor(0, avg), avg - CADENCE_LAG_MAX_NS);
	assert_int_equal(cadence_svc_floor(avg - 10 * MS, avg), avg - 10 * MS);
	assert_int_equal(cadence_svc_floor(avg + 10 * MS, avg), avg + 10 * MS);
	/* Early on (clock below the bound) nothing underflows. */
	assert_int_equal(cadence_svc_floor(0, 10 * MS), 0);
}

static void test_compete_window(void **state)
{
	(void)state;
	assert_int_equal(cadence_compete_window(4, 0), CADENCE_COMPETE_WINDOW_NS);
	assert_int_equal(cadence_compete_window(4, 4), CADENCE_COMPETE_WINDOW_NS);
	/* Oversubscribed 4x: a quarter of the window. */
	assert_int_equal(cadence_compete_window(4, 16), CADENCE_COMPETE_WINDOW_NS / 4);
	/* A storm: bounded below, never zero. */
	assert_int_equal(cadence_compete_window(2, 100000), CADENCE_COMPETE_WINDOW_MIN_NS);
	assert_int_equal(cadence_compete_window(0, 8), CADENCE_COMPETE_WINDOW_NS / 8);
}

static void test_deadline_delta(void **state)
{
	u64 w = CADENCE_COMPETE_WINDOW_NS, chain, hog, greedy;

	(void)state;
	chain = cadence_deadline_delta(300 * US, CADENCE_SCALE, 1400, w);
	hog = cadence_deadline_delta(50 * MS, CADENCE_SCALE, 300, w);
	greedy = cadence_deadline_delta(50 * MS, 2 * CADENCE_SCALE, 300, 6 * w);
	/* (1 ms + 300 us) * 1024 / 1400 */
	assert_int_equal(chain, (1 * MS + 300 * US) * 1024 / 1400);
	/* A fresh short runner is far ahead of a hog: base 1 ms, not 5 ms. */
	assert_true(chain * 4 < hog);
	/* Awake time counts up to 5 ms; the penalty doubles, up to the window. */
	assert_int_equal(hog, 6 * MS * 1024 / 300);
	assert_int_equal(greedy, 2 * hog);
	assert_int_equal(cadence_deadline_delta(50 * MS, 2 * CADENCE_SCALE, 300, hog), hog);
	/* Under oversubscription the window caps everyone: storms go FIFO-like. */
	assert_int_equal(cadence_deadline_delta(50 * MS, CADENCE_SCALE, 300, 2 * MS), 2 * MS);
	/* lat_cri 0 cannot divide by zero. */
	assert_int_equal(cadence_deadline_delta(0, CADENCE_SCALE, 0, w), w);
}

static void test_clock_advance(void **state)
{
	(void)state;
	assert_int_equal(cadence_clock_advance(1000, 2000, 1), 2000);
	assert_int_equal(cadence_clock_advance(1000, 2000, 4), 1250);
	/* Never backwards, never divides by zero. */
	assert_int_equal(cadence_clock_advance(1000, 500, 1), 1000);
	assert_int_equal(cadence_clock_advance(1000, 3000, 0), 3000);
	/* Wrap-safe near the top of u64. */
	assert_int_equal(cadence_clock_advance(~0ULL - 10, 5, 1), 5);
}

/*
 * Issue 23: two CPU hogs of weight 300 and 100 sharing a CPU, each run
 * going to the earlier deadline, split it 3:1 whatever their criticality
 * adds; a waking sleeper, raised to the clock less its credit, still goes
 * before both. With the old deadline (clock + delta) the split was 1:1.
 */
static void test_deadline_shares_follow_weight(void **state)
{
	u64 lc = cadence_lat_cri(0, 0, 5 * MS, 100, 0);
	u64 chain = cadence_lat_cri(60, 60, 300 * US, 100, CADENCE_BOOST_WAKEUP);
	u64 svc[2] = {0, 0}, ran[2] = {0, 0}, dl[2], clk = 0, sleeper;
	const u32 w[2] = {300, 100};
	int i, n;

	(void)state;
	for (n = 0; n < 4000; n++) {
		for (i = 0; i < 2; i++)
			dl[i] = cadence_deadline(
				svc[i],
				cadence_deadline_delta(5 * MS, cadence_greedy_penalty(svc[i], clk),
						       lc, CADENCE_COMPETE_WINDOW_NS));
		i = scxk_time_before(dl[1], dl[0]);
		clk = cadence_clock_advance(clk, dl[i], 2);
		ran[i] += 5 * MS;
		svc[i] += scxk_scale_by_weight_inv(5 * MS, w[i]);
	}
	assert_in_range(ran[0] * 100 / ran[1], 290, 310);
	sleeper = cadence_deadline(
		cadence_svc_floor(0, clk),
		cadence_deadline_delta(0, CADENCE_SCALE, chain, CADENCE_COMPETE_WINDOW_NS));
	assert_true(scxk_time_before(sleeper, dl[0]) && scxk_time_before(sleeper, dl[1]));
}

static void test_slices(void **state)
{
	u64 lo = 500 * US, hi = 5 * MS, s;

	(void)state;
	/* Nothing queued: the maximum. */
	assert_int_equal(cadence_sys_slice(4, 0, lo, hi), hi);
	/* 10 ms target over 4 CPUs and 20 queued: 2 ms. */
	assert_int_equal(cadence_sys_slice(4, 20, lo, hi), 2 * MS);
	/* Few queued: clamped to the maximum; a storm: the minimum. */
	assert_int_equal(cadence_sys_slice(4, 2, lo, hi), hi);
	assert_int_equal(cadence_sys_slice(4, 1000, lo, hi), lo);
	/* Smoothing: 1/8 of the step, and the first sample taken as is. */
	assert_int_equal(cadence_slice_smooth(0, 3 * MS), 3 * MS);
	s = cadence_slice_smooth(5 * MS, 1 * MS);
	assert_int_equal(s, 5 * MS - 4 * MS / 8);

	/* Task slice: short runners get the base. */
	assert_int_equal(cadence_task_slice(2 * MS, 300 * US, false, lo, hi), 2 * MS);
	/* A long runner gets its run plus a margin while CPUs are spare... */
	assert_int_equal(cadence_task_slice(2 * MS, 12 * MS, false, lo, hi),
			 12 * MS + CADENCE_SLICE_BOOST_MARGIN_NS);
	/* ...bounded at 8x the maximum... */
	assert_int_equal(cadence_task_slice(2 * MS, 500 * MS, false, lo, hi),
			 CADENCE_SLICE_BOOST_MAX_MULT * hi);
	/* ...and never when the system is saturated. */
	assert_int_equal(cadence_task_slice(2 * MS, 12 * MS, true, lo, hi), 2 * MS);
}

/* compact()'s walk over a preference order of @caps, with the policy's step. */
static int compact_count(const unsigned int *caps, int n, u64 required)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < n; i++)
		if (cadence_compact_add(&sum, caps[i], required))
			return i + 1;
	return n;
}

static void test_compaction(void **state)
{
	unsigned int caps[4] = {1024, 1024, 1024, 1024};
	unsigned int hybrid[4] = {1024, 1024, 640, 640};

	(void)state;
	/* 25% headroom. */
	assert_int_equal(cadence_required_cap(1024), 1280);
	assert_int_equal(cadence_required_cap(0), 0);
	/* Each CPU counts half its capacity: 1280 needs three 512s. */
	assert_int_equal(compact_count(caps, 4, 1280), 3);
	/* Idle: one CPU stays active. */
	assert_int_equal(compact_count(caps, 4, 0), 1);
	assert_int_equal(compact_count(caps, 4, 400), 1);
	assert_int_equal(compact_count(caps, 4, 513), 2);
	/* More than the machine has: everything. */
	assert_int_equal(compact_count(caps, 4, 100000), 4);
	/* Smaller cores count for less. */
	assert_int_equal(compact_count(hybrid, 4, 1024 + 321), 4);
	assert_int_equal(cadence_cpu_contrib(0), 0);
}

static void test_autopilot(void **state)
{
	(void)state;
	assert_int_equal(cadence_autopilot(100, 512, 2048), CADENCE_PM_POWERSAVE);
	assert_int_equal(cadence_autopilot(512, 512, 2048), CADENCE_PM_BALANCED);
	assert_int_equal(cadence_autopilot(2048, 512, 2048), CADENCE_PM_BALANCED);
	assert_int_equal(cadence_autopilot(2049, 512, 2048), CADENCE_PM_PERFORMANCE);
}

static void test_perf_target(void **state)
{
	(void)state;
	assert_int_equal(cadence_perf_target(0), 1);
	assert_int_equal(cadence_perf_target(300), 300);
	/* Full speed from 85% busy. */
	assert_int_equal(cadence_perf_target(CADENCE_PERF_FULL_UTIL - 1),
			 CADENCE_PERF_FULL_UTIL - 1);
	assert_int_equal(cadence_perf_target(CADENCE_PERF_FULL_UTIL), CADENCE_SCALE);
	assert_int_equal(cadence_perf_target(5000), CADENCE_SCALE);
}

static void test_perf_cri(void **state)
{
	u64 worker, idler, thr;

	(void)state;
	/* A busy worker in a chain beats a rarely running idler. */
	worker = cadence_perf_cri(100, 100, 100, 5 * MS, 100);
	idler = cadence_perf_cri(1, 0, 1, 50 * US, 100);
	assert_true(worker > idler);
	/* Threshold: all big capacity -> min; none -> max; half -> avg. */
	assert_int_equal(cadence_perf_thresh(10, 20, 40, 1024), 10);
	assert_int_equal(cadence_perf_thresh(10, 20, 40, 0), 40);
	assert_int_equal(cadence_perf_thresh(10, 20, 40, 512), 20);
	thr = cadence_perf_thresh(10, 20, 40, 768);
	assert_int_equal(thr, 15);
	/* Inconsistent inputs (min above avg) stay within [avg, max]. */
	assert_int_equal(cadence_perf_thresh(30, 20, 10, 1024), 20);
}

static void test_cpu_order(void **state)
{
	/* Two SMT P-cores (CPUs 0-3) and four E-cores (4-7), one LLC. */
	struct cadence_cpu_desc c[8];
	int perf[8], save[8], i;

	(void)state;
	for (i = 0; i < 8; i++)
		c[i] = (struct cadence_cpu_desc){.cpu = 7 - i, .node = 0, .llc = 0};
	for (i = 0; i < 8; i++) {
		int cpu = c[i].cpu;

		c[i].capacity = cpu < 4 ? 1024 : 640;
		c[i].core = cpu < 4 ? cpu / 2 : cpu - 2;
		c[i].smt_rank = cpu < 4 ? cpu % 2 : 0;
	}
	cadence_cpu_order(c, 8, false);
	for (i = 0; i < 8; i++)
		perf[i] = c[i].cpu;
	/* Big first, one thread per core before siblings. */
	int want_perf[8] = {0, 2, 1, 3, 4, 5, 6, 7};
	assert_memory_equal(perf, want_perf, sizeof(perf));

	cadence_cpu_order(c, 8, true);
	for (i = 0; i < 8; i++)
		save[i] = c[i].cpu;
	/* Little first; big cores packed sibling by sibling. */
	int want_save[8] = {4, 5, 6, 7, 0, 1, 2, 3};
	assert_memory_equal(save, want_save, sizeof(save));
}

static void test_cpu_order_llc_and_node(void **state)
{
	/* Two nodes, one LLC each, equal capacity: stay on node 0 first. */
	struct cadence_cpu_desc c[4] = {
		{.cpu = 0, .capacity = 1024, .node = 1, .llc = 1, .core = 0},
		{.cpu = 1, .capacity = 1024, .node = 0, .llc = 0, .core = 1},
		{.cpu = 2, .capacity = 1024, .node = 1, .llc = 1, .core = 2},
		{.cpu = 3, .capacity = 1024, .node = 0, .llc = 0, .core = 3},
	};
	int want[4] = {1, 3, 0, 2}, got[4], i;

	(void)state;
	cadence_cpu_order(c, 4, false);
	for (i = 0; i < 4; i++)
		got[i] = c[i].cpu;
	assert_memory_equal(got, want, sizeof(got));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lat_cri_orders_chain_above_hog),
		cmocka_unit_test(test_lat_cri_inputs),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_normalize_and_preempt_thresh),
		cmocka_unit_test(test_dl_preempts),
		cmocka_unit_test(test_greedy_penalty),
		cmocka_unit_test(test_svc_floor_bounds_sleep_credit),
		cmocka_unit_test(test_compete_window),
		cmocka_unit_test(test_deadline_delta),
		cmocka_unit_test(test_clock_advance),
		cmocka_unit_test(test_deadline_shares_follow_weight),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_compaction),
		cmocka_unit_test(test_autopilot),
		cmocka_unit_test(test_perf_target),
		cmocka_unit_test(test_perf_cri),
		cmocka_unit_test(test_cpu_order),
		cmocka_unit_test(test_cpu_order_llc_and_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
