// SPDX-License-Identifier: GPL-2.0-only
/*
 * Log-linear latency histogram: see hist.h for the bucket layout and the
 * exact definition of a percentile.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "hist.h"

/* Nanoseconds per microsecond, for the _us fields of the JSON summary. */
#define NS_PER_US 1000ULL

/*
 * Percentiles are taken in millionths of a percent so the rank is computed in
 * integers: 99.9 * count / 100 in doubles can land just above an integer and
 * ceil() would then skip a sample.
 */
#define PCT_SCALE 1000000ULL
#define PCT_FULL  (100ULL * PCT_SCALE)

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int hist_bucket(uint64_t v)
{
	unsigned int e, shift;

	if (v < 2 * HIST_SUB)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);
	if (e >= HIST_MAX_EXP)
		return HIST_NBUCKETS - 1;
	/* v >> shift is in [HIST_SUB, 2 * HIST_SUB): the linear sub-bucket. */
	shift = e - HIST_SUB_BITS;
	return (unsigned int)(shift * HIST_SUB + (v >> shift));
}

uint64_t hist_bucket_upper(unsigned int idx)
{
	unsigned int shift;
	uint64_t mant;

	if (idx < 2 * HIST_SUB)
		return idx;
	shift = idx / HIST_SUB - 1;
	mant = idx - shift * HIST_SUB;
	return (mant << shift) + (1ULL << shift) - 1;
}

void hist_record(struct hist *h, uint64_t v)
{
	h->buckets[hist_bucket(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_count(const struct hist *h)
{
	return h->count;
}

uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t hist_max(const struct hist *h)
{
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	unsigned __int128 prod;
	uint64_t pm, rank, cum = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!(p > 0.0)) /* also catches NaN */
		return h->min;
	if (p >= 100.0)
		return h->max;
	pm = (uint64_t)llround(p * (double)PCT_SCALE);
	/* rank = ceil(count * p / 100), at least the first sample */
	prod = (unsigned __int128)h->count * pm;
	rank = (uint64_t)((prod + PCT_FULL - 1) / PCT_FULL);
	if (!rank)
		rank = 1;
	for (i = 0; i < HIST_NBUCKETS; i++) {
		cum += h->buckets[i];
		if (cum >= rank) {
			uint64_t up = hist_bucket_upper(i);

			return up < h->max ? up : h->max;
		}
	}
	return h->max; /* not reached: the buckets sum to count */
}

static void print_us(FILE *f, const char *name, uint64_t ns)
{
	fprintf(f, "\"%s\":%" PRIu64 ".%03u", name, (uint64_t)(ns / NS_PER_US),
		(unsigned int)(ns % NS_PER_US));
}

void hist_json(const struct hist *h, FILE *f, const char *key)
{
	static const struct {
		const char *name;
		double p;
	} pcts[] = {
		{"p50_us", 50.0},
		{"p90_us", 90.0},
		{"p99_us", 99.0},
		{"p99_9_us", 99.9},
	};
	unsigned int i;

	fprintf(f, "\"%s\":{\"count\":%" PRIu64 ",", key, h->count);
	print_us(f, "min_us", hist_min(h));
	fprintf(f, ",\"mean_us\":%.3f", hist_mean(h) / (double)NS_PER_US);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		fputc(',', f);
		print_us(f, pcts[i].name, hist_percentile(h, pcts[i].p));
	}
	fputc(',', f);
	print_us(f, "max_us", hist_max(h));
	fputc('}', f);
}
