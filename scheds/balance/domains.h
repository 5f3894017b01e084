/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * domains.h - scx_balance's scheduling domains from the topology: one per
 * LLC, or one per --cpumasks entry.
 */
#ifndef __BALANCE_DOMAINS_H
#define __BALANCE_DOMAINS_H

#include <scxkit/cpumask.h>
#include <scxkit/topo.h>

#include "intf.h"

struct balance_dom {
	struct scxk_cpumask cpus; /* online CPUs of the domain */
	int node;		  /* dense NUMA node, < SCXK_MAX_NODES */
	unsigned int nr_cpus;
};

struct balance_doms {
	int nr;
	int nr_nodes;
	struct balance_dom dom[BALANCE_MAX_DOMS];
	int *cpu_dom; /* per CPU id (topo->nr_cpu_ids), -1 for none; malloc'd */
};

/**
 * balance_doms_build - lay out the domains
 * @t: the topology
 * @masks: --cpumasks values (cpu lists or 0x masks), or NULL for one domain
 *         per LLC
 * @nr_masks: their number (0 with @masks NULL)
 * @out: receives the domains; free with balance_doms_free()
 *
 * Without masks, LLCs beyond BALANCE_MAX_DOMS share a domain (LLC id
 * modulo the limit). With masks, each mask is one domain and lives on the
 * NUMA node of its first CPU; the masks must name existing CPUs, must not
 * overlap, and together must cover every online CPU, since a CPU outside
 * every domain would have no queue to serve.
 *
 * Return: 0; -EINVAL with a message on stderr for bad masks; -ENOMEM.
 */
int balance_doms_build(const struct scxk_topo *t, const char *const *masks, int nr_masks,
		       struct balance_doms *out);

/** balance_doms_free - release what balance_doms_build() allocated */
void balance_doms_free(struct balance_doms *d);

#endif /* __BALANCE_DOMAINS_H */
