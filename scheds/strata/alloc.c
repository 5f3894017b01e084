// SPDX-License-Identifier: GPL-2.0-only
/*
 * Layer sizing and core allocation (see alloc.h). The shape follows
 * scx_layered's calc_target_nr_cpus and its weighted allocation, written
 * from the description in docs/reference, not from its source.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static bool cpu_present(const struct scxk_topo_data *t, unsigned int cpu)
{
	unsigned int llc = t->cpus[cpu].llc % SCXK_MAX_LLCS;

	return (t->llc_mask[llc][cpu / 64] >> (cpu % 64)) & 1;
}

void strata_layer_bounds(const struct strata_layer_cfg *l, unsigned int nr_cpus,
			 unsigned int *min_cpus, unsigned int *max_cpus)
{
	unsigned int lo = 0, hi = nr_cpus;

	if (l->has_cpus_range) {
		lo = l->cpus_min;
		hi = l->cpus_max;
	} else if (l->has_cpus_frac) {
		lo = (unsigned int)ceil(l->frac_lo * nr_cpus);
		hi = (unsigned int)ceil(l->frac_hi * nr_cpus);
	}
	if (hi > nr_cpus)
		hi = nr_cpus;
	if (hi < 1)
		hi = 1;
	if (lo > hi)
		lo = hi;
	*min_cpus = lo;
	*max_cpus = hi;
}

unsigned int strata_target_cpus(double util, unsigned int cur, double lo, double hi,
				unsigned int min_cpus, unsigned int max_cpus, bool has_tasks)
{
	double need, allow;
	unsigned int low, high, target;

	if (!(util > 0))
		util = 0;
	/* The fewest CPUs that keep per-CPU utilisation at or below hi. */
	need = hi > 0 ? ceil(util / hi - 1e-9) : 0;
	/* The most CPUs that keep it at or above lo. */
	allow = lo > 0 ? floor(util / lo + 1e-9) : (double)max_cpus;
	low = need > max_cpus ? max_cpus : (unsigned int)need;
	high = allow > max_cpus ? max_cpus : (unsigned int)allow;
	if (high < low)
		high = low;

	target = cur;
	if (target < low)
		target = low;
	if (target > high)
		target = cur - (cur - high + 1) / 2; /* shrink by half the gap, rounded up */
	if (has_tasks && target < 1)
		target = 1;
	if (target < min_cpus)
		target = min_cpus;
	if (target > max_cpus)
		target = max_cpus;
	return target;
}

struct core {
	unsigned int id, first_cpu, nr_cpus, llc, node, capacity;
};

/* Cores of @t, indexed by dense core id; returns how many exist. */
static unsigned int collect_cores(const struct scxk_topo_data *t, struct core *cores)
{
	unsigned int nr = 0, cpu, c;

	for (c = 0; c < t->nr_cores && c < SCXK_MAX_CPUS; c++)
		cores[c] = (struct core){.id = c, .first_cpu = ~0u};
	for (cpu = 0; cpu < t->nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++) {
		const struct scxk_cpu_info *ci = &t->cpus[cpu];

		if (!cpu_present(t, cpu) || ci->core >= t->nr_cores)
			continue;
		c = ci->core;
		if (cores[c].first_cpu == ~0u) {
			cores[c].first_cpu = cpu;
			cores[c].llc = ci->llc;
			cores[c].node = ci->node;
			cores[c].capacity = ci->capacity;
		}
		cores[c].nr_cpus++;
	}
	for (c = 0; c < t->nr_cores && c < SCXK_MAX_CPUS; c++)
		if (cores[c].nr_cpus)
			nr = c + 1;
	return nr;
}

static bool in_uint_list(const unsigned int *v, unsigned int nr, unsigned int x, unsigned int *pos)
{
	for (unsigned int i = 0; i < nr; i++)
		if (v[i] == x) {
			if (pos)
				*pos = i;
			return true;
		}
	return false;
}

static bool core_allowed(const struct strata_alloc_layer *l, const struct core *c)
{
	if (!c->nr_cpus)
		return false;
	if (!l->nr_nodes && !l->nr_llcs)
		return true;
	return in_uint_list(l->nodes, l->nr_nodes, c->node, NULL) ||
	       in_uint_list(l->llcs, l->nr_llcs, c->llc, NULL);
}

/* Sort keys for the locality-class algorithms; ties keep core order. */
static const struct core *sort_cores;
static const struct strata_alloc_layer *sort_layer;
static int sort_dir; /* +1 ascending by key, -1 descending */

static long topo_rank(const struct core *c)
{
	unsigned int pos;

	if (in_uint_list(sort_layer->llcs, sort_layer->nr_llcs, c->llc, &pos))
		return pos;
	if (in_uint_list(sort_layer->nodes, sort_layer->nr_nodes, c->node, &pos))
		return STRATA_MAX_LIST + pos;
	return 2 * STRATA_MAX_LIST;
}

