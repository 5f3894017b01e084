// SPDX-License-Identifier: GPL-2.0-only
/* scx_strata's sizing and core allocation on synthetic machines and utilisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "alloc.h"
#include "policy.h"

static struct scxk_topo_data topo;
static uint8_t owner[SCXK_MAX_CPUS];

/* @nr CPUs, @smt threads per core (siblings numbered apart, as on x86), @per_llc cores per LLC,
 * @per_node LLCs per node */
static void mk_topo(unsigned int nr, unsigned int smt, unsigned int per_llc, unsigned int per_node)
{
	unsigned int cores = nr / smt;

	memset(&topo, 0, sizeof(topo));
	topo.nr_cpu_ids = nr;
	topo.nr_cores = cores;
	topo.smt = smt > 1;
	for (unsigned int cpu = 0; cpu < nr; cpu++) {
		unsigned int core = cpu % cores, llc = core / per_llc, node = llc / per_node;

		topo.cpus[cpu] = (struct scxk_cpu_info){
			.core = core, .llc = llc, .node = node, .capacity = 1024, .sibling = -1};
		topo.llc_mask[llc][cpu / 64] |= 1ULL << (cpu % 64);
		topo.node_mask[node][cpu / 64] |= 1ULL << (cpu % 64);
		if (llc + 1 > topo.nr_llcs)
			topo.nr_llcs = llc + 1;
		if (node + 1 > topo.nr_nodes)
			topo.nr_nodes = node + 1;
	}
	memset(owner, STRATA_OWNER_OPEN, sizeof(owner));
}

static struct strata_alloc_layer layer(enum strata_kind kind, enum strata_growth g, unsigned int w,
				       unsigned int min, unsigned int max)
{
	return (struct strata_alloc_layer){
		.kind = kind, .growth = g, .weight = w, .min_cpus = min, .max_cpus = max};
}

static unsigned int count(unsigned int l)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < topo.nr_cpu_ids; c++)
		n += owner[c] == l;
	return n;
}

static void test_target(void **state)
{
	(void)state;
	/* 3 CPUs of work, band [0.5, 0.75]: at least 4 CPUs, at most 6 */
	assert_int_equal(strata_target_cpus(3.0, 1, 0.5, 0.75, 0, 16, true), 4);
	assert_int_equal(strata_target_cpus(3.0, 5, 0.5, 0.75, 0, 16, true), 5);
	assert_int_equal(strata_target_cpus(3.0, 6, 0.5, 0.75, 0, 16, true), 6);
	/* too many CPUs: shrink by half the gap, rounded up */
	assert_int_equal(strata_target_cpus(3.0, 10, 0.5, 0.75, 0, 16, true), 8);
	assert_int_equal(strata_target_cpus(3.0, 8, 0.5, 0.75, 0, 16, true), 7);
	assert_int_equal(strata_target_cpus(3.0, 7, 0.5, 0.75, 0, 16, true), 6);
	/* a saturated confined layer (util == its CPUs) grows */
	assert_int_equal(strata_target_cpus(1.0, 1, 0.8, 0.9, 0, 4, true), 2);
	/* cpus_range bounds win */
	assert_int_equal(strata_target_cpus(3.0, 1, 0.5, 0.75, 1, 2, true), 2);
	assert_int_equal(strata_target_cpus(0.0, 0, 0.5, 0.75, 3, 8, false), 3);
	/* idle: empty layers drop to 0, layers with tasks keep one CPU */
	assert_int_equal(strata_target_cpus(0.0, 1, 0.5, 0.75, 0, 8, false), 0);
	assert_int_equal(strata_target_cpus(0.0, 4, 0.5, 0.75, 0, 8, true), 2);
	assert_int_equal(strata_target_cpus(0.0, 1, 0.5, 0.75, 0, 8, true), 1);
	/* lo = 0: never shrinks on its own */
	assert_int_equal(strata_target_cpus(0.5, 6, 0.0, 0.5, 0, 8, true), 6);
	/* garbage utilisation is treated as idle */
	assert_int_equal(strata_target_cpus(-1.0, 0, 0.5, 0.75, 0, 8, false), 0);
}

