// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_balance's load balancer (lb.h): greedy, NUMA nodes first, every move
 * strictly reducing imbalance. The BPF side only records duty cycles and
 * applies the moves; all the judgement is here, where it is easy to test
 * and to change.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lb.h"

/* Loads are sums of duty cycles: below this a difference is rounding noise. */
#define LB_EPS 1e-9

void lb_task_loads(struct lb_task *tasks, int nr_tasks, unsigned int nr_cpus, bool saturated)
{
	bool *capped;
	double cap = 0;
	int i, nc = 0;

	for (i = 0; i < nr_tasks; i++) {
		double dc = tasks[i].dcycle < 0 ? 0 : tasks[i].dcycle > 1 ? 1 : tasks[i].dcycle;

		tasks[i].load = dc * (saturated ? tasks[i].weight : 100) / 100.0;
	}
	/* Without more tasks than CPUs every task can have a CPU: nothing is infeasible. */
	if (!saturated || !nr_cpus || nr_tasks <= (int)nr_cpus)
		return;
	capped = calloc(nr_tasks, sizeof(*capped));
	if (!capped)
		return; /* uncorrected loads are still a usable estimate */
	/*
	 * Water-filling: the CPUs not taken by capped tasks share the rest of
	 * the load; a task above that per-CPU level would need more than one
	 * CPU, so it is capped at the level, which then rises. Each round caps
	 * at least one more task or ends.
	 */
	for (;;) {
		double sum = 0;
		int newly = 0;

		for (i = 0; i < nr_tasks; i++)
			if (!capped[i])
				sum += tasks[i].load;
		if ((int)nr_cpus - nc <= 0 || sum <= 0)
			break;
		cap = sum / (nr_cpus - nc);
		for (i = 0; i < nr_tasks; i++)
			if (!capped[i] && tasks[i].load > cap + LB_EPS)
				newly++;
		/* Capping everyone would leave no level to cap at. */
		if (!newly || nc + newly >= nr_tasks)
			break;
		for (i = 0; i < nr_tasks; i++)
			if (!capped[i] && tasks[i].load > cap + LB_EPS)
				capped[i] = true;
		nc += newly;
	}
	for (i = 0; i < nr_tasks; i++)
		if (capped[i])
			tasks[i].load = cap;
	free(capped);
}

struct lb_state {
	const struct lb_params *p;
	const struct lb_dom *doms;
	int nr_doms;
	struct lb_task *tasks;
	int nr_tasks;
	double dl[LB_MAX_DOMS], nl[LB_MAX_NODES];
	double dfair[LB_MAX_DOMS], nfair[LB_MAX_NODES];
	double dnfair[LB_MAX_DOMS]; /* share of its node's load (the domain pass) */
	bool *moved;
};

/* How much |a| + |b| shrinks when @l moves from the side of @a to that of @b. */
static double reduction(double a, double b, double l)
{
	return fabs(a) + fabs(b) - fabs(a - l) - fabs(b + l);
}

static bool eligible(const struct lb_state *s, const struct lb_task *t, int i)
{
	return !s->moved[i] && !t->pinned && !(t->kworker && s->p->balanced_kworkers) &&
	       t->load > LB_EPS && t->dom >= 0 && t->dom < s->nr_doms;
}

/*
 * The best single move of this pass, or false. @xnuma: the node pass (the
 * source node pushes, the target is on a node under its share); otherwise
 * the domain pass inside one node.
 */
static bool best_move(struct lb_state *s, bool xnuma, struct lb_move *out, int *task_idx)
{
	double best_score = 0, best_load = 0;
	int i, to, best = -1, best_to = -1;

	for (i = 0; i < s->nr_tasks; i++) {
		const struct lb_task *t = &s->tasks[i];
		int from = t->dom, fn;

		if (!eligible(s, t, i))
			continue;
		fn = s->doms[from].node;
		if (xnuma ? s->nl[fn] - s->nfair[fn] <= s->p->node_threshold * s->nfair[fn]
			  : s->dl[from] - s->dnfair[from] <= s->p->dom_threshold * s->dnfair[from])
			continue;
		for (to = 0; to < s->nr_doms; to++) {
			int tn = s->doms[to].node;
			double dred, nred, score;

			/* A domain whose CPUs are all offline has no CPU to take it. */
			if (to == from || !(t->dom_mask & (1ULL << to)) || !s->doms[to].nr_cpus)
				continue;
			if (xnuma ? tn == fn || s->nl[tn] >= s->nfair[tn]
				  : tn != fn || s->dl[to] >= s->dnfair[to])
				continue;
			/*
			 * Domains are judged against their node's load once the
			 * nodes are settled: the node pass already moved what
			 * it should between nodes.
			 */
			if (xnuma)
				dred = reduction(s->dl[from] - s->dfair[from],
						 s->dl[to] - s->dfair[to], t->load);
			else
				dred = reduction(s->dl[from] - s->dnfair[from],
						 s->dl[to] - s->dnfair[to], t->load);
			nred = tn == fn ? 0
					: reduction(s->nl[fn] - s->nfair[fn],
						    s->nl[tn] - s->nfair[tn], t->load);
			/* Never worse at either level, and better at the one being balanced. */
			if (dred < -LB_EPS || nred < -LB_EPS || (xnuma ? nred : dred) <= LB_EPS)
				continue;
			score = dred + nred;
			/* Equal gain: the lighter task disturbs less (cache, noise). */
			if (score > best_score + LB_EPS || (fabs(score - best_score) <= LB_EPS &&
							    best >= 0 && t->load < best_load)) {
				best_score = score;
				best_load = t->load;
				best = i;
				best_to = to;
			}
		}
	}
	if (best < 0)
		return false;
	*task_idx = best;
	*out = (struct lb_move){.pid = s->tasks[best].pid,
				.from = s->tasks[best].dom,
				.to = best_to,
				.load = best_load,
				.xnuma = xnuma};
	return true;
}

