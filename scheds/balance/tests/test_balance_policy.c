// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_balance's duty-cycle and deadline arithmetic (scheds/balance/policy.h)
 * and its domain layout (scheds/balance/domains.c) on sysfs fixtures.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "domains.h"
#include "policy.h"

#ifndef FIXTURE_DIR
#error "build with -DFIXTURE_DIR=\"<builddir>/tests/unit/fixtures/topo\""
#endif

#define MS  SCXK_NSEC_PER_MSEC
#define SEC SCXK_NSEC_PER_SEC
#define ONE BALANCE_RAVG_ONE

static double frac(u64 v)
{
	return (double)v / ONE;
}

static void test_decay(void **state)
{
	(void)state;
	assert_int_equal(balance_decay(ONE, 0, SEC), ONE);
	assert_int_equal(balance_decay(ONE, SEC, SEC), ONE / 2);
	assert_int_equal(balance_decay(ONE, 3 * SEC, SEC), ONE / 8);
	/* Fractions of a half-life within 0.1% of 2^-x. */
	for (u64 dt = 0; dt <= 2 * SEC; dt += 37 * MS)
		assert_true(fabs(frac(balance_decay(ONE, dt, SEC)) - pow(2, -(double)dt / SEC)) <
			    0.001);
	/* Far past, and a zero half-life, decay to nothing. */
	assert_int_equal(balance_decay(ONE, 100 * SEC, SEC), 0);
	assert_int_equal(balance_decay(ONE, SEC, 0), 0);
}

static void test_ravg_tracks_duty_cycle(void **state)
{
	struct balance_ravg r = {0};
	u64 t = 1000 * SEC, hl = SEC;

	(void)state;
	/* Runnable 30% of every 100 ms for 20 half-lives: the average is ~0.3. */
	for (int i = 0; i < 200; i++) {
		balance_ravg_set(&r, t, hl, true);
		t += 30 * MS;
		balance_ravg_set(&r, t, hl, false);
		t += 70 * MS;
	}
	assert_true(fabs(frac(balance_ravg_read(&r, t, hl)) - 0.3) < 0.02);
	/* Always runnable: tends to 1 and never exceeds it. */
	balance_ravg_set(&r, t, hl, true);
	assert_true(frac(balance_ravg_read(&r, t + 10 * SEC, hl)) > 0.99);
	assert_true(balance_ravg_read(&r, t + 100 * SEC, hl) <= ONE);
	/* Reading extrapolates without changing the state. */
	assert_int_equal(r.last, t);
	/* Asleep for one half-life: halved. */
	balance_ravg_set(&r, t + 20 * SEC, hl, false);
	assert_true(fabs(frac(balance_ravg_read(&r, t + 21 * SEC, hl)) - frac(r.val) / 2) < 0.001);
	/* A clock that goes backwards changes nothing. */
	assert_int_equal(balance_ravg_read(&r, t, hl), r.val);
}

static void test_deadline(void **state)
{
	u64 slice = 20 * MS, now = 100 * SEC, hog, chatty;
	bool clamped;

	(void)state;
	/* Same vruntime: the frequent short sleeper sorts first. */
	hog = balance_deadline(now, 20 * MS, 100, 0, slice);
	chatty = balance_deadline(now, 200 * 1000, 100, 500, slice);
	assert_true(chatty < hog);
	/* The runtime part is bounded by the slice. */
	assert_int_equal(balance_deadline(now, 10 * SEC, 100, 0, slice), now + slice);
	/* Heavier tasks' runtime counts less. */
	assert_true(balance_deadline(now, 10 * MS, 200, 0, slice) <
		    balance_deadline(now, 10 * MS, 100, 0, slice));
	/* Urgency grows with the wakeup rate up to its cap. */
	assert_int_equal(balance_lat_scale(0), 1);
	assert_int_equal(balance_lat_scale(BALANCE_LAT_FREQ_BASE), 2);
	assert_int_equal(balance_lat_scale(1000000), BALANCE_MAX_LAT_SCALE);
	/* Sleep credit: at most one slice behind the domain's clock. */
	assert_int_equal(balance_clamp_vtime(0, now, slice, &clamped), now - slice);
	assert_true(clamped);
	assert_int_equal(balance_clamp_vtime(now - MS, now, slice, &clamped), now - MS);
	assert_false(clamped);
	/* A light task's lead over the clock is bounded too. */
	assert_int_equal(balance_clamp_vtime(now + 10 * SEC, now, slice, &clamped),
			 now + BALANCE_MAX_VTIME_LEAD);
	assert_false(clamped);
	/* Nor can a weight-1 task's expected run push it more than a slice back. */
	assert_int_equal(balance_deadline(now, 10 * MS, 1, 0, slice), now + slice);
}

static struct scxk_topo *load(const char *name)
{
	char root[512];
	struct scxk_topo *t;

	snprintf(root, sizeof(root), "%s/%s", FIXTURE_DIR, name);
	assert_int_equal(scxk_topo_read_at(root, &t), 0);
	return t;
}

static void test_domains_per_llc(void **state)
{
	struct scxk_topo *t = load("numa2");
	struct balance_doms d;

	(void)state;
	assert_int_equal(balance_doms_build(t, NULL, 0, &d), 0);
	assert_int_equal(d.nr, 2);
	assert_int_equal(d.nr_nodes, 2);
	assert_int_equal(d.dom[0].nr_cpus, 8);
	assert_int_equal(d.dom[0].node, 0);
	assert_int_equal(d.dom[1].node, 1);
	assert_int_equal(d.cpu_dom[3], 0);
	assert_int_equal(d.cpu_dom[8], 0);
	assert_int_equal(d.cpu_dom[4], 1);
	balance_doms_free(&d);
	scxk_topo_free(t);

	t = load("amd-ccx");
	assert_int_equal(balance_doms_build(t, NULL, 0, &d), 0);
	assert_int_equal(d.nr, 4);
	assert_int_equal(d.nr_nodes, 1);
	for (int i = 0; i < 4; i++)
		assert_int_equal(d.dom[i].nr_cpus, 8);
	balance_doms_free(&d);
	scxk_topo_free(t);
}

static void test_domains_from_masks(void **state)
{
	struct scxk_topo *t = load("numa2");
	struct balance_doms d;
	const char *good[] = {"0-1,8-9", "2-3,10-11", "0xf0", "12-15"};
	const char *overlap[] = {"0-7", "7-15"};
	const char *gap[] = {"0-7", "8-14"};
	const char *absent[] = {"0-15", "16"};
	const char *empty[] = {"0-15", ""};

	(void)state;
	assert_int_equal(balance_doms_build(t, good, 4, &d), 0);
	assert_int_equal(d.nr, 4);
	assert_int_equal(d.dom[1].node, 0);
	assert_int_equal(d.dom[2].node, 1); /* node of its first CPU */
	assert_int_equal(d.cpu_dom[10], 1);
	assert_int_equal(d.cpu_dom[5], 2);
	balance_doms_free(&d);
	assert_int_equal(balance_doms_build(t, overlap, 2, &d), -EINVAL);
	assert_int_equal(balance_doms_build(t, gap, 2, &d), -EINVAL);
	assert_int_equal(balance_doms_build(t, absent, 2, &d), -EINVAL);
	assert_int_equal(balance_doms_build(t, empty, 2, &d), -EINVAL);
	scxk_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay),
		cmocka_unit_test(test_ravg_tracks_duty_cycle),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_domains_per_llc),
		cmocka_unit_test(test_domains_from_masks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