static int cmp_capacity(const void *a, const void *b)
{
	const struct core *x = &sort_cores[*(const unsigned int *)a],
			  *y = &sort_cores[*(const unsigned int *)b];

	if (x->capacity != y->capacity)
		return sort_dir * (x->capacity < y->capacity ? -1 : 1);
	return x->first_cpu < y->first_cpu ? -1 : 1;
}

static int cmp_topo(const void *a, const void *b)
{
	const struct core *x = &sort_cores[*(const unsigned int *)a],
			  *y = &sort_cores[*(const unsigned int *)b];
	long rx = topo_rank(x), ry = topo_rank(y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->first_cpu < y->first_cpu ? -1 : 1;
}

static int cmp_first_cpu(const void *a, const void *b)
{
	const struct core *x = &sort_cores[*(const unsigned int *)a],
			  *y = &sort_cores[*(const unsigned int *)b];

	return x->first_cpu < y->first_cpu ? -1 : x->first_cpu > y->first_cpu;
}

/* Stable partition of @order: cores of @node first. */
static void node_first(const struct core *cores, unsigned int *order, unsigned int nr,
		       unsigned int node)
{
	static unsigned int tmp[SCXK_MAX_CPUS];
	unsigned int n = 0;

	for (unsigned int i = 0; i < nr; i++)
		if (cores[order[i]].node == node)
			tmp[n++] = order[i];
	for (unsigned int i = 0; i < nr; i++)
		if (cores[order[i]].node != node)
			tmp[n++] = order[i];
	memcpy(order, tmp, nr * sizeof(*order));
}

/*
 * A fixed pseudo-random permutation of @order per layer (@seed): the order
 * is recomputed at every sizing round, and a layer whose "random" order
 * changed each time would trade its cores at every round.
 */
static void shuffle(unsigned int *order, unsigned int nr, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 0x9e3779b9u;

	for (unsigned int i = nr; i > 1; i--) {
		unsigned int j, tmp;

		x ^= x << 13; /* xorshift32 */
		x ^= x >> 17;
		x ^= x << 5;
		j = x % i;
		tmp = order[i - 1];
		order[i - 1] = order[j];
		order[j] = tmp;
	}
}

/* Key of group (node or LLC) @g in a per-layer pseudo-random order of groups. */
static unsigned int group_rank(unsigned int g, unsigned int seed)
{
	uint32_t x = (g + 1) * 2246822519u ^ (seed + 1) * 3266489917u;

	x ^= x >> 15;
	x *= 2654435761u;
	return x ^ (x >> 13);
}

/*
 * Stable regrouping of @order: the k-th core of every group (a node, or an
 * LLC) before any group's (k+1)-th, so a layer grows by the same number of
 * cores in each group (the "Spread" algorithms).
 */
static void interleave(const struct core *cores, unsigned int *order, unsigned int nr, bool by_node)
{
	static unsigned int out[SCXK_MAX_CPUS], rank[SCXK_MAX_CPUS];
	unsigned int seen[SCXK_MAX_LLCS] = {0}, n = 0, k, maxk = 0, i;

	for (i = 0; i < nr; i++) {
		unsigned int g = by_node ? cores[order[i]].node % SCXK_MAX_NODES
					 : cores[order[i]].llc % SCXK_MAX_LLCS;

		rank[i] = seen[g]++;
		if (rank[i] > maxk)
			maxk = rank[i];
	}
	for (k = 0; k <= maxk && nr; k++)
		for (i = 0; i < nr; i++)
			if (rank[i] == k)
				out[n++] = order[i];
	memcpy(order, out, nr * sizeof(*order));
}

/*
 * Sort keys of cmp_group_then_rank(), by core: cores of one group together,
 * groups by key, and within a group the order the cores had (a stable sort
 * through qsort, which is not).
 */
static unsigned int group_key_of[SCXK_MAX_CPUS], rank_tmp[SCXK_MAX_CPUS];

static int cmp_group_then_rank(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	if (group_key_of[x] != group_key_of[y])
		return group_key_of[x] < group_key_of[y] ? -1 : 1;
	return rank_tmp[x] < rank_tmp[y] ? -1 : rank_tmp[x] > rank_tmp[y];
}

static void reverse(unsigned int *order, unsigned int nr)
{
	for (unsigned int i = 0; i < nr / 2; i++) {
		unsigned int c = order[i];

		order[i] = order[nr - 1 - i];
		order[nr - 1 - i] = c;
	}
}

unsigned int strata_growth_order(const struct scxk_topo_data *t, const struct strata_alloc_layer *l,
				 unsigned int idx, unsigned int nr_layers,
				 const uint8_t *prev_owner, unsigned int *order)
{
	static struct core cores[SCXK_MAX_CPUS];
	unsigned int nr_cores = collect_cores(t, cores), nr = 0, i, c;
	unsigned int per_node[SCXK_MAX_NODES] = {0}, home = 0, best = 0;

	for (c = 0; c < nr_cores; c++)
		if (core_allowed(l, &cores[c]))
			order[nr++] = c;
	sort_cores = cores;
	sort_layer = l;
	qsort(order, nr, sizeof(*order), cmp_first_cpu);

	switch (l->growth) {
	case STRATA_GROW_REVERSE:
		reverse(order, nr);
		break;
	case STRATA_GROW_RANDOM:
		shuffle(order, nr, idx);
		break;
	case STRATA_GROW_RANDOM_TOPO: {
		/* A random node, a random LLC in it, its cores in random order; then the next. */
		shuffle(order, nr, idx);
		for (i = 0; i < nr; i++) {
			const struct core *co = &cores[order[i]];

			group_key_of[order[i]] = (group_rank(co->node, idx) & 0xffff0000u) |
						 (group_rank(co->llc, idx) >> 16);
		}
		for (i = 0; i < nr; i++)
			rank_tmp[order[i]] = i;
		qsort(order, nr, sizeof(*order), cmp_group_then_rank);
		return nr; /* the random node comes first on purpose */
	}
	case STRATA_GROW_NODE_SPREAD:
	case STRATA_GROW_NODE_SPREAD_REVERSE:
	case STRATA_GROW_NODE_SPREAD_RANDOM:
		if (l->growth == STRATA_GROW_NODE_SPREAD_REVERSE)
			reverse(order, nr);
		else if (l->growth == STRATA_GROW_NODE_SPREAD_RANDOM)
			shuffle(order, nr, idx);
		interleave(cores, order, nr, true);
		return nr; /* as many cores on each node: no home node */
	case STRATA_GROW_CPUSET_SPREAD:
	case STRATA_GROW_CPUSET_SPREAD_REVERSE:
	case STRATA_GROW_CPUSET_SPREAD_RANDOM:
		/* Spread over the cache groups (LLCs), within the home node below. */
		if (l->growth == STRATA_GROW_CPUSET_SPREAD_REVERSE)
			reverse(order, nr);
		else if (l->growth == STRATA_GROW_CPUSET_SPREAD_RANDOM)
			shuffle(order, nr, idx);
		interleave(cores, order, nr, false);
		break;
	case STRATA_GROW_STICKY_DYNAMIC: {
		/*
		 * Whole LLCs, each layer starting at its own share of them (as
		 * Sticky does with cores): a layer stays on the LLCs it has.
		 */
		unsigned int nr_llcs = t->nr_llcs ? t->nr_llcs : 1;
		unsigned int start = nr_layers ? idx * nr_llcs / nr_layers : 0;

		for (i = 0; i < nr; i++)
			group_key_of[order[i]] = (cores[order[i]].llc + nr_llcs - start) % nr_llcs;
		for (i = 0; i < nr; i++)
			rank_tmp[order[i]] = i;
		qsort(order, nr, sizeof(*order), cmp_group_then_rank);
		break;
	}
	case STRATA_GROW_STICKY: {
		/* Spread the layers' starting points evenly over the machine. */
		static unsigned int rot[SCXK_MAX_CPUS];
		unsigned int off = nr_layers ? idx * nr / nr_layers : 0;

		for (i = 0; i < nr; i++)
			rot[i] = order[(i + off) % nr];
		memcpy(order, rot, nr * sizeof(*order));
		break;
	}
	case STRATA_GROW_TOPO:
		qsort(order, nr, sizeof(*order), cmp_topo);
		break;
	case STRATA_GROW_BIG_LITTLE:
	case STRATA_GROW_LITTLE_BIG:
		sort_dir = l->growth == STRATA_GROW_BIG_LITTLE ? -1 : 1;
		qsort(order, nr, sizeof(*order), cmp_capacity);
		break;
	case STRATA_GROW_ROUND_ROBIN:
		/* One core of every LLC in turn, balanced across nodes: no home node. */
		interleave(cores, order, nr, false);
		return nr;
	default:
		break;
	}

	/*
	 * NUMA locality: grow on the node that already holds most of the
	 * layer's cores; a layer without cores starts on the node of its
	 * first core in growth order (Sticky thus spreads layers over nodes).
	 */
	if (t->nr_nodes <= 1 || !nr)
		return nr;
	for (i = 0; i < nr; i++) {
		const struct core *co = &cores[order[i]];

		if (prev_owner && prev_owner[co->first_cpu] == idx)
			per_node[co->node % SCXK_MAX_NODES]++;
	}
	home = cores[order[0]].node;
	for (i = 0; i < SCXK_MAX_NODES; i++)
		if (per_node[i] > best) {
			best = per_node[i];
			home = i;
		}
	node_first(cores, order, nr, home);
	return nr;
}

unsigned int strata_alloc(const struct scxk_topo_data *t, const struct strata_alloc_layer *layers,
			  unsigned int nr_layers, const unsigned int *target, uint8_t *owner)
{
	static struct core cores[SCXK_MAX_CPUS];
	static unsigned int order[SCXK_MAX_CPUS];
	uint8_t prev[SCXK_MAX_CPUS], core_owner[SCXK_MAX_CPUS];
	unsigned int want[STRATA_MAX_LAYERS] = {0}, give[STRATA_MAX_LAYERS] = {0};
	unsigned int got[STRATA_MAX_LAYERS] = {0}, minc[STRATA_MAX_LAYERS] = {0};
	unsigned int nr_cores = collect_cores(t, cores), nr_present = 0, budget = 0, open_cpus = 0;
	unsigned int i, c, n, cpu;
	bool any_open = false;

	for (c = 0; c < nr_cores; c++)
		if (cores[c].nr_cpus) {
			nr_present++;
			budget += cores[c].nr_cpus;
		}
	memcpy(prev, owner, sizeof(prev));
	/* Whole cores: a target of 3 CPUs on 2-thread cores is 2 cores. */
	for (i = 0; i < nr_layers; i++) {
		unsigned int cpc = nr_present ? (budget + nr_present - 1) / nr_present : 1;
		unsigned int allowed = 0;

		if (layers[i].kind == STRATA_OPEN) {
			any_open = true;
			continue;
		}
		for (c = 0; c < nr_cores; c++)
			allowed += core_allowed(&layers[i], &cores[c]);
		want[i] = (target[i] + cpc - 1) / cpc;
		minc[i] = (layers[i].min_cpus + cpc - 1) / cpc;
		if (want[i] > allowed)
			want[i] = allowed;
		if (minc[i] > want[i])
			minc[i] = want[i];
	}
	budget = nr_present;
	/* Open layers need somewhere to run that no layer can take away. */
	if (any_open && budget > 1)
		budget--;

	/* Minimums first, in config order, then the weighted water-fill. */
	for (i = 0; i < nr_layers; i++) {
		n = minc[i] < budget ? minc[i] : budget;
		give[i] = n;
		budget -= n;
	}
	while (budget) {
		int best = -1;

		for (i = 0; i < nr_layers; i++) {
			if (give[i] >= want[i])
				continue;
			/* fewest cores per weight: give/w < give_b/w_b */
			if (best < 0 || (uint64_t)give[i] * layers[best].weight <
						(uint64_t)give[best] * layers[i].weight)
				best = (int)i;
		}
		if (best < 0)
			break;
		give[best]++;
		budget--;
	}

	memset(core_owner, STRATA_OWNER_OPEN, sizeof(core_owner));
	/* Pass 1: each layer keeps the cores it had, earliest in its growth order first. */
	for (i = 0; i < nr_layers; i++) {
		if (layers[i].kind == STRATA_OPEN || !give[i])
			continue;
		n = strata_growth_order(t, &layers[i], i, nr_layers, prev, order);
		for (c = 0; c < n && got[i] < give[i]; c++) {
			unsigned int co = order[c];

			if (prev[cores[co].first_cpu] == i && core_owner[co] == STRATA_OWNER_OPEN) {
				core_owner[co] = (uint8_t)i;
				got[i]++;
			}
		}
	}
	/* Pass 2: the rest from free cores, in growth order. */
	for (i = 0; i < nr_layers; i++) {
		if (layers[i].kind == STRATA_OPEN || got[i] >= give[i])
			continue;
		n = strata_growth_order(t, &layers[i], i, nr_layers, prev, order);
		for (c = 0; c < n && got[i] < give[i]; c++) {
			if (core_owner[order[c]] == STRATA_OWNER_OPEN) {
				core_owner[order[c]] = (uint8_t)i;
				got[i]++;
			}
		}
	}

	memset(owner, STRATA_OWNER_OPEN, SCXK_MAX_CPUS);
	for (cpu = 0; cpu < t->nr_cpu_ids && cpu < SCXK_MAX_CPUS; cpu++) {
		if (!cpu_present(t, cpu))
			continue;
		owner[cpu] = core_owner[t->cpus[cpu].core % SCXK_MAX_CPUS];
		open_cpus += owner[cpu] == STRATA_OWNER_OPEN;
	}
	return open_cpus;
}
