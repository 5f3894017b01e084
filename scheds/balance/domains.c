// SPDX-License-Identifier: GPL-2.0-only
/* scx_balance's domains from the topology or --cpumasks (domains.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domains.h"

static int fail(const char *what, const char *mask)
{
	fprintf(stderr, "scx_balance: --cpumasks %s: %s\n", mask, what);
	return -EINVAL;
}

static int from_masks(const struct scxk_topo *t, const char *const *masks, int nr,
		      struct balance_doms *d)
{
	struct scxk_cpumask seen = {0}, m, tmp;
	int i, cpu;

	if (nr > BALANCE_MAX_DOMS) {
		fprintf(stderr, "scx_balance: at most %d --cpumasks\n", BALANCE_MAX_DOMS);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		if (scxk_cpumask_parse(masks[i], &m, t->nr_cpu_ids))
			return fail("not a CPU list or 0x mask of this machine's CPUs", masks[i]);
		scxk_cpumask_and(&m, &m, &t->online);
		if (scxk_cpumask_empty(&m))
			return fail("names no online CPU", masks[i]);
		scxk_cpumask_and(&tmp, &m, &seen);
		if (!scxk_cpumask_empty(&tmp))
			return fail("overlaps an earlier mask", masks[i]);
		scxk_cpumask_or(&seen, &seen, &m);
		cpu = scxk_cpumask_first(&m);
		d->dom[i].cpus = m;
		d->dom[i].node = t->node_id[cpu] >= 0 ? t->node_id[cpu] % SCXK_MAX_NODES : 0;
	}
	if (!scxk_cpumask_subset(&t->online, &seen)) {
		char buf[SCXK_CPULIST_BUF_LEN];

		scxk_cpumask_andnot(&tmp, &t->online, &seen);
		scxk_cpumask_format_list(&tmp, buf, sizeof(buf));
		fprintf(stderr, "scx_balance: --cpumasks leave online CPUs %s in no domain\n", buf);
		return -EINVAL;
	}
	d->nr = nr;
	return 0;
}

static void from_llcs(const struct scxk_topo *t, struct balance_doms *d)
{
	int llc, cpu, slot[BALANCE_MAX_DOMS];

	memset(slot, -1, sizeof(slot));
	d->nr = 0;
	for (llc = 0; llc < t->nr_llcs; llc++) {
		struct scxk_cpumask m;
		int k = llc % BALANCE_MAX_DOMS;

		scxk_cpumask_and(&m, &t->llc_cpus[llc], &t->online);
		if (scxk_cpumask_empty(&m))
			continue;
		if (slot[k] < 0) {
			slot[k] = d->nr++;
			cpu = scxk_cpumask_first(&m);
			d->dom[slot[k]].node =
				t->llc_node[llc] >= 0
					? t->llc_node[llc] % SCXK_MAX_NODES
					: (t->node_id[cpu] >= 0 ? t->node_id[cpu] % SCXK_MAX_NODES
								: 0);
		}
		scxk_cpumask_or(&d->dom[slot[k]].cpus, &d->dom[slot[k]].cpus, &m);
	}
	/* Online CPUs without cache information form one more domain. */
	{
		struct scxk_cpumask rest = t->online;

		for (int i = 0; i < d->nr; i++)
			scxk_cpumask_andnot(&rest, &rest, &d->dom[i].cpus);
		if (!scxk_cpumask_empty(&rest) && d->nr < BALANCE_MAX_DOMS) {
			d->dom[d->nr].cpus = rest;
			d->dom[d->nr].node = 0;
			d->nr++;
		} else if (!scxk_cpumask_empty(&rest)) {
			scxk_cpumask_or(&d->dom[0].cpus, &d->dom[0].cpus, &rest);
		}
	}
}

int balance_doms_build(const struct scxk_topo *t, const char *const *masks, int nr_masks,
		       struct balance_doms *out)
{
	int i, cpu, err = 0;

	memset(out, 0, sizeof(*out));
	if (masks && nr_masks)
		err = from_masks(t, masks, nr_masks, out);
	else
		from_llcs(t, out);
	if (err)
		return err;
	out->cpu_dom = malloc(sizeof(*out->cpu_dom) * (t->nr_cpu_ids > 0 ? t->nr_cpu_ids : 1));
	if (!out->cpu_dom)
		return -ENOMEM;
	for (cpu = 0; cpu < t->nr_cpu_ids; cpu++)
		out->cpu_dom[cpu] = -1;
	for (i = 0; i < out->nr; i++) {
		out->dom[i].nr_cpus = scxk_cpumask_weight(&out->dom[i].cpus);
		if (out->dom[i].node + 1 > out->nr_nodes)
			out->nr_nodes = out->dom[i].node + 1;
		scxk_cpumask_for_each (cpu, &out->dom[i].cpus)
			if (cpu < t->nr_cpu_ids)
				out->cpu_dom[cpu] = i;
	}
	return 0;
}

void balance_doms_free(struct balance_doms *d)
{
	free(d->cpu_dom);
	d->cpu_dom = NULL;
}
