/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpumask.h - fixed-size CPU bitmaps for user space, plus parsers and
 * formatters for the two text forms sysfs and users speak: cpu lists
 * ("0-3,8-11") and hex masks ("0xff", "00000000,0000ff00").
 *
 * The size is fixed so that a mask can be copied, compared and embedded
 * without allocation, and so that it matches the BPF-side layout
 * (scxkit/topo_data.h uses the same SCXK_MAX_CPUS).
 */
#ifndef __SCXKIT_CPUMASK_H
#define __SCXKIT_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SCXK_MAX_CPUS
#define SCXK_MAX_CPUS 1024
#endif
#define SCXK_CPUMASK_WORD_BITS 64
#define SCXK_CPUMASK_WORDS     (SCXK_MAX_CPUS / SCXK_CPUMASK_WORD_BITS)

/* Big enough for any list of SCXK_MAX_CPUS CPUs ("0,2,4,...,1022" is ~2000). */
#define SCXK_CPULIST_BUF_LEN 4096
/* "0x" + one hex digit per 4 CPUs + NUL */
#define SCXK_CPUHEX_BUF_LEN (2 + SCXK_MAX_CPUS / 4 + 1)

struct scxk_cpumask {
	uint64_t bits[SCXK_MAX_CPUS / 64];
};

/*
 * Out-of-range CPU numbers are ignored by the setters and read as clear,
 * so a stray -1 from a lookup cannot scribble outside the mask.
 */
static inline bool scxk_cpumask_valid_cpu(int cpu)
{
	return cpu >= 0 && cpu < SCXK_MAX_CPUS;
}

/** scxk_cpumask_set - set @cpu in @m; out-of-range @cpu is ignored */
static inline void scxk_cpumask_set(struct scxk_cpumask *m, int cpu)
{
	if (scxk_cpumask_valid_cpu(cpu))
		m->bits[cpu / SCXK_CPUMASK_WORD_BITS] |= 1ULL << (cpu % SCXK_CPUMASK_WORD_BITS);
}

/** scxk_cpumask_clear - clear @cpu in @m; out-of-range @cpu is ignored */
static inline void scxk_cpumask_clear(struct scxk_cpumask *m, int cpu)
{
	if (scxk_cpumask_valid_cpu(cpu))
		m->bits[cpu / SCXK_CPUMASK_WORD_BITS] &= ~(1ULL << (cpu % SCXK_CPUMASK_WORD_BITS));
}

/** scxk_cpumask_test - Return: true if @cpu is set in @m (false if out of range) */
static inline bool scxk_cpumask_test(const struct scxk_cpumask *m, int cpu)
{
	if (!scxk_cpumask_valid_cpu(cpu))
		return false;
	return (m->bits[cpu / SCXK_CPUMASK_WORD_BITS] >> (cpu % SCXK_CPUMASK_WORD_BITS)) & 1;
}

/** scxk_cpumask_zero - clear every CPU of @m */
static inline void scxk_cpumask_zero(struct scxk_cpumask *m)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}

/**
 * scxk_cpumask_fill - make @m exactly CPUs 0..@nr-1
 * @m: mask to overwrite
 * @nr: number of CPUs; clamped to 0..SCXK_MAX_CPUS
 */
static inline void scxk_cpumask_fill(struct scxk_cpumask *m, int nr)
{
	scxk_cpumask_zero(m);
	if (nr > SCXK_MAX_CPUS)
		nr = SCXK_MAX_CPUS;
	for (int i = 0; i < nr / SCXK_CPUMASK_WORD_BITS; i++)
		m->bits[i] = ~0ULL;
	if (nr > 0 && nr % SCXK_CPUMASK_WORD_BITS)
		m->bits[nr / SCXK_CPUMASK_WORD_BITS] = (1ULL << (nr % SCXK_CPUMASK_WORD_BITS)) - 1;
}

/** scxk_cpumask_weight - Return: number of CPUs set in @m */
static inline int scxk_cpumask_weight(const struct scxk_cpumask *m)
{
	int n = 0;

	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		n += __builtin_popcountll(m->bits[i]);
	return n;
}

/**
 * scxk_cpumask_next - find the next set CPU
 * @m: mask to search
 * @after: search starts at @after + 1; pass -1 to start at CPU 0
 *
 * Return: lowest set CPU greater than @after, or -1 if there is none.
 */
static inline int scxk_cpumask_next(const struct scxk_cpumask *m, int after)
{
	int cpu = after < 0 ? 0 : after + 1;

	while (cpu < SCXK_MAX_CPUS) {
		int w = cpu / SCXK_CPUMASK_WORD_BITS;
		uint64_t bits = m->bits[w] >> (cpu % SCXK_CPUMASK_WORD_BITS);

		if (bits)
			return cpu + __builtin_ctzll(bits);
		cpu = (w + 1) * SCXK_CPUMASK_WORD_BITS;
	}
	return -1;
}

/** scxk_cpumask_first - Return: lowest set CPU of @m, or -1 if @m is empty */
static inline int scxk_cpumask_first(const struct scxk_cpumask *m)
{
	return scxk_cpumask_next(m, -1);
}

/** scxk_cpumask_last - Return: highest set CPU of @m, or -1 if @m is empty */
static inline int scxk_cpumask_last(const struct scxk_cpumask *m)
{
	for (int i = SCXK_CPUMASK_WORDS - 1; i >= 0; i--)
		if (m->bits[i])
			return i * SCXK_CPUMASK_WORD_BITS + SCXK_CPUMASK_WORD_BITS - 1 -
			       __builtin_clzll(m->bits[i]);
	return -1;
}