static void apply(struct lb_state *s, const struct lb_move *m, int idx)
{
	s->dl[m->from] -= m->load;
	s->dl[m->to] += m->load;
	s->nl[s->doms[m->from].node] -= m->load;
	s->nl[s->doms[m->to].node] += m->load;
	s->moved[idx] = true;
	s->tasks[idx].dom = m->to;
}

static double max_imbal(const double *load, const double *fair, int n)
{
	double m = 0;

	for (int i = 0; i < n; i++)
		if (fair[i] > LB_EPS && fabs(load[i] - fair[i]) / fair[i] > m)
			m = fabs(load[i] - fair[i]) / fair[i];
	return m;
}

int lb_balance(const struct lb_params *p, const struct lb_dom *doms, int nr_doms,
	       struct lb_task *tasks, int nr_tasks, struct lb_move *moves, unsigned int max_moves,
	       struct lb_result *res)
{
	struct lb_state s = {
		.p = p, .doms = doms, .nr_doms = nr_doms, .tasks = tasks, .nr_tasks = nr_tasks};
	unsigned int nr_cpus = 0, node_cpus[LB_MAX_NODES] = {0}, nr = 0;
	int i, nr_nodes = 0, idx;
	double total = 0;

	if (!p || !doms || nr_doms < 1 || nr_doms > LB_MAX_DOMS || nr_tasks < 0 ||
	    (nr_tasks && !tasks) || (max_moves && !moves))
		return -EINVAL;
	for (i = 0; i < nr_doms; i++) {
		if (doms[i].node < 0 || doms[i].node >= LB_MAX_NODES)
			return -EINVAL;
		nr_cpus += doms[i].nr_cpus;
		node_cpus[doms[i].node] += doms[i].nr_cpus;
		if (doms[i].node + 1 > nr_nodes)
			nr_nodes = doms[i].node + 1;
	}
	lb_task_loads(tasks, nr_tasks, nr_cpus, p->saturated);
	for (i = 0; i < nr_tasks; i++) {
		if (tasks[i].dom < 0 || tasks[i].dom >= nr_doms)
			continue;
		s.dl[tasks[i].dom] += tasks[i].load;
		s.nl[doms[tasks[i].dom].node] += tasks[i].load;
		total += tasks[i].load;
	}
	for (i = 0; nr_cpus && i < nr_doms; i++)
		s.dfair[i] = total * doms[i].nr_cpus / nr_cpus;
	for (i = 0; nr_cpus && i < nr_nodes; i++)
		s.nfair[i] = total * node_cpus[i] / nr_cpus;
	if (res) {
		memset(res, 0, sizeof(*res));
		res->total_load = total;
		memcpy(res->dom_load, s.dl, sizeof(s.dl));
		memcpy(res->node_load, s.nl, sizeof(s.nl));
		res->dom_imbal = max_imbal(s.dl, s.dfair, nr_doms);
		res->node_imbal = max_imbal(s.nl, s.nfair, nr_nodes);
	}

	if (max_moves > (unsigned int)nr_tasks)
		max_moves = (unsigned int)nr_tasks;
	if (p->max_moves && max_moves > p->max_moves)
		max_moves = p->max_moves;
	s.moved = nr_tasks ? calloc(nr_tasks, sizeof(*s.moved)) : NULL;
	if (nr_tasks && !s.moved)
		return -ENOMEM;
	/* Nodes first: a cross-node move is the expensive one, made only when nodes differ. */
	while (nr_nodes > 1 && nr < max_moves && best_move(&s, true, &moves[nr], &idx))
		apply(&s, &moves[nr++], idx);
	for (i = 0; i < nr_doms; i++)
		s.dnfair[i] = node_cpus[doms[i].node] ? s.nl[doms[i].node] * doms[i].nr_cpus /
								node_cpus[doms[i].node]
						      : 0;
	while (nr < max_moves && best_move(&s, false, &moves[nr], &idx))
		apply(&s, &moves[nr++], idx);
	free(s.moved);

	if (res) {
		memcpy(res->dom_after, s.dl, sizeof(s.dl));
		memcpy(res->node_after, s.nl, sizeof(s.nl));
		res->dom_imbal_after = max_imbal(s.dl, s.dfair, nr_doms);
		res->node_imbal_after = max_imbal(s.nl, s.nfair, nr_nodes);
		res->nr_moves = nr;
		for (unsigned int k = 0; k < nr; k++)
			res->nr_xnuma += moves[k].xnuma;
	}
	return (int)nr;
}