static void test_bounds(void **state)
{
	struct strata_layer_cfg l = {0};
	unsigned int lo, hi;

	(void)state;
	strata_layer_bounds(&l, 8, &lo, &hi);
	assert_true(lo == 0 && hi == 8);
	l.has_cpus_range = true;
	l.cpus_min = 2;
	l.cpus_max = 64;
	strata_layer_bounds(&l, 8, &lo, &hi);
	assert_true(lo == 2 && hi == 8);
	l.has_cpus_range = false;
	l.has_cpus_frac = true;
	l.frac_lo = 0.1;
	l.frac_hi = 0.3;
	strata_layer_bounds(&l, 8, &lo, &hi);
	assert_true(lo == 1 && hi == 3);
	l.frac_lo = 0.0;
	l.frac_hi = 0.01;
	strata_layer_bounds(&l, 8, &lo, &hi);
	assert_true(lo == 0 && hi == 1);
}

static void test_alloc_fits(void **state)
{
	struct strata_alloc_layer ls[3] = {
		layer(STRATA_CONFINED, STRATA_GROW_LINEAR, 100, 0, 8),
		layer(STRATA_GROUPED, STRATA_GROW_REVERSE, 100, 0, 8),
		layer(STRATA_OPEN, STRATA_GROW_STICKY, 100, 0, 8),
	};
	unsigned int target[3] = {2, 3, 0};

	(void)state;
	mk_topo(8, 1, 8, 1);
	assert_int_equal(strata_alloc(&topo, ls, 3, target, owner), 3);
	assert_int_equal(count(0), 2);
	assert_int_equal(count(1), 3);
	/* Linear takes the lowest CPUs, Reverse the highest */
	assert_true(owner[0] == 0 && owner[1] == 0);
	assert_true(owner[7] == 1 && owner[6] == 1 && owner[5] == 1);
	assert_int_equal(owner[3], STRATA_OWNER_OPEN);
}

static void test_alloc_weighted(void **state)
{
	struct strata_alloc_layer ls[3] = {
		layer(STRATA_CONFINED, STRATA_GROW_LINEAR, 300, 0, 16),
		layer(STRATA_CONFINED, STRATA_GROW_REVERSE, 100, 1, 16),
		layer(STRATA_OPEN, STRATA_GROW_STICKY, 100, 0, 16),
	};
	unsigned int target[3] = {16, 16, 0};

	(void)state;
	mk_topo(16, 1, 16, 1);
	/* one CPU stays for the Open layer; 15 split 3:1 by weight */
	assert_int_equal(strata_alloc(&topo, ls, 3, target, owner), 1);
	assert_int_equal(count(0), 11);
	assert_int_equal(count(1), 4);
	/* without an Open layer every CPU is handed out */
	assert_int_equal(strata_alloc(&topo, ls, 2, target, owner), 0);
	assert_int_equal(count(0) + count(1), 16);
	assert_int_equal(count(0), 12);
	/* minimums come before weights */
	ls[1].min_cpus = 8;
	strata_alloc(&topo, ls, 2, target, owner);
	assert_int_equal(count(1), 8);
}

static void test_alloc_whole_cores_and_sticky(void **state)
{
	struct strata_alloc_layer ls[2] = {
		layer(STRATA_CONFINED, STRATA_GROW_LINEAR, 100, 0, 8),
		layer(STRATA_OPEN, STRATA_GROW_STICKY, 100, 0, 8),
	};
	unsigned int target[2] = {3, 0};

	(void)state;
	mk_topo(8, 2, 4, 1); /* 4 cores, CPU n and n+4 are siblings */
	strata_alloc(&topo, ls, 2, target, owner);
	/* 3 CPUs round up to 2 whole cores: both threads of each */
	assert_int_equal(count(0), 4);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(owner[c] == 0, owner[c + 4] == 0);
	/* a layer keeps the cores it has when it shrinks and grows */
	owner[0] = owner[4] = STRATA_OWNER_OPEN;
	owner[2] = owner[6] = 0; /* pretend it held cores 1 and 2 */
	target[0] = 4;
	strata_alloc(&topo, ls, 2, target, owner);
	assert_true(owner[1] == 0 && owner[2] == 0 && owner[5] == 0 && owner[6] == 0);
	assert_int_equal(count(0), 4);
}