/* Iterate @cpu (an int) over the set CPUs of @m in increasing order. */
#define scxk_cpumask_for_each(cpu, m)                                                              \
	for ((cpu) = scxk_cpumask_first(m); (cpu) >= 0; (cpu) = scxk_cpumask_next((m), (cpu)))

/** scxk_cpumask_and - @dst = @a & @b (@dst may alias either source) */
static inline void scxk_cpumask_and(struct scxk_cpumask *dst, const struct scxk_cpumask *a,
				    const struct scxk_cpumask *b)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & b->bits[i];
}

/** scxk_cpumask_or - @dst = @a | @b (@dst may alias either source) */
static inline void scxk_cpumask_or(struct scxk_cpumask *dst, const struct scxk_cpumask *a,
				   const struct scxk_cpumask *b)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

/** scxk_cpumask_andnot - @dst = @a & ~@b (@dst may alias either source) */
static inline void scxk_cpumask_andnot(struct scxk_cpumask *dst, const struct scxk_cpumask *a,
				       const struct scxk_cpumask *b)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

/** scxk_cpumask_equal - Return: true if @a and @b hold the same CPUs */
static inline bool scxk_cpumask_equal(const struct scxk_cpumask *a, const struct scxk_cpumask *b)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		if (a->bits[i] != b->bits[i])
			return false;
	return true;
}

/** scxk_cpumask_empty - Return: true if no CPU is set in @m */
static inline bool scxk_cpumask_empty(const struct scxk_cpumask *m)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		if (m->bits[i])
			return false;
	return true;
}

/** scxk_cpumask_subset - Return: true if every CPU of @a is also in @b */
static inline bool scxk_cpumask_subset(const struct scxk_cpumask *a, const struct scxk_cpumask *b)
{
	for (int i = 0; i < SCXK_CPUMASK_WORDS; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

/**
 * scxk_cpulist_parse - parse a cpu list such as "0-3,8-11" or "5"
 * @s: the text; trailing whitespace (sysfs' final newline) is ignored
 * @out: receives the mask; left untouched on error
 * @nr_cpus: CPUs must be below this; <= 0 (or > SCXK_MAX_CPUS) means SCXK_MAX_CPUS
 *
 * The grammar is strict: comma-separated items, each a decimal CPU or an
 * ascending "a-b" range, no blanks inside, no signs, no strides. An empty
 * string (or only whitespace) gives an empty mask, because that is what
 * sysfs prints for an empty set (e.g. the cpulist of a memory-only node).
 *
 * Return: 0; -EINVAL for bad syntax, a reversed range or a NULL argument;
 * -ERANGE for a CPU >= @nr_cpus or a number too large to represent.
 * Syntax errors take precedence over range errors.
 */
int scxk_cpulist_parse(const char *s, struct scxk_cpumask *out, int nr_cpus);

/**
 * scxk_hexmask_parse - parse a hex mask: "0xff", "ff", or sysfs' comma-separated
 *                      32-bit groups such as "00000000,0000ff00" (lowest group last)
 * @s: the text, optional 0x/0X prefix; trailing whitespace is ignored
 * @out: receives the mask; left untouched on error
 * @nr_cpus: bits at or above this must be clear; <= 0 means SCXK_MAX_CPUS
 *
 * Without commas the digits form one number of any length. With commas
 * every group holds 1..8 digits. Leading zero digits may run past
 * SCXK_MAX_CPUS (sysfs prints NR_CPUS bits, which can be 8192).
 *
 * Return: 0; -EINVAL for bad syntax, no digits or a NULL argument;
 * -ERANGE when a bit at or above @nr_cpus is set.
 */
int scxk_hexmask_parse(const char *s, struct scxk_cpumask *out, int nr_cpus);

/**
 * scxk_cpumask_parse - parse either form: hex if @s starts with 0x or 0X,
 *                      else a cpu list. Words such as "all" are the caller's job.
 * @s: the text
 * @out: receives the mask; left untouched on error
 * @nr_cpus: as for scxk_cpulist_parse()
 *
 * Return: 0 or the negative errno of the parser used.
 */
int scxk_cpumask_parse(const char *s, struct scxk_cpumask *out, int nr_cpus);

/**
 * scxk_cpumask_format_list - write @m as a cpu list ("0-3,8"); "" when empty
 * @m: the mask
 * @buf: destination, always NUL-terminated when @len > 0
 * @len: size of @buf; SCXK_CPULIST_BUF_LEN always suffices
 *
 * Return: length written (without the NUL) or -ENOSPC if @buf is too small.
 */
int scxk_cpumask_format_list(const struct scxk_cpumask *m, char *buf, size_t len);

/**
 * scxk_cpumask_format_hex - write @m as "0x" plus hex digits without leading
 *                           zeros ("0xff", "0x0" when empty)
 * @m: the mask
 * @buf: destination, always NUL-terminated when @len > 0
 * @len: size of @buf; SCXK_CPUHEX_BUF_LEN always suffices
 *
 * Return: length written (without the NUL) or -ENOSPC if @buf is too small.
 */
int scxk_cpumask_format_hex(const struct scxk_cpumask *m, char *buf, size_t len);

#endif /* __SCXKIT_CPUMASK_H */
