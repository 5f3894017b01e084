// SPDX-License-Identifier: GPL-2.0-only
/*
 * The topology as the BPF side reads it (topo_data.h). Kept apart from the
 * sysfs reader so the layout can be tested on fixtures without BPF.
 */
#include <errno.h>
#include <string.h>

#include <scxkit/topo.h>
#include <scxkit/topo_data.h>

_Static_assert(SCXK_MAX_CPUS % 64 == 0, "masks are arrays of u64");
_Static_assert((SCXK_MAX_LLCS & (SCXK_MAX_LLCS - 1)) == 0, "BPF masks LLC ids");
_Static_assert((SCXK_MAX_NODES & (SCXK_MAX_NODES - 1)) == 0, "BPF masks node ids");

static void set_bit(uint64_t *mask, int cpu)
{
	mask[cpu / 64] |= 1ULL << (cpu % 64);
}

int scxk_topo_to_bpf(const struct scxk_topo *t, struct scxk_topo_data *d)
{
	int cpu, sib;

	if (t->nr_cpu_ids > SCXK_MAX_CPUS)
		return -E2BIG;
	d->nr_cpu_ids = t->nr_cpu_ids;
	d->nr_cores = t->nr_cores;
	d->nr_llcs = t->nr_llcs < SCXK_MAX_LLCS ? t->nr_llcs : SCXK_MAX_LLCS;
	d->nr_nodes = t->nr_nodes < SCXK_MAX_NODES ? t->nr_nodes : SCXK_MAX_NODES;
	if (!d->nr_llcs)
		d->nr_llcs = 1;
	if (!d->nr_nodes)
		d->nr_nodes = 1;
	d->smt = t->smt;
	d->hybrid = t->hybrid;

	for (cpu = 0; cpu < t->nr_cpu_ids; cpu++) {
		struct scxk_cpu_info *ci = &d->cpus[cpu];
		int llc = t->llc_id[cpu], node = t->node_id[cpu], core = t->core_id[cpu];

		ci->core = core >= 0 ? (uint32_t)core : 0;
		ci->llc = llc >= 0 ? (uint32_t)(llc % SCXK_MAX_LLCS) : 0;
		ci->node = node >= 0 ? (uint32_t)(node % SCXK_MAX_NODES) : 0;
		/* Unknown capacity (offline at start): assume the fastest. */
		ci->capacity = t->capacity[cpu] ? t->capacity[cpu] : SCXK_CAPACITY_MAX;
		ci->flags = t->big[cpu] ? SCXK_CPU_BIG : 0;
		ci->sibling = -1;
		if (core >= 0) {
			for (sib = 0; sib < t->nr_cpu_ids; sib++) {
				if (sib != cpu && scxk_cpumask_test(&t->core_cpus[core], sib)) {
					ci->sibling = sib;
					break;
				}
			}
		}
		/* Only online CPUs with a known LLC join the masks. */
		if (!scxk_cpumask_test(&t->online, cpu))
			continue;
		if (llc >= 0)
			set_bit(d->llc_mask[ci->llc], cpu);
		if (node >= 0)
			set_bit(d->node_mask[ci->node], cpu);
	}
	return 0;
}
