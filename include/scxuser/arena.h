/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arena.h - a buddy allocator over memory the caller provides once.
 *
 * A user-space scheduler must never wait for a page fault (the kernel
 * thread that would resolve it may be waiting for the scheduler), so
 * libscxuser maps and locks one region at start-up and hands out memory
 * from it with this allocator. It is pure: no system calls, no malloc, so
 * it is tested on the host exactly as it runs.
 *
 * Bounds, all fixed at scxu_arena_init():
 * - blocks are powers of two from SCXU_ARENA_MIN_BLOCK (64 B) up to the
 *   arena's top block (the largest power of two <= the usable size, at
 *   most SCXU_ARENA_MAX_BLOCK, 1 MiB); larger requests fail;
 * - a request of n bytes takes the next power of two >= n (at least
 *   64 B), so internal waste is under 50%;
 * - every block is aligned to min(its size, 4096) bytes: any alignment up
 *   to 4096 that does not exceed the rounded size is free; larger
 *   alignments are refused;
 * - metadata: one byte per 64-byte leaf, taken from the region itself
 *   (1/65 of it), plus the header struct;
 * - alloc and free are O(log(top/64)) with no hidden growth: when the
 *   arena is exhausted, alloc returns NULL and counts a failure.
 * Not thread-safe: one scheduling thread owns an arena.
 */
#ifndef __SCXUSER_ARENA_H
#define __SCXUSER_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define SCXU_ARENA_MIN_ORDER 6	/* 64 B */
#define SCXU_ARENA_MAX_ORDER 20 /* 1 MiB */
#define SCXU_ARENA_MIN_BLOCK (1UL << SCXU_ARENA_MIN_ORDER)
#define SCXU_ARENA_MAX_BLOCK (1UL << SCXU_ARENA_MAX_ORDER)
#define SCXU_ARENA_MAX_ALIGN 4096UL

struct scxu_arena_free;

struct scxu_arena {
	uint8_t *base;	  /* first block, 4096-aligned */
	size_t nr_leaves; /* 64-byte leaves in the heap */
	uint8_t *leaf;	  /* per leaf: block order | flags */
	unsigned int top_order;
	struct scxu_arena_free *free[SCXU_ARENA_MAX_ORDER + 1];
	size_t capacity; /* bytes in top blocks */
	size_t in_use;	 /* bytes handed out (rounded sizes) */
	size_t peak;	 /* highest in_use */
	uint64_t nr_allocs, nr_fails;
};

/**
 * scxu_arena_init - lay an arena over @mem
 * @a: the arena
 * @mem: @len bytes the arena owns from now on (already locked in memory)
 * @len: at least 4096 + 2 * 64 + metadata
 *
 * Return: 0, or -EINVAL if @len is too small for one 64-byte block.
 */
int scxu_arena_init(struct scxu_arena *a, void *mem, size_t len);

/**
 * scxu_arena_alloc - a block of at least @size bytes aligned to @align
 * @align: 0 or a power of two up to SCXU_ARENA_MAX_ALIGN
 *
 * Return: the block (contents undefined), or NULL if @size is 0, larger
 * than the top block, @align is invalid, or no block is free.
 */
void *scxu_arena_alloc(struct scxu_arena *a, size_t size, size_t align);

/**
 * scxu_arena_free - give back a block from scxu_arena_alloc()
 *
 * Return: 0, or -EINVAL for NULL, a pointer outside the arena, one that is
 * not the start of a live block, or a double free (nothing is changed).
 */
int scxu_arena_free(struct scxu_arena *a, void *ptr);

/** scxu_arena_usable - bytes the block at @ptr really holds (its rounded size) */
size_t scxu_arena_usable(const struct scxu_arena *a, const void *ptr);

#endif /* __SCXUSER_ARENA_H */
