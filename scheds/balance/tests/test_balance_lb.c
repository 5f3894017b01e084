// SPDX-License-Identifier: GPL-2.0-only
/* scx_balance's load balancer (scheds/balance/lb.c) on synthetic machines. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lb.h"

#define ALL ~0ULL
/* cmocka 1.1 has no assert_double_equal */
#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static const struct lb_params dflt = {
	.node_threshold = LB_NODE_THRESHOLD_DFL,
	.dom_threshold = LB_DOM_THRESHOLD_DFL,
};

/* 2 nodes x 2 domains x 2 CPUs: domains 0,1 on node 0, 2,3 on node 1. */
static const struct lb_dom doms22[] = {{0, 2}, {0, 2}, {1, 2}, {1, 2}};

static struct lb_task task(uint32_t pid, int dom, double dcycle)
{
	return (struct lb_task){
		.pid = pid, .dom = dom, .dom_mask = ALL, .weight = 100, .dcycle = dcycle};
}

static double sum_abs_imbal(const double *load, const struct lb_dom *d, int nd, bool nodes)
{
	double total = 0, fair, s = 0, cpus = 0, gl[LB_MAX_DOMS] = {0}, gc[LB_MAX_DOMS] = {0};
	int i, n = 0;

	for (i = 0; i < nd; i++) {
		int g = nodes ? d[i].node : i;

		cpus += d[i].nr_cpus;
		gc[g] += d[i].nr_cpus;
		if (g + 1 > n)
			n = g + 1;
	}
	for (i = 0; i < (nodes ? LB_MAX_NODES : nd); i++)
		total += load[i];
	for (i = 0; i < n; i++) {
		fair = total * gc[i] / cpus;
		gl[i] = load[i];
		s += fabs(gl[i] - fair);
	}
	return s;
}

static void test_everything_on_one_domain_spreads_nodes_first(void **state)
{
	struct lb_task t[8];
	struct lb_move m[16];
	struct lb_result r;
	int i, n;

	(void)state;
	for (i = 0; i < 8; i++)
		t[i] = task(100 + i, 0, 1.0);
	n = lb_balance(&dflt, doms22, 4, t, 8, m, 16, &r);
	assert_true(n > 0);
	assert_near(r.total_load, 8.0);
	assert_near(r.dom_load[0], 8.0);
	assert_near(r.dom_imbal, 3.0); /* 8 against a fair 2 */
	/* NUMA first: every cross-node move comes before any move inside a node. */
	for (i = 1; i < n; i++)
		assert_false(m[i].xnuma && !m[i - 1].xnuma);
	assert_true(m[0].xnuma);
	assert_int_equal(r.nr_xnuma, 4);
	/* One round reaches the ideal: two tasks per domain. */
	for (i = 0; i < 4; i++)
		assert_near(r.dom_after[i], 2.0);
	assert_near(r.dom_imbal_after, 0.0);
	assert_near(r.node_after[0], 4.0);
	/* Moved tasks report their new domain. */
	for (i = 0; i < n; i++)
		assert_int_equal(t[0].dom >= 0, 1);
}

static void test_below_threshold_no_moves(void **state)
{
	/* 2.06 vs 1.94 on one node: 3% over the share, under the 4% threshold. */
	struct lb_task t[] = {task(1, 0, 1.0), task(2, 0, 1.0), task(3, 0, 0.06), task(4, 1, 1.0),
			      task(5, 1, 0.94)};
	struct lb_dom d[] = {{0, 2}, {0, 2}};
	struct lb_move m[8];
	struct lb_result r;

	(void)state;
	assert_int_equal(lb_balance(&dflt, d, 2, t, 5, m, 8, &r), 0);
	assert_true(r.dom_imbal < LB_DOM_THRESHOLD_DFL);
	/* Same shape at 20% over the share: it moves. */
	t[2].dcycle = 0.6;
	assert_true(lb_balance(&dflt, d, 2, t, 5, m, 8, &r) > 0);
}

static void test_node_threshold_respected(void **state)
{
	/* Nodes 3% over and under (threshold 5%): no cross-node move even though domains differ. */
	struct lb_task t[] = {task(1, 0, 1.0), task(2, 0, 1.0), task(3, 0, 0.06), task(4, 2, 1.0),
			      task(5, 3, 0.94)};
	struct lb_move m[8];
	struct lb_result r;
	int n, i;

	(void)state;
	n = lb_balance(&dflt, doms22, 4, t, 5, m, 8, &r);
	assert_true(r.node_imbal < LB_NODE_THRESHOLD_DFL);
	assert_int_equal(r.nr_xnuma, 0);
	for (i = 0; i < n; i++)
		assert_int_equal(doms22[m[i].from].node, doms22[m[i].to].node);
	/* Inside node 0 the 2.06-vs-0 split is fixed. */
	assert_true(n >= 1);
	assert_true(r.dom_after[1] > 0.5);
}

