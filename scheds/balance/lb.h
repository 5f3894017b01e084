/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lb.h - scx_balance's load balancer as a pure module: given the domains
 * and the recently active tasks with their duty cycles, say which tasks to
 * move where. No BPF, no I/O, no clock: scheds/balance/tests/test_balance_lb.c
 * drives it with synthetic machines.
 *
 * Load is measured in "nice-0 tasks": a task runnable all the time at
 * weight 100 has load 1.0. A domain's fair share of the total load is
 * proportional to its number of CPUs.
 */
#ifndef __BALANCE_LB_H
#define __BALANCE_LB_H

#include <stdbool.h>
#include <stdint.h>

#define LB_MAX_DOMS  64
#define LB_MAX_NODES 16

struct lb_dom {
	int node; /* dense NUMA node, < LB_MAX_NODES */
	unsigned int nr_cpus;
};

struct lb_task {
	uint32_t pid;
	int dom;	   /* current domain */
	uint64_t dom_mask; /* domains it may run in (bit per domain) */
	uint32_t weight;   /* 100 = nice 0 */
	double dcycle;	   /* runnable duty cycle, 0..1 */
	bool kworker;
	bool pinned; /* cannot leave its CPU */
	double load; /* filled in by lb_balance() */
};

struct lb_params {
	double node_threshold;	/* nodes more than this fraction over fair share push */
	double dom_threshold;	/* the same for domains inside a node */
	bool saturated;		/* weigh tasks (and correct infeasible weights) */
	bool balanced_kworkers; /* never move workqueue workers */
	unsigned int max_moves; /* per round; 0 means no limit but the task count */
};

struct lb_move {
	uint32_t pid;
	int from, to;
	double load;
	bool xnuma; /* made by the node-level pass */
};

struct lb_result {
	double total_load;
	double dom_load[LB_MAX_DOMS];	/* before the moves */
	double dom_after[LB_MAX_DOMS];	/* after the moves */
	double node_load[LB_MAX_NODES]; /* before */
	double node_after[LB_MAX_NODES];
	double dom_imbal; /* max |load - fair| / fair over domains, before */
	double dom_imbal_after;
	double node_imbal; /* the same over nodes */
	double node_imbal_after;
	unsigned int nr_moves;
	unsigned int nr_xnuma; /* moves across nodes */
};

/*
 * Nodes move at 5% over their share, domains at 4% over their node's: a
 * domain then ends within about 9% of the machine-wide share, inside the
 * 10% this scheduler promises. (rusty moves nodes only at 17%; ours keep
 * the cross-node cost down instead by moving each task at most once per
 * round and only when the move strictly reduces the imbalance.)
 */
#define LB_NODE_THRESHOLD_DFL 0.05
#define LB_DOM_THRESHOLD_DFL  0.04

/**
 * lb_task_loads - fill every task's load
 * @tasks: the tasks; dcycle and weight are read, load is written
 * @nr_tasks: their number
 * @nr_cpus: CPUs of the machine
 * @saturated: weigh by task weight; otherwise every task weighs 100, since
 *             without contention weight does not change who gets CPU time
 *
 * With weights, a task cannot use more than one CPU whatever its weight:
 * a heavy task whose share would exceed one CPU is capped at one CPU's
 * worth of load (water-filling, as the kernel does for infeasible weights).
 */
void lb_task_loads(struct lb_task *tasks, int nr_tasks, unsigned int nr_cpus, bool saturated);

/**
 * lb_balance - choose the moves that even out load, NUMA nodes first
 * @p: thresholds and modes
 * @doms: the domains, indexed by domain id
 * @nr_doms: 1..LB_MAX_DOMS
 * @tasks: candidate tasks; lb_task_loads() fills their load, and a moved
 *         task's dom becomes its target
 * @nr_tasks: their number
 * @moves: receives up to @max_moves moves
 * @max_moves: size of @moves; 0 only measures (loads and imbalances)
 * @res: loads and imbalances before and after; may be NULL
 *
 * Nodes whose load exceeds their fair share by more than node_threshold
 * push tasks to nodes under their share, then domains inside each node do
 * the same with dom_threshold, measured against the node's own load (so a
 * domain ends at most about node_threshold + dom_threshold off the global
 * share). Each move takes the eligible task whose
 * load closes the gap best (lighter ones on a tie), and is made only if
 * it strictly reduces the imbalance at the level being balanced without
 * increasing it at the other: the sums of absolute domain and node
 * imbalances never grow. A task moves at most once per call.
 *
 * Return: the number of moves, or -EINVAL for bad arguments.
 */
int lb_balance(const struct lb_params *p, const struct lb_dom *doms, int nr_doms,
	       struct lb_task *tasks, int nr_tasks, struct lb_move *moves, unsigned int max_moves,
	       struct lb_result *res);

#endif /* __BALANCE_LB_H */
