// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_strata: sizing. The loader sizes the layers (alloc.c) and publishes
 * which layer owns each CPU in cpu_owner, bumping alloc_gen; the first
 * callback to see a new generation rebuilds the kernel cpumasks that
 * placement reads. Apart from the ops so that strata.bpf.c reads as the
 * callbacks alone.
 */
#include "strata.bpf.h"

/* Rebuild the kernel cpumasks after the loader published a new allocation. */
__hidden void refresh_masks(void)
{
	u64 gen = READ_ONCE(alloc_gen), old = applied_gen;
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS), i, cpu;

	if (gen == old || __sync_val_compare_and_swap(&applied_gen, old, gen) != old)
		return;
	bpf_for (i, 0, NR_MASKS) {
		struct bpf_cpumask *m;

		bpf_rcu_read_lock();
		m = scxk_mask_slot_get(&masks, i);
		if (m) {
			bpf_for (cpu, 0, nr) {
				u8 own = cpu_owner[SCXK_CPU_IDX(cpu)];
				bool set;

				if (i == MASK_OPEN)
					set = own == STRATA_OWNER_OPEN;
				else if (i == MASK_UNPROT)
					set = own == STRATA_OWNER_OPEN ||
					      !layers[LAYER_IDX(own)].protect;
				else
					set = own == i;
				if (set)
					bpf_cpumask_set_cpu(cpu, m);
				else
					bpf_cpumask_clear_cpu(cpu, m);
			}
		}
		bpf_rcu_read_unlock();
	}
}