static void test_never_increases_imbalance(void **state)
{
	struct lb_task t[64];
	struct lb_move m[64];
	struct lb_result r;
	unsigned int seed = 12345;

	(void)state;
	for (int round = 0; round < 500; round++) {
		int nt = 1 + rand_r(&seed) % 64, n;
		struct lb_params p = dflt;

		p.saturated = rand_r(&seed) % 2;
		for (int i = 0; i < nt; i++) {
			t[i] = task(i + 1, rand_r(&seed) % 4, (rand_r(&seed) % 1001) / 1000.0);
			t[i].weight = 1 + rand_r(&seed) % 10000;
			t[i].dom_mask = rand_r(&seed) % 4 ? ALL : 1ULL << (rand_r(&seed) % 4);
			t[i].dom_mask |= 1ULL << t[i].dom;
			t[i].pinned = rand_r(&seed) % 8 == 0;
		}
		n = lb_balance(&p, doms22, 4, t, nt, m, 64, &r);
		assert_true(n >= 0);
		assert_true(sum_abs_imbal(r.dom_after, doms22, 4, false) <=
			    sum_abs_imbal(r.dom_load, doms22, 4, false) + 1e-9);
		assert_true(sum_abs_imbal(r.node_after, doms22, 4, true) <=
			    sum_abs_imbal(r.node_load, doms22, 4, true) + 1e-9);
		assert_true(r.dom_imbal_after <= r.dom_imbal + 1e-9 || n == 0);
		for (int i = 0; i < n; i++) {
			/* Only allowed, unpinned tasks, each moved once. */
			int k;

			for (k = 0; k < nt && t[k].pid != m[i].pid; k++)
				;
			assert_true(k < nt);
			assert_false(t[k].pinned);
			assert_true(t[k].dom_mask & (1ULL << m[i].to));
			for (int j = 0; j < i; j++)
				assert_int_not_equal(m[j].pid, m[i].pid);
		}
	}
}

static void test_converges(void **state)
{
	/* Uneven duty cycles, all on domain 3: repeated rounds settle and stop. */
	struct lb_task t[40];
	struct lb_move m[64];
	struct lb_result r;
	int i, rounds, n = 1;

	(void)state;
	for (i = 0; i < 40; i++)
		t[i] = task(i + 1, 3, 0.1 + (i % 9) / 10.0);
	for (rounds = 0; rounds < 10 && n > 0; rounds++)
		n = lb_balance(&dflt, doms22, 4, t, 40, m, 64, &r);
	assert_int_equal(n, 0);
	assert_true(rounds < 10);
	/*
	 * Fine-grained loads allow a close balance: nodes within their
	 * threshold, and each domain within its threshold of its node's
	 * average, so at most the sum of both off the global share.
	 */
	print_message("converged in %d rounds: node imbalance %.3f, domain %.3f\n", rounds,
		      r.node_imbal, r.dom_imbal);
	assert_true(r.node_imbal <= LB_NODE_THRESHOLD_DFL);
	assert_true(r.dom_imbal <= LB_NODE_THRESHOLD_DFL + LB_DOM_THRESHOLD_DFL + 0.01);
	/* The scheduler's promise: domains within 10% of their share. */
	assert_true(r.dom_imbal < 0.10);
}

static void test_infeasible_weights(void **state)
{
	/* On 2 CPUs, one task of weight 10000 next to three of 100: it can use one CPU only. */
	struct lb_task t[] = {task(1, 0, 1.0), task(2, 0, 1.0), task(3, 1, 1.0), task(4, 1, 1.0)};
	struct lb_dom d[] = {{0, 1}, {0, 1}};
	struct lb_move m[4];
	struct lb_result r;
	int n;

	(void)state;
	t[0].weight = 10000;
	lb_task_loads(t, 4, 2, true);
	/* The others share one CPU: 3 units; the heavy one is capped at one CPU's worth. */
	assert_near(t[0].load, 3.0);
	assert_near(t[1].load, 1.0);
	/* Without saturation weights do not count. */
	lb_task_loads(t, 4, 2, false);
	assert_near(t[0].load, 1.0);
	/* The balancer then gives the heavy task a domain of its own. */
	struct lb_params p = dflt;

	p.saturated = true;
	n = lb_balance(&p, d, 2, t, 4, m, 4, &r);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].pid, 2);
	assert_int_equal(m[0].to, 1);
	assert_near(r.dom_after[0], 3.0);
	assert_near(r.dom_after[1], 3.0);
	/* As many tasks as CPUs: nothing is infeasible, loads stay weighted. */
	lb_task_loads(t, 2, 2, true);
	assert_near(t[0].load, 100.0);
}

