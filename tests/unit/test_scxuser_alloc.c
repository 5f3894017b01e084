// SPDX-License-Identifier: GPL-2.0-only
/*
 * libscxuser's arena allocator (common/libscxuser/arena.c): bounds, exhaustion,
 * fragmentation and coalescing, alignment, and refusal of bad frees.
 * Linked against the shared libscxuser, which also proves that library
 * links and loads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxuser/arena.h>

#define REGION (1UL << 20) /* 1 MiB region for most tests */

static void *region;

static int setup(void **state)
{
	(void)state;
	region = aligned_alloc(4096, REGION + 4096);
	return region ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(region);
	return 0;
}

static void test_init_bounds(void **state)
{
	struct scxu_arena a;
	char small[64];

	(void)state;
	assert_int_equal(scxu_arena_init(&a, NULL, REGION), -22);
	assert_int_equal(scxu_arena_init(&a, small, sizeof(small)), -22);
	assert_int_equal(scxu_arena_init(&a, region, REGION), 0);
	/* 1 MiB minus 1/65 of metadata leaves one 512 KiB top block. */
	assert_int_equal(a.top_order, 19);
	assert_true(a.capacity + a.nr_leaves <= REGION);
	assert_int_equal((uintptr_t)a.base % 4096, 0);
	/* A misaligned start is aligned up and still fits. */
	assert_int_equal(scxu_arena_init(&a, (char *)region + 100, REGION), 0);
	assert_int_equal((uintptr_t)a.base % 4096, 0);
	assert_true(a.base + a.capacity + a.nr_leaves <= (uint8_t *)region + 100 + REGION);
}

static void test_sizes_round_to_powers_of_two(void **state)
{
	struct scxu_arena a;
	void *p;

	(void)state;
	scxu_arena_init(&a, region, REGION);
	assert_null(scxu_arena_alloc(&a, 0, 0));
	p = scxu_arena_alloc(&a, 1, 0);
	assert_non_null(p);
	assert_int_equal(scxu_arena_usable(&a, p), SCXU_ARENA_MIN_BLOCK);
	assert_int_equal(a.in_use, 64);
	p = scxu_arena_alloc(&a, 65, 0);
	assert_int_equal(scxu_arena_usable(&a, p), 128);
	p = scxu_arena_alloc(&a, 4096, 0);
	assert_int_equal(scxu_arena_usable(&a, p), 4096);
	/* Larger than the top block: refused, counted. */
	assert_null(scxu_arena_alloc(&a, a.capacity + 1, 0));
	assert_int_equal(a.nr_fails, 2);
	assert_int_equal(a.in_use, 64 + 128 + 4096);
}

static void test_exhaustion_and_recovery(void **state)
{
	struct scxu_arena a;
	void *blocks[1 << 14];
	size_t n = 0, i;

	(void)state;
	scxu_arena_init(&a, region, REGION);
	while (n < sizeof(blocks) / sizeof(blocks[0]) && (blocks[n] = scxu_arena_alloc(&a, 64, 0)))
		n++;
	/* Every 64-byte leaf of the heap was handed out, then alloc failed. */
	assert_int_equal(n, a.capacity / 64);
	assert_int_equal(a.in_use, a.capacity);
	assert_null(scxu_arena_alloc(&a, 64, 0));
	assert_true(a.nr_fails >= 1);
	/* Blocks are distinct and writable. */
	for (i = 0; i < n; i++)
		memset(blocks[i], (int)i, 64);
	for (i = 0; i < n; i++)
		assert_int_equal(((unsigned char *)blocks[i])[63], (unsigned char)i);
	for (i = 0; i < n; i++)
		assert_int_equal(scxu_arena_free(&a, blocks[i]), 0);
	assert_int_equal(a.in_use, 0);
	assert_int_equal(a.peak, a.capacity);
	/* Everything merged back: the whole top block is available again. */
	assert_non_null(scxu_arena_alloc(&a, a.capacity, 0));
}

static void test_fragmentation_and_coalescing(void **state)
{
	struct scxu_arena a;
	void *b[64];
	size_t half, i;

	(void)state;
	scxu_arena_init(&a, region, REGION);
	half = a.capacity / 64; /* 64 blocks fill the arena */
	for (i = 0; i < 64; i++)
		assert_non_null(b[i] = scxu_arena_alloc(&a, half, 0));
	/* Free every other block: half the memory is free ... */
	for (i = 0; i < 64; i += 2)
		assert_int_equal(scxu_arena_free(&a, b[i]), 0);
	assert_int_equal(a.in_use, a.capacity / 2);
	/* ... but no two free blocks are buddies, so a double-size block fails. */
	assert_null(scxu_arena_alloc(&a, 2 * half, 0));
	/* Same-size requests reuse the holes. */
	assert_non_null(b[0] = scxu_arena_alloc(&a, half, 0));
	assert_int_equal(scxu_arena_free(&a, b[0]), 0);
	/* Freeing the odd ones merges buddies all the way up. */
	for (i = 1; i < 64; i += 2)
		assert_int_equal(scxu_arena_free(&a, b[i]), 0);
	assert_non_null(scxu_arena_alloc(&a, a.capacity, 0));
}

static void test_alignment(void **state)
{
	struct scxu_arena a;
	size_t align;

	(void)state;
	scxu_arena_init(&a, (char *)region + 8, REGION);
	/* Perturb the layout so later blocks are not trivially aligned. */
	assert_non_null(scxu_arena_alloc(&a, 64, 0));
	for (align = 1; align <= SCXU_ARENA_MAX_ALIGN; align <<= 1) {
		void *p = scxu_arena_alloc(&a, 24, align);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % align, 0);
		/* Natural alignment: a block is aligned to its own size. */
		assert_int_equal((uintptr_t)p % scxu_arena_usable(&a, p), 0);
	}
	/* Not a power of two, or beyond 4096: refused. */
	assert_null(scxu_arena_alloc(&a, 64, 48));
	assert_null(scxu_arena_alloc(&a, 64, 8192));
}

static void test_bad_frees_change_nothing(void **state)
{
	struct scxu_arena a;
	char *p, *q;
	size_t used;

	(void)state;
	scxu_arena_init(&a, region, REGION);
	p = scxu_arena_alloc(&a, 256, 0);
	q = scxu_arena_alloc(&a, 64, 0);
	used = a.in_use;
	assert_int_equal(scxu_arena_free(&a, NULL), -22);
	assert_int_equal(scxu_arena_free(&a, p + 64), -22);		 /* inside a block */
	assert_int_equal(scxu_arena_free(&a, p + 3), -22);		 /* misaligned */
	assert_int_equal(scxu_arena_free(&a, (char *)region - 64), -22); /* outside */
	assert_int_equal(a.in_use, used);
	assert_int_equal(scxu_arena_free(&a, q), 0);
	assert_int_equal(scxu_arena_free(&a, q), -22); /* double free */
	assert_int_equal(a.in_use, used - 64);
	assert_int_equal(scxu_arena_usable(&a, q), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_bounds),
		cmocka_unit_test(test_sizes_round_to_powers_of_two),
		cmocka_unit_test(test_exhaustion_and_recovery),
		cmocka_unit_test(test_fragmentation_and_coalescing),
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_bad_frees_change_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
