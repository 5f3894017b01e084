/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpumask.bpf.h - BPF cpumasks kept in array maps. A bpf_cpumask can only
 * outlive a program as a kptr inside a map value, so every scheduler that
 * keeps masks (domains, layers, the primary set) keeps them in slots like
 * these, created in ops.init() and read under RCU by the callbacks.
 */
#ifndef __SCXKIT_CPUMASK_BPF_H
#define __SCXKIT_CPUMASK_BPF_H

#include <scxkit/topo.bpf.h>

/* One map value: one kernel cpumask, NULL until scxk_mask_slot_new(). */
struct scxk_mask_slot {
	struct bpf_cpumask __kptr *mask;
};

/* An array map @__map of @__n mask slots. */
#define SCXK_MASK_SLOTS(__map, __n)                                                                \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__uint(max_entries, __n);                                                          \
		__type(key, u32);                                                                  \
		__type(value, struct scxk_mask_slot);                                              \
	} __map SEC(".maps")

/**
 * scxk_bits_test - whether @cpu is set in the bitmap @bits
 * @bits: SCXK_MASK_WORDS words, as user space writes them (scxk_topo_data)
 * @cpu: a CPU id; the word index is masked into range, never compared
 */
static __always_inline bool scxk_bits_test(const volatile u64 *bits, u32 cpu)
{
	return bits[(cpu / 64) & (SCXK_MASK_WORDS - 1)] & (1ULL << (cpu & 63));
}

/**
 * scxk_mask_slot_new - put a new cpumask into slot @idx of @map
 * @map: a SCXK_MASK_SLOTS() map
 * @idx: the slot
 * @bits: the CPUs to set (SCXK_MASK_WORDS words, scxk_topo.nr_cpu_ids
 *        bits read), or NULL for an empty mask
 *
 * A mask the slot held before is released. Sleepable context only
 * (ops.init()): bpf_cpumask_create() allocates.
 * Return: 0, -ENOENT for a slot outside @map, -ENOMEM.
 */
static s32 scxk_mask_slot_new(void *map, u32 idx, const volatile u64 *bits)
{
	struct scxk_mask_slot *slot = bpf_map_lookup_elem(map, &idx);
	u32 nr = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	struct bpf_cpumask *mask;
	s32 cpu;

	if (!slot)
		return -ENOENT;
	mask = bpf_cpumask_create();
	if (!mask)
		return -ENOMEM;
	if (bits) {
		bpf_for (cpu, 0, nr) {
			if (scxk_bits_test(bits, cpu))
				bpf_cpumask_set_cpu(cpu, mask);
		}
	}
	mask = bpf_kptr_xchg(&slot->mask, mask);
	if (mask)
		bpf_cpumask_release(mask);
	return 0;
}

/**
 * scxk_mask_slot_get - the cpumask in slot @idx of @map
 * @map: a SCXK_MASK_SLOTS() map
 * @idx: the slot
 *
 * Valid while the caller's RCU read section lasts (a struct_ops callback
 * is one); cast to const struct cpumask * to read it.
 * Return: the mask, or NULL for an empty or missing slot.
 */
static __always_inline struct bpf_cpumask *scxk_mask_slot_get(void *map, u32 idx)
{
	struct scxk_mask_slot *slot = bpf_map_lookup_elem(map, &idx);

	return slot ? slot->mask : NULL;
}

#endif /* __SCXKIT_CPUMASK_BPF_H */
