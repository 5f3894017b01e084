/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo.bpf.h - the machine's shape on the BPF side, idle-CPU picking and
 * topology DSQs (common/topo/topo.bpf.c). User space fills scxk_topo
 * (libscxkit: scxk_topo_to_bpf) before load; scxk_topo_init() must run in
 * the scheduler's ops.init() before anything below is used.
 */
#ifndef __SCXKIT_TOPO_BPF_H
#define __SCXKIT_TOPO_BPF_H

#include <scxkit/topo_data.h>
#include <scxkit/dsq.h>

extern struct scxk_topo_data scxk_topo SEC(".data.scxk_topo");
extern struct scxk_online_data scxk_online;

/* Flags of scxk_pick_idle_cpu() */
#define SCXK_IDLE_NO_CORE (1ULL << 0) /* don't look for fully idle SMT cores first */

/**
 * scxk_topo_init - build the LLC and node cpumasks and seed scxk_online;
 * call from ops.init()
 */
s32 scxk_topo_init(void);

/**
 * scxk_pick_idle_cpu - claim an idle CPU for @p, nearest to @prev_cpu first
 * @p: the task to place
 * @prev_cpu: where it ran last (its cache is warm there)
 * @flags: SCXK_IDLE_*
 *
 * Order: @prev_cpu if its whole core is idle, a fully idle core in the same
 * LLC, then node, then anywhere; then @prev_cpu if idle, any idle CPU in
 * the LLC, node, anywhere. Fully idle cores come first because an SMT
 * sibling shares the core's execution units (the reason scx_simple's
 * idle-core preference gained ~3.5% on Meta's fleet). Only CPUs @p may use
 * are considered, and the CPU returned is already claimed (no longer idle).
 *
 * Return: the CPU, or -EBUSY when none is idle.
 */
s32 scxk_pick_idle_cpu(struct task_struct *p, s32 prev_cpu, u64 flags);

/**
 * scxk_pick_idle_cpu_unshared - scxk_pick_idle_cpu(@p, @prev_cpu, 0) for
 * sleepable, preemptible programs (syscall programs)
 *
 * scxk_pick_idle_cpu() narrows a task's affinity through a per-CPU scratch
 * mask, which a wakeup on the same CPU may rewrite in the middle of a
 * sleepable program's search. Here tasks allowed everywhere search the LLC
 * and node masks directly, as there; the others search their own affinity
 * mask, giving up locality rather than correctness. Should the affinity
 * shrink during the search, the CPU claimed may be outside it: the caller
 * checks (libscxuser's drain_one() bounces such an answer).
 *
 * Return: the CPU, or -EBUSY when none is idle.
 */
s32 scxk_pick_idle_cpu_unshared(struct task_struct *p, s32 prev_cpu);

/**
 * scxk_pick_idle_in - claim an idle CPU of @dom that @p may use
 * @pick_flags: SCX_PICK_IDLE_CORE to accept only CPUs of fully idle cores
 * Return: the CPU, or -EBUSY.
 */
s32 scxk_pick_idle_in(struct task_struct *p, const struct cpumask *dom, u64 pick_flags);

/**
 * scxk_any_idle_in - whether any CPU of @m (of the machine if NULL) is idle
 *
 * Claims nothing, so the answer may be stale by the time it is used: a
 * filter before searches, not a reservation.
 */
bool scxk_any_idle_in(const struct cpumask *m);

/** scxk_llc_cpumask - CPUs of LLC @llc (NULL before scxk_topo_init()) */
const struct cpumask *scxk_llc_cpumask(u32 llc);

/** scxk_node_cpumask - CPUs of NUMA node @node (NULL before scxk_topo_init()) */
const struct cpumask *scxk_node_cpumask(u32 node);

/* Flags of scxk_dsq_create_topo(): which DSQs to create */
enum scxk_dsq_topo_flags {
	SCXK_DSQ_TOPO_CPU = 1U << 0,  /* SCXK_DSQ_CPU(cpu) for every possible CPU */
	SCXK_DSQ_TOPO_NODE = 1U << 1, /* SCXK_DSQ_NODE(node) for every NUMA node */
};

/**
 * scxk_dsq_create_topo - create one DSQ per CPU and/or per NUMA node
 * @flags: SCXK_DSQ_TOPO_* bits
 *
 * Every DSQ is created with NUMA_NO_NODE (-1), so the kernel allocates it
 * where it likes: the node ids in scxk_topo are dense indexes (folded
 * modulo SCXK_MAX_NODES), not the kernel's node numbers, and passing one
 * of them as a kernel node could name a node that does not exist.
 * Return: 0 or the kernel's negative errno.
 */
s32 scxk_dsq_create_topo(u32 flags);

/*
 * Indexes are masked, not compared: after a comparison the compiler may
 * reload a spilled copy whose bounds the verifier no longer knows, and it
 * would drop a mask it can prove redundant. Callers pass valid CPU ids; a
 * bogus one reads some other CPU's entry, never outside the array.
 */
#define SCXK_CPU_IDX(cpu) ((u32)(cpu) & (SCXK_MAX_CPUS - 1))

static __always_inline u32 scxk_cpu_llc(s32 cpu)
{
	return scxk_topo.cpus[SCXK_CPU_IDX(cpu)].llc;
}

static __always_inline u32 scxk_cpu_node(s32 cpu)
{
	return scxk_topo.cpus[SCXK_CPU_IDX(cpu)].node;
}

static __always_inline u32 scxk_cpu_capacity(s32 cpu)
{
	return scxk_topo.cpus[SCXK_CPU_IDX(cpu)].capacity;
}

static __always_inline bool scxk_cpu_is_big(s32 cpu)
{
	return scxk_topo.cpus[SCXK_CPU_IDX(cpu)].flags & SCXK_CPU_BIG;
}

/** scxk_cpu_online - whether @cpu is online, as the hotplug callbacks last said */
static __always_inline bool scxk_cpu_online(s32 cpu)
{
	return scxk_online.cpu[SCXK_CPU_IDX(cpu)];
}

/**
 * scxk_online_set - record @cpu going online (@on) or offline
 *
 * For ops.cpu_online/offline of a scheduler that handles CPU hotplug in
 * place (defining both keeps it attached through a CPU change). The kernel
 * calls them one CPU at a time, under its hotplug lock.
 */
static __always_inline void scxk_online_set(s32 cpu, bool on)
{
	u8 *c = &scxk_online.cpu[SCXK_CPU_IDX(cpu)];

	if (*c != on) {
		*c = on;
		if (on)
			scxk_online.nr++;
		else if (scxk_online.nr)
			scxk_online.nr--;
	}
	__sync_fetch_and_add(&scxk_online.gen, 1);
}

#endif /* __SCXKIT_TOPO_BPF_H */