static void test_growth_orders(void **state)
{
	struct strata_alloc_layer l = layer(STRATA_CONFINED, STRATA_GROW_STICKY, 100, 0, 8);
	unsigned int order[SCXK_MAX_CPUS], n;

	(void)state;
	mk_topo(8, 1, 2, 2); /* 4 LLCs of 2, 2 nodes */
	/* Sticky: layer 2 of 4 starts half way round (same node first) */
	n = strata_growth_order(&topo, &l, 2, 4, NULL, order);
	assert_int_equal(n, 8);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 5);
	/* RoundRobin: one core of each LLC in turn */
	l.growth = STRATA_GROW_ROUND_ROBIN;
	strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 4);
	assert_int_equal(order[3], 6);
	assert_int_equal(order[4], 1);
	/* Topo: the listed LLCs in the listed order, and nothing else */
	l.growth = STRATA_GROW_TOPO;
	l.nr_llcs = 2;
	l.llcs[0] = 3;
	l.llcs[1] = 1;
	n = strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(n, 4);
	assert_int_equal(order[0], 6);
	assert_int_equal(order[2], 2);
	/* nodes restriction */
	l.growth = STRATA_GROW_LINEAR;
	l.nr_llcs = 0;
	l.nr_nodes = 1;
	l.nodes[0] = 1;
	n = strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(n, 4);
	assert_int_equal(order[0], 4);
	/* NUMA locality: grow on the node where the layer already is */
	l.nr_nodes = 0;
	memset(owner, STRATA_OWNER_OPEN, sizeof(owner));
	owner[6] = 0;
	n = strata_growth_order(&topo, &l, 0, 1, owner, order);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[4], 0);
}

static bool is_permutation(const unsigned int *order, unsigned int n)
{
	bool seen[SCXK_MAX_CPUS] = {false};

	for (unsigned int i = 0; i < n; i++) {
		if (order[i] >= n || seen[order[i]])
			return false;
		seen[order[i]] = true;
	}
	return true;
}

/* The growth algorithms scx_layered has besides the classic ones. */
static void test_more_growth_orders(void **state)
{
	struct strata_alloc_layer l = layer(STRATA_CONFINED, STRATA_GROW_NODE_SPREAD, 100, 0, 8);
	unsigned int order[SCXK_MAX_CPUS], again[SCXK_MAX_CPUS], n, i;

	(void)state;
	mk_topo(8, 1, 2, 2); /* cores 0-3 on node 0 (LLCs 0, 1), 4-7 on node 1 (LLCs 2, 3) */
	/* NodeSpread: the nodes in turn, linear within each */
	n = strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(n, 8);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 4);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 5);
	/* NodeSpreadReverse: the same, from the highest core */
	l.growth = STRATA_GROW_NODE_SPREAD_REVERSE;
	strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(order[0], 7);
	assert_int_equal(order[1], 3);
	/* NodeSpreadRandom: any first half holds two cores of each node */
	l.growth = STRATA_GROW_NODE_SPREAD_RANDOM;
	n = strata_growth_order(&topo, &l, 1, 2, NULL, order);
	assert_true(is_permutation(order, n));
	for (i = 0; i < 8; i += 2)
		assert_true((order[i] < 4) != (order[i + 1] < 4));
	/* CpuSetSpread: the LLCs of the home node in turn, then the other node */
	l.growth = STRATA_GROW_CPUSET_SPREAD;
	strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	assert_true(order[4] >= 4);
	/* Random: a permutation, the same at every sizing round, another per layer */
	l.growth = STRATA_GROW_RANDOM;
	n = strata_growth_order(&topo, &l, 3, 4, NULL, order);
	assert_true(is_permutation(order, n));
	strata_growth_order(&topo, &l, 3, 4, NULL, again);
	assert_memory_equal(order, again, n * sizeof(*order));
	strata_growth_order(&topo, &l, 2, 4, NULL, again);
	assert_memory_not_equal(order, again, n * sizeof(*order));
	/* RandomTopo: whole LLCs, a node's two LLCs together, stable */
	l.growth = STRATA_GROW_RANDOM_TOPO;
	n = strata_growth_order(&topo, &l, 1, 4, NULL, order);
	assert_true(is_permutation(order, n));
	for (i = 0; i < 8; i += 2)
		assert_int_equal(order[i] / 2, order[i + 1] / 2);
	assert_int_equal(order[0] / 4, order[3] / 4);
	strata_growth_order(&topo, &l, 1, 4, NULL, again);
	assert_memory_equal(order, again, n * sizeof(*order));
	/* StickyDynamic: layer 2 of 4 starts on the third LLC and takes it whole */
	l.growth = STRATA_GROW_STICKY_DYNAMIC;
	strata_growth_order(&topo, &l, 2, 4, NULL, order);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[1], 5);
	assert_int_equal(order[2], 6);
}

