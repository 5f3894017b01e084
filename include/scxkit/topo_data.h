/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo_data.h - the machine's shape as the BPF side sees it. User space
 * (libscxkit, scxk_topo_to_bpf) writes it into the ".data.scxk_topo"
 * section before load; common/topo/topo.bpf.c turns the bitmaps into kernel
 * cpumasks in ops.init().
 */
#ifndef __SCXKIT_TOPO_DATA_H
#define __SCXKIT_TOPO_DATA_H

#include <scxkit/types.h>

#ifndef SCXK_MAX_CPUS
#define SCXK_MAX_CPUS 1024
#endif
#define SCXK_MASK_WORDS (SCXK_MAX_CPUS / 64)
#define SCXK_MAX_LLCS	64 /* larger servers: more LLCs than this are merged */
#define SCXK_MAX_NODES	16 /* NUMA nodes; more are folded modulo */

#define SCXK_CPU_BIG (1U << 0) /* highest capacity class on a hybrid machine */

struct scxk_cpu_info {
	u32 core;     /* dense core id */
	u32 llc;      /* dense LLC id, < SCXK_MAX_LLCS */
	u32 node;     /* dense NUMA node id, < SCXK_MAX_NODES */
	u32 capacity; /* 1..1024, 1024 = fastest CPU */
	u32 flags;    /* SCXK_CPU_* */
	s32 sibling;  /* another SMT thread of the core, or -1 */
};

struct scxk_topo_data {
	u32 nr_cpu_ids;
	u32 nr_cores;
	u32 nr_llcs;
	u32 nr_nodes;
	u32 smt;    /* some core has more than one CPU */
	u32 hybrid; /* CPU capacities differ */
	struct scxk_cpu_info cpus[SCXK_MAX_CPUS];
	u64 llc_mask[SCXK_MAX_LLCS][SCXK_MASK_WORDS];
	u64 node_mask[SCXK_MAX_NODES][SCXK_MASK_WORDS];
};

/*
 * The CPUs online now, kept through CPU hotplug on the BPF side (".bss"):
 * seeded from the kernel's online mask by scxk_topo_init() in ops.init(),
 * when no CPU can change (the kernel holds the hotplug lock), then kept by
 * scxk_online_set() from ops.cpu_online/offline in schedulers that handle
 * hotplug in place. The loader reads it to see what changed.
 */
struct scxk_online_data {
	u64 gen; /* bumped at each change */
	u32 nr;	 /* online CPUs */
	u8 cpu[SCXK_MAX_CPUS];
};

#ifndef __bpf__
struct scxk_topo;
/**
 * scxk_topo_to_bpf - lay out @t as the BPF side expects it
 * @t: topology read from sysfs (scxk_topo_read)
 * @d: zeroed destination, usually the mmaped ".data.scxk_topo" section
 *
 * LLCs beyond SCXK_MAX_LLCS and nodes beyond SCXK_MAX_NODES are folded
 * modulo the limit (they share a queue); CPUs beyond SCXK_MAX_CPUS fail.
 * Return: 0 or -E2BIG.
 */
int scxk_topo_to_bpf(const struct scxk_topo *t, struct scxk_topo_data *d);
#endif

#endif /* __SCXKIT_TOPO_DATA_H */
