/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Log-linear latency histogram for the scxkit benchmark workloads.
 *
 * Values are recorded in nanoseconds.  Every power-of-two range [2^e, 2^(e+1))
 * is split into HIST_SUB linear sub-buckets, so a bucket is never wider than
 * 1/HIST_SUB of its lower bound: the relative error of any reported value is
 * at most 1/64.  Values below 2 * HIST_SUB ns get one bucket each (exact).
 * The top of the range is 2^HIST_MAX_EXP ns (~1100 s); larger values land in
 * the last bucket, while min/max/mean stay exact.
 *
 * A histogram is not locked: each thread records into its own and the
 * owner merges them once the writers are done (see hist_merge()).
 */
#ifndef SCXK_WL_HIST_H
#define SCXK_WL_HIST_H

#include <stdint.h>
#include <stdio.h>

/* log2 of the sub-buckets per power of two: 64 gives <= 1/64 relative error. */
#define HIST_SUB_BITS 6
#define HIST_SUB      (1ULL << HIST_SUB_BITS)
/* Values up to 2^40 ns (~1100 s) are bucketed: well above any 100 s run. */
#define HIST_MAX_EXP 40
/*
 * Buckets 0 .. 2*HIST_SUB-1 hold 0 .. 127 exactly; each further power of two
 * [2^e, 2^(e+1)), e = HIST_SUB_BITS+1 .. HIST_MAX_EXP-1, adds HIST_SUB.
 */
#define HIST_NBUCKETS ((HIST_MAX_EXP - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum; /* ns; overflows only after ~584 years in total */
	uint64_t min; /* ns; UINT64_MAX while empty */
	uint64_t max; /* ns */
	uint64_t buckets[HIST_NBUCKETS];
};

/**
 * hist_init() - Reset a histogram to empty.
 * @h: histogram
 */
void hist_init(struct hist *h);

/**
 * hist_bucket() - Index of the bucket that holds a value.
 * @v: value in ns
 *
 * Return: bucket index in [0, HIST_NBUCKETS).
 */
unsigned int hist_bucket(uint64_t v);

/**
 * hist_bucket_upper() - Largest value that falls into a bucket.
 * @idx: bucket index in [0, HIST_NBUCKETS)
 *
 * Return: the bucket's inclusive upper bound in ns.
 */
uint64_t hist_bucket_upper(unsigned int idx);

/**
 * hist_record() - Add one sample.
 * @h: histogram, owned by the calling thread
 * @v: value in ns
 */
void hist_record(struct hist *h, uint64_t v);

/**
 * hist_merge() - Add all samples of @src into @dst.
 * @dst: destination histogram
 * @src: source histogram; nobody may record into it during the merge
 *
 * The result is identical to having recorded every sample into @dst.
 * Threads each own a histogram and the owner merges them after joining
 * (or otherwise synchronising with) the writers.
 */
void hist_merge(struct hist *dst, const struct hist *src);

/**
 * hist_count() - Number of samples.
 * @h: histogram
 *
 * Return: sample count.
 */
uint64_t hist_count(const struct hist *h);

/**
 * hist_min() - Smallest sample.
 * @h: histogram
 *
 * Return: exact minimum in ns, 0 if empty.
 */
uint64_t hist_min(const struct hist *h);

/**
 * hist_max() - Largest sample.
 * @h: histogram
 *
 * Return: exact maximum in ns, 0 if empty.
 */
uint64_t hist_max(const struct hist *h);

/**
 * hist_mean() - Arithmetic mean of the samples.
 * @h: histogram
 *
 * Return: exact mean in ns, 0 if empty.
 */
double hist_mean(const struct hist *h);

/**
 * hist_percentile() - Value at a percentile.
 * @h: histogram
 * @p: percentile in [0, 100]; out-of-range values are clamped
 *
 * The p-th percentile is the smallest value v such that at least p% of the
 * samples are <= v, i.e. the sample of rank ceil(p * count / 100) (rank >= 1)
 * in sorted order.  It is reported as the upper bound of that sample's
 * bucket, clamped to the exact maximum, so it is never below the true value
 * and at most 1/64 above it.  p = 0 gives the exact minimum and p = 100 the
 * exact maximum.
 *
 * Return: percentile in ns, 0 if empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);

/**
 * hist_json() - Print a summary as a JSON member.
 * @h: histogram
 * @f: output stream
 * @key: member name (printed as is: pass a plain identifier)
 *
 * Prints "key":{"count":N,"min_us":..,"mean_us":..,"p50_us":..,"p90_us":..,
 * "p99_us":..,"p99_9_us":..,"max_us":..} without a trailing comma or newline.
 * Times are microseconds with three decimals (ns resolution); an empty
 * histogram prints zeros.
 */
void hist_json(const struct hist *h, FILE *f, const char *key);

#endif /* SCXK_WL_HIST_H */