static void test_big_little(void **state)
{
	struct strata_alloc_layer l = layer(STRATA_CONFINED, STRATA_GROW_BIG_LITTLE, 100, 0, 8);
	unsigned int order[SCXK_MAX_CPUS];

	(void)state;
	mk_topo(8, 1, 8, 1);
	for (unsigned int c = 4; c < 8; c++)
		topo.cpus[c].capacity = 1024;
	for (unsigned int c = 0; c < 4; c++)
		topo.cpus[c].capacity = 512;
	strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(order[0], 4);
	assert_int_equal(order[4], 0);
	l.growth = STRATA_GROW_LITTLE_BIG;
	strata_growth_order(&topo, &l, 0, 1, NULL, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[7], 7);
}

/* A day in the life: utilisation rises and falls; allocation follows, gently. */
static void test_sizing_loop(void **state)
{
	struct strata_alloc_layer ls[2] = {
		layer(STRATA_CONFINED, STRATA_GROW_LINEAR, 100, 1, 8),
		layer(STRATA_OPEN, STRATA_GROW_STICKY, 100, 0, 8),
	};
	double util[] = {0.9, 0.9, 2.0, 3.5, 3.5, 3.5, 0.2, 0.2, 0.2, 0.2};
	unsigned int want[] = {2, 2, 3, 5, 5, 5, 3, 2, 1, 1};
	unsigned int target[2] = {0, 0}, cur = 1;

	(void)state;
	mk_topo(8, 1, 8, 1);
	for (size_t i = 0; i < sizeof(util) / sizeof(util[0]); i++) {
		target[0] = strata_target_cpus(util[i], cur, 0.6, 0.8, 1, 8, true);
		strata_alloc(&topo, ls, 2, target, owner);
		cur = count(0);
		if (cur != want[i])
			fail_msg("step %zu: util %.1f -> %u CPUs, want %u", i, util[i], cur,
				 want[i]);
	}
}

static void test_policy(void **state)
{
	(void)state;
	assert_int_equal(strata_lat_bucket(500), 0);
	assert_int_equal(strata_lat_bucket(1000), 1);
	assert_int_equal(strata_lat_bucket(3999), 2);
	assert_int_equal(strata_lat_bucket(1000000), 10);
	assert_int_equal(strata_lat_bucket(~0ULL), STRATA_LAT_BUCKETS - 1);
	assert_int_equal(strata_charge(10, 1000, 100), 1000);
	assert_int_equal(strata_charge(5000, 1000, 200), 2500);
	assert_int_equal(strata_yield_slice(1000, 25), 250);
	assert_int_equal(strata_yield_slice(1000, 0), 0);
	assert_int_equal(strata_yield_slice(1000, 500), 1000);
	assert_false(strata_waited_longer(0, 100, 10));
	assert_false(strata_waited_longer(95, 100, 10));
	assert_true(strata_waited_longer(80, 100, 10));
	assert_int_equal(strata_layer_charge(1000, 200), 500);
	/* vtime: credit floored, lead capped */
	assert_int_equal(strata_vtime_clamp(1000, 5000, 100, 400), 4900);
	assert_int_equal(strata_vtime_clamp(5050, 5000, 100, 400), 5050);
	assert_int_equal(strata_vtime_clamp(90000, 5000, 100, 400), 5400);
	assert_int_equal(strata_layer_charge(1000, 0), 1000);
	/* layer clock: an idle layer comes back at most one credit behind */
	assert_int_equal(strata_lvtime_floor(10, 900000, 20000), 880000);
	assert_int_equal(strata_lvtime_floor(890000, 900000, 20000), 890000);
	assert_int_equal(strata_lvtime_floor(950000, 900000, 20000), 950000);
	assert_int_equal(strata_lvtime_floor(10, 100, 20000), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_alloc_fits),
		cmocka_unit_test(test_alloc_weighted),
		cmocka_unit_test(test_alloc_whole_cores_and_sticky),
		cmocka_unit_test(test_growth_orders),
		cmocka_unit_test(test_more_growth_orders),
		cmocka_unit_test(test_big_little),
		cmocka_unit_test(test_sizing_loop),
		cmocka_unit_test(test_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