static void test_empty_and_single_domain(void **state)
{
	struct lb_task t[] = {task(1, 0, 1.0), task(2, 0, 1.0), task(3, 0, 1.0)};
	struct lb_dom one[] = {{0, 4}};
	struct lb_move m[4];
	struct lb_result r;

	(void)state;
	/* One domain: nothing to balance. */
	assert_int_equal(lb_balance(&dflt, one, 1, t, 3, m, 4, &r), 0);
	assert_near(r.dom_imbal, 0.0);
	/* No tasks at all. */
	assert_int_equal(lb_balance(&dflt, doms22, 4, NULL, 0, m, 4, &r), 0);
	assert_near(r.total_load, 0.0);
	/* Empty domains receive work. */
	assert_true(lb_balance(&dflt, doms22, 4, t, 3, m, 4, &r) > 0);
	assert_true(r.dom_after[0] < 3.0);
	/* Measuring only (no room for moves) changes nothing. */
	t[0].dom = t[1].dom = t[2].dom = 0;
	assert_int_equal(lb_balance(&dflt, doms22, 4, t, 3, NULL, 0, &r), 0);
	assert_int_equal(t[1].dom, 0);
}

static void test_exclusions(void **state)
{
	struct lb_task t[] = {task(1, 0, 1.0), task(2, 0, 1.0), task(3, 0, 1.0), task(4, 0, 1.0)};
	struct lb_dom d[] = {{0, 2}, {0, 2}};
	struct lb_params p = dflt;
	struct lb_move m[4];

	(void)state;
	/* Pinned tasks, kworkers with -b, and tasks whose affinity forbids the target stay. */
	t[0].pinned = true;
	t[1].kworker = true;
	t[2].dom_mask = 1;
	p.balanced_kworkers = true;
	assert_int_equal(lb_balance(&p, d, 2, t, 4, m, 4, NULL), 1);
	assert_int_equal(m[0].pid, 4);
	/* Without -b a kworker is a task like any other: two of 4, 2 movable. */
	t[3].dom = 0;
	p.balanced_kworkers = false;
	assert_int_equal(lb_balance(&p, d, 2, t, 4, m, 4, NULL), 2);
	/* The per-round limit holds. */
	for (int i = 0; i < 4; i++)
		t[i] = task(i + 1, 0, 1.0);
	p.max_moves = 1;
	assert_int_equal(lb_balance(&p, d, 2, t, 4, m, 4, NULL), 1);
}

static void test_offline_domain_gets_nothing(void **state)
{
	/*
	 * Domain 2's CPUs all went offline (0 CPUs) while node 1 is idle.
	 * Tasks that may run in domains 0 and 2 only would lower node 1's
	 * imbalance by moving there, at no cost in domain imbalance: they
	 * must stay. Tasks left in domain 2 move out to a domain with CPUs.
	 */
	struct lb_dom d[] = {{0, 2}, {0, 2}, {1, 0}, {1, 2}};
	struct lb_task t[8];
	struct lb_move m[16];
	struct lb_result r;
	int i, n;

	(void)state;
	for (i = 0; i < 6; i++) {
		t[i] = task(i + 1, 0, 1.0);
		t[i].dom_mask = 1ULL << 0 | 1ULL << 2;
	}
	t[6] = task(7, 2, 1.0);
	t[7] = task(8, 2, 1.0);
	n = lb_balance(&dflt, d, 4, t, 8, m, 16, &r);
	for (i = 0; i < n; i++)
		assert_int_not_equal(m[i].to, 2);
	assert_near(r.dom_after[2], 0.0);
	assert_true(n >= 2);
}

static void test_bad_arguments(void **state)
{
	struct lb_task t[] = {task(1, 0, 1.0)};
	struct lb_dom bad[] = {{LB_MAX_NODES, 1}};
	struct lb_move m[1];

	(void)state;
	assert_int_equal(lb_balance(NULL, doms22, 4, t, 1, m, 1, NULL), -EINVAL);
	assert_int_equal(lb_balance(&dflt, doms22, 0, t, 1, m, 1, NULL), -EINVAL);
	assert_int_equal(lb_balance(&dflt, doms22, LB_MAX_DOMS + 1, t, 1, m, 1, NULL), -EINVAL);
	assert_int_equal(lb_balance(&dflt, bad, 1, t, 1, m, 1, NULL), -EINVAL);
	assert_int_equal(lb_balance(&dflt, doms22, 4, t, 1, NULL, 1, NULL), -EINVAL);
	/* A task naming a domain that does not exist is ignored, not moved. */
	t[0].dom = 9;
	assert_int_equal(lb_balance(&dflt, doms22, 4, t, 1, m, 1, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_everything_on_one_domain_spreads_nodes_first),
		cmocka_unit_test(test_below_threshold_no_moves),
		cmocka_unit_test(test_node_threshold_respected),
		cmocka_unit_test(test_never_increases_imbalance),
		cmocka_unit_test(test_converges),
		cmocka_unit_test(test_infeasible_weights),
		cmocka_unit_test(test_empty_and_single_domain),
		cmocka_unit_test(test_exclusions),
		cmocka_unit_test(test_offline_domain_gets_nothing),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
