// SPDX-License-Identifier: GPL-2.0-only
/*
 * What libscxuser's two sides agree on (include/scxuser/wire.h): the slice
 * an answer really gets, which is the code the BPF side runs when it
 * applies an answer, and the check of a record taken off the queued ring.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <scxuser/wire.h>

#define MS  (1000ULL * 1000)
#define DFL (5 * MS) /* struct scxu_opts.slice_ns's default */

static void test_slice_in_bounds_kept(void **state)
{
	bool clamped = true;

	(void)state;
	assert_int_equal(scxu_slice_bound(3 * MS, DFL, &clamped), 3 * MS);
	assert_false(clamped);
	assert_int_equal(scxu_slice_bound(SCXU_SLICE_MIN_NS, DFL, &clamped), SCXU_SLICE_MIN_NS);
	assert_false(clamped);
	assert_int_equal(scxu_slice_bound(SCXU_SLICE_MAX_NS, DFL, &clamped), SCXU_SLICE_MAX_NS);
	assert_false(clamped);
	/* 0 asks for the default: not a clamp. */
	assert_int_equal(scxu_slice_bound(0, DFL, &clamped), DFL);
	assert_false(clamped);
}

static void test_slice_out_of_bounds_clamped(void **state)
{
	bool clamped = false;

	(void)state;
	assert_int_equal(scxu_slice_bound(1, DFL, &clamped), SCXU_SLICE_MIN_NS);
	assert_true(clamped);
	assert_int_equal(scxu_slice_bound(SCXU_SLICE_MIN_NS - 1, DFL, &clamped), SCXU_SLICE_MIN_NS);
	assert_true(clamped);
	clamped = false;
	assert_int_equal(scxu_slice_bound(UINT64_MAX, DFL, &clamped), SCXU_SLICE_MAX_NS);
	assert_true(clamped);
	clamped = false;
	assert_int_equal(scxu_slice_bound(SCXU_SLICE_MAX_NS + 1, DFL, &clamped), SCXU_SLICE_MAX_NS);
	assert_true(clamped);
	/* A default outside the bounds is held to them as well. */
	clamped = false;
	assert_int_equal(scxu_slice_bound(0, 0, &clamped), SCXU_SLICE_MIN_NS);
	assert_true(clamped);
}

static void test_short_record_is_an_error(void **state)
{
	struct scxu_task rec = {.pid = 42, .cpu = 1, .comm = "worker"};
	struct scxu_task t;

	(void)state;
	memset(&t, 0x5a, sizeof(t));
	assert_int_equal(scxu_task_from_record(&t, &rec, sizeof(rec) - 1), -EBADMSG);
	assert_int_equal(scxu_task_from_record(&t, &rec, 0), -EBADMSG);
	/* Untouched: nothing of a short record may look like a task. */
	for (size_t i = 0; i < sizeof(t); i++)
		assert_int_equal(((unsigned char *)&t)[i], 0x5a);
	assert_int_equal(scxu_task_from_record(&t, &rec, sizeof(rec)), 0);
	assert_int_equal(t.pid, 42);
	assert_string_equal(t.comm, "worker");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slice_in_bounds_kept),
		cmocka_unit_test(test_slice_out_of_bounds_clamped),
		cmocka_unit_test(test_short_record_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
