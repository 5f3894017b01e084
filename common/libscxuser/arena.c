// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buddy allocator for libscxuser (see scxuser/arena.h for its bounds).
 *
 * The heap is a row of top blocks. A block of order k covers 2^k bytes at
 * an offset that is a multiple of 2^k from the base, so its buddy is found
 * by flipping bit k of the offset, and merging stops at the top order.
 * The leaf byte of a block's first 64-byte leaf holds its order and
 * whether it is free or allocated; other leaves are 0, which is how a
 * pointer into the middle of a block is told apart from a block start.
 */
#include <errno.h>
#include <stdint.h>

#include <scxkit/sched_math.h>
#include <scxuser/arena.h>

#define LEAF_FREE  0x80
#define LEAF_USED  0x40
#define LEAF_ORDER 0x3f

/* Free blocks hold their own list links. */
struct scxu_arena_free {
	struct scxu_arena_free *next, *prev;
};

static size_t leaf_of(const struct scxu_arena *a, const void *p)
{
	return (size_t)((const uint8_t *)p - a->base) >> SCXU_ARENA_MIN_ORDER;
}

static void list_push(struct scxu_arena *a, unsigned int order, void *blk)
{
	struct scxu_arena_free *f = blk;

	f->prev = NULL;
	f->next = a->free[order];
	if (f->next)
		f->next->prev = f;
	a->free[order] = f;
	a->leaf[leaf_of(a, blk)] = LEAF_FREE | order;
}

static void list_del(struct scxu_arena *a, unsigned int order, struct scxu_arena_free *f)
{
	if (f->prev)
		f->prev->next = f->next;
	else
		a->free[order] = f->next;
	if (f->next)
		f->next->prev = f->prev;
	a->leaf[leaf_of(a, f)] = 0;
}

int scxu_arena_init(struct scxu_arena *a, void *mem, size_t len)
{
	uintptr_t start = (uintptr_t)mem, base;
	size_t usable, leaves, tops, i;
	unsigned int order;

	*a = (struct scxu_arena){0};
	base = (start + SCXU_ARENA_MAX_ALIGN - 1) & ~(SCXU_ARENA_MAX_ALIGN - 1);
	if (!mem || base - start >= len)
		return -EINVAL;
	usable = len - (base - start);
	/* Each 64-byte leaf costs one metadata byte at the end of the region. */
	leaves = usable / (SCXU_ARENA_MIN_BLOCK + 1);
	if (!leaves)
		return -EINVAL;
	order = SCXU_ARENA_MIN_ORDER;
	while (order < SCXU_ARENA_MAX_ORDER &&
	       (1UL << (order + 1)) <= leaves * SCXU_ARENA_MIN_BLOCK)
		order++;
	tops = (leaves * SCXU_ARENA_MIN_BLOCK) >> order;

	a->base = (uint8_t *)base;
	a->nr_leaves = tops << (order - SCXU_ARENA_MIN_ORDER);
	a->leaf = a->base + (tops << order);
	a->top_order = order;
	a->capacity = tops << order;
	for (i = 0; i < a->nr_leaves; i++)
		a->leaf[i] = 0;
	/* Pushed from the end so that the lowest addresses are used first. */
	for (i = tops; i > 0; i--)
		list_push(a, order, a->base + ((i - 1) << order));
	return 0;
}

static int order_for(const struct scxu_arena *a, size_t size, size_t align)
{
	unsigned int order;

	if (!size || (align & (align - 1)) || align > SCXU_ARENA_MAX_ALIGN)
		return -EINVAL;
	if (size < align)
		size = align;
	/* The smallest order whose block holds @size: ceil(log2(size)). */
	order = size > 1 ? scxk_log2(size - 1) + 1 : 0;
	if (order < SCXU_ARENA_MIN_ORDER)
		order = SCXU_ARENA_MIN_ORDER;
	return order > a->top_order ? -E2BIG : (int)order;
}

void *scxu_arena_alloc(struct scxu_arena *a, size_t size, size_t align)
{
	int want = order_for(a, size, align);
	unsigned int order;
	struct scxu_arena_free *blk;

	if (want < 0 || !a->base) {
		a->nr_fails++;
		return NULL;
	}
	for (order = want; order <= a->top_order && !a->free[order]; order++)
		;
	if (order > a->top_order) {
		a->nr_fails++;
		return NULL;
	}
	blk = a->free[order];
	list_del(a, order, blk);
	/* Split down, keeping the lower half and freeing the upper one. */
	while (order > (unsigned int)want) {
		order--;
		list_push(a, order, (uint8_t *)blk + (1UL << order));
	}
	a->leaf[leaf_of(a, blk)] = LEAF_USED | order;
	a->in_use += 1UL << order;
	if (a->in_use > a->peak)
		a->peak = a->in_use;
	a->nr_allocs++;
	return blk;
}

/* The leaf byte of a live block starting at @ptr, or -1. */
static int live_block(const struct scxu_arena *a, const void *ptr)
{
	const uint8_t *p = ptr;
	size_t off;

	if (!p || !a->base || p < a->base || p >= a->base + a->capacity)
		return -1;
	off = (size_t)(p - a->base);
	if (off & (SCXU_ARENA_MIN_BLOCK - 1))
		return -1;
	if (!(a->leaf[off >> SCXU_ARENA_MIN_ORDER] & LEAF_USED))
		return -1;
	return a->leaf[off >> SCXU_ARENA_MIN_ORDER];
}

int scxu_arena_free(struct scxu_arena *a, void *ptr)
{
	int meta = live_block(a, ptr);
	unsigned int order;
	size_t off;

	if (meta < 0)
		return -EINVAL;
	order = meta & LEAF_ORDER;
	off = (size_t)((uint8_t *)ptr - a->base);
	a->leaf[off >> SCXU_ARENA_MIN_ORDER] = 0;
	a->in_use -= 1UL << order;
	while (order < a->top_order) {
		size_t buddy = off ^ (1UL << order);
		uint8_t bm = a->leaf[buddy >> SCXU_ARENA_MIN_ORDER];

		if (bm != (LEAF_FREE | order))
			break;
		list_del(a, order, (struct scxu_arena_free *)(a->base + buddy));
		off &= ~(1UL << order);
		order++;
	}
	list_push(a, order, a->base + off);
	return 0;
}

size_t scxu_arena_usable(const struct scxu_arena *a, const void *ptr)
{
	int meta = live_block(a, ptr);

	return meta < 0 ? 0 : 1UL << (meta & LEAF_ORDER);
}
