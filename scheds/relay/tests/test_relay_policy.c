// SPDX-License-Identifier: GPL-2.0-only
/* scx_relay's vruntime, deadline, slice and ordering (scheds/relay/policy.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "policy.h"

#define MS SCXK_NSEC_PER_MSEC
#define US SCXK_NSEC_PER_USEC

static const struct relay_params P = {.slice_ns = 20 * MS, .slice_min_ns = 1 * MS};

static void test_vruntime_new_and_sleepers(void **state)
{
	u64 vnow = 10000 * MS;

	(void)state;
	/* A new task starts at now and is charged what it ran. */
	assert_int_equal(relay_vruntime(0, vnow, 0, 100, &P), vnow);
	assert_int_equal(relay_vruntime(0, vnow, 3 * MS, 100, &P), vnow + 3 * MS);
	/* A long sleeper is lifted to at most one slice behind. */
	assert_int_equal(relay_vruntime(5 * MS, vnow, 0, 100, &P), vnow - P.slice_ns);
	/* A task ahead of now keeps its vruntime. */
	assert_int_equal(relay_vruntime(vnow + 7 * MS, vnow, 0, 100, &P), vnow + 7 * MS);
	/* Heavier tasks' vruntime grows slower: weight 200 charges half. */
	assert_int_equal(relay_vruntime(vnow, vnow, 4 * MS, 200, &P), vnow + 2 * MS);
	assert_int_equal(relay_vruntime(vnow, vnow, 4 * MS, 50, &P), vnow + 8 * MS);
	/* Early in a run (vnow < slice) the floor wraps but stays correct. */
	assert_int_equal(relay_vruntime(0, 0, 1 * MS, 100, &P), 1 * MS);
}

static void test_deadline_interactive_before_hog(void **state)
{
	u64 vnow = 5000 * MS, t = 777 * MS;
	u64 hog, interactive;

	(void)state;
	/* Same queue time and vruntime: the one that slept recently wins. */
	hog = relay_deadline(t, vnow, vnow, 150 * MS, 100, &P);
	interactive = relay_deadline(t, vnow, vnow, 200 * US, 100, &P);
	assert_true(interactive < hog);
	/* The lag is bounded: a hog waits at most 10 slices behind newcomers. */
	assert_int_equal(relay_deadline(t, vnow, vnow, 10000 * MS, 100, &P),
			 t + RELAY_RUNTIME_CAP_SLICES * P.slice_ns);
	assert_int_equal(relay_deadline(t, vnow + 900 * MS, vnow, 10000 * MS, 1, &P),
			 t + RELAY_RUNTIME_CAP_SLICES * P.slice_ns);
	/* A task at the sleeper floor with no runtime is due when queued. */
	assert_int_equal(relay_deadline(t, vnow - P.slice_ns, vnow, 0, 100, &P), t);
	/* Ahead in vruntime means waiting that much longer. */
	assert_int_equal(relay_deadline(t, vnow, vnow, 0, 100, &P), t + P.slice_ns);
	/* Weight shortens the runtime lag. */
	assert_true(relay_deadline(t, vnow, vnow, 10 * MS, 400, &P) <
		    relay_deadline(t, vnow, vnow, 10 * MS, 100, &P));
}

static void test_no_starvation_by_newcomers(void **state)
{
	u64 vnow = 1000 * MS, t0 = 100 * MS;
	u64 hog = relay_deadline(t0, vnow, vnow, 1000 * MS, 100, &P);
	u64 later;

	(void)state;
	/* The most urgent newcomer queued one cap later comes after the hog. */
	later = relay_deadline(t0 + RELAY_RUNTIME_CAP_SLICES * P.slice_ns + 1, vnow - P.slice_ns,
			       vnow, 0, 100, &P);
	assert_true(hog < later);
}

static void test_slice(void **state)
{
	(void)state;
	/* Alone: the full slice; shared among waiters down to the minimum. */
	assert_int_equal(relay_slice(0, 100, &P), 20 * MS);
	assert_int_equal(relay_slice(3, 100, &P), 5 * MS);
	assert_int_equal(relay_slice(1000, 100, &P), 1 * MS);
	/* Weight scales it within [min, max]. */
	assert_int_equal(relay_slice(3, 200, &P), 10 * MS);
	assert_int_equal(relay_slice(0, 10000, &P), 20 * MS);
	assert_int_equal(relay_slice(3, 1, &P), 1 * MS);
}

static void test_order_ties(void **state)
{
	struct relay_item a = {.deadline = 10, .enq_ts = 5, .pid = 9};
	struct relay_item b = a;

	(void)state;
	b.deadline = 11;
	assert_true(relay_before(&a, &b));
	assert_false(relay_before(&b, &a));
	b = a;
	b.enq_ts = 6;
	assert_true(relay_before(&a, &b));
	b = a;
	b.pid = 10;
	assert_true(relay_before(&a, &b));
	assert_false(relay_before(&a, &a));
	/* Wrap-safe: a deadline just past the u64 wrap is later. */
	a.deadline = UINT64_MAX - 5;
	b.deadline = 3;
	assert_true(relay_before(&a, &b));
}

static void test_heap_pops_in_order(void **state)
{
	struct relay_item items[257], it, prev;
	struct relay_heap h = {.items = items, .cap = 256};
	unsigned int seed = 12345, i;

	(void)state;
	for (i = 0; i < 256; i++) {
		it = (struct relay_item){
			.deadline = rand_r(&seed) % 97, .enq_ts = i, .pid = (s32)i};
		assert_true(relay_heap_push(&h, &it));
	}
	it.pid = -1;
	assert_false(relay_heap_push(&h, &it)); /* full */
	assert_int_equal(h.nr, 256);
	assert_true(relay_heap_pop(&h, &prev));
	for (i = 1; i < 256; i++) {
		assert_true(relay_heap_pop(&h, &it));
		assert_false(relay_before(&it, &prev));
		prev = it;
	}
	assert_false(relay_heap_pop(&h, &it));
	assert_int_equal(h.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vruntime_new_and_sleepers),
		cmocka_unit_test(test_deadline_interactive_before_hog),
		cmocka_unit_test(test_no_starvation_by_newcomers),
		cmocka_unit_test(test_slice),
		cmocka_unit_test(test_order_ties),
		cmocka_unit_test(test_heap_pops_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
