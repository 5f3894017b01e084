// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology on the BPF side: kernel cpumasks per LLC and per node built from
 * the bitmaps user space wrote, the idle-CPU search every scheduler starts
 * from, and DSQs laid out along the topology.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cpumask.bpf.h>
#include <scxkit/topo.bpf.h>

struct scxk_topo_data scxk_topo SEC(".data.scxk_topo");
struct scxk_online_data scxk_online;

/* LLC masks at [0, SCXK_MAX_LLCS), node masks after them. */
#define NR_TOPO_MASKS (SCXK_MAX_LLCS + SCXK_MAX_NODES)

SCXK_MASK_SLOTS(scxk_topo_masks, NR_TOPO_MASKS);

/* Scratch mask per CPU for "allowed & domain", which the callbacks compute often. */
SCXK_MASK_SLOTS(scxk_scratch, SCXK_MAX_CPUS);

static void slot_set_cpu(u32 idx, s32 cpu)
{
	struct bpf_cpumask *mask;

	bpf_rcu_read_lock();
	mask = scxk_mask_slot_get(&scxk_topo_masks, idx);
	if (mask)
		bpf_cpumask_set_cpu(cpu, mask);
	bpf_rcu_read_unlock();
}

static void online_seed(u32 nr_cpus)
{
	const struct cpumask *online = scx_bpf_get_online_cpumask();
	u32 nr = 0;
	s32 i;

	bpf_for (i, 0, nr_cpus) {
		bool on = bpf_cpumask_test_cpu(i, online);

		scxk_online.cpu[SCXK_CPU_IDX(i)] = on;
		nr += on;
	}
	scx_bpf_put_cpumask(online);
	scxk_online.nr = nr;
}

__hidden s32 scxk_topo_init(void)
{
	u32 nr_cpus = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	u32 nr_llcs = min(scxk_topo.nr_llcs, SCXK_MAX_LLCS);
	u32 nr_nodes = min(scxk_topo.nr_nodes, SCXK_MAX_NODES);
	s32 i, err;

	if (!nr_cpus || !nr_llcs || !nr_nodes) {
		scxk_error("topology not filled in by user space");
		return -EINVAL;
	}
	bpf_for (i, 0, nr_llcs) {
		if ((err = scxk_mask_slot_new(&scxk_topo_masks, i, NULL)))
			return err;
	}
	bpf_for (i, 0, nr_nodes) {
		if ((err = scxk_mask_slot_new(&scxk_topo_masks, SCXK_MAX_LLCS + i, NULL)))
			return err;
	}
	bpf_for (i, 0, nr_cpus) {
		if ((err = scxk_mask_slot_new(&scxk_scratch, i, NULL)))
			return err;
	}
	bpf_for (i, 0, nr_cpus) {
		u32 llc, node;

		if (i >= SCXK_MAX_CPUS)
			break;
		llc = scxk_topo.cpus[SCXK_CPU_IDX(i)].llc;
		node = scxk_topo.cpus[SCXK_CPU_IDX(i)].node;
		/* A possible CPU without topology (offline at start) is in no mask. */
		if (!scxk_bits_test(scxk_topo.llc_mask[llc & (SCXK_MAX_LLCS - 1)], i))
			continue;
		slot_set_cpu(llc & (SCXK_MAX_LLCS - 1), i);
		slot_set_cpu(SCXK_MAX_LLCS + (node & (SCXK_MAX_NODES - 1)), i);
	}
	online_seed(nr_cpus);
	return 0;
}

__hidden const struct cpumask *scxk_llc_cpumask(u32 llc)
{
	return (const struct cpumask *)scxk_mask_slot_get(&scxk_topo_masks, llc);
}

__hidden const struct cpumask *scxk_node_cpumask(u32 node)
{
	return (const struct cpumask *)scxk_mask_slot_get(&scxk_topo_masks, SCXK_MAX_LLCS + node);
}

/*
 * Idle search inside @dom restricted to what @p may use. A task allowed
 * everywhere (the common case) skips the cpumask AND. Without @scratch_ok
 * the caller has already dropped @dom for the other tasks (pick_idle()),
 * and the scratch-mask code below is compiled out.
 */
static __always_inline s32 pick_in(struct task_struct *p, const struct cpumask *dom, u64 pick_flags,
				   bool scratch_ok)
{
	struct bpf_cpumask *tmp;
	u32 this_cpu;

	if (!dom)
		return -EBUSY;
	if (!scratch_ok || p->nr_cpus_allowed >= scxk_topo.nr_cpu_ids)
		return scx_bpf_pick_idle_cpu(dom, pick_flags);

	this_cpu = bpf_get_smp_processor_id();
	tmp = scxk_mask_slot_get(&scxk_scratch, this_cpu);
	if (!tmp)
		return -EBUSY;
	if (!bpf_cpumask_and(tmp, dom, p->cpus_ptr))
		return -EBUSY;
	return scx_bpf_pick_idle_cpu((const struct cpumask *)tmp, pick_flags);
}

__hidden s32 scxk_pick_idle_in(struct task_struct *p, const struct cpumask *dom, u64 pick_flags)
{
	return pick_in(p, dom, pick_flags, true);
}

/* Read-only: a cheap "is a search worth it" test before the per-mask searches. */
__hidden bool scxk_any_idle_in(const struct cpumask *m)
{
	const struct cpumask *idle = scx_bpf_get_idle_cpumask();
	bool any = m ? bpf_cpumask_intersects(idle, m) : !bpf_cpumask_empty(idle);

	scx_bpf_put_idle_cpumask(idle);
	return any;
}

/*
 * scxk_pick_idle_cpu()'s search. Without @scratch_ok (sleepable callers) a
 * task with a restricted affinity skips the LLC and node steps and
 * searches its own mask only.
 */
static __always_inline s32 pick_idle(struct task_struct *p, s32 prev_cpu, u64 flags,
				     bool scratch_ok)
{
	const struct cpumask *llc = NULL, *node = NULL, *idle_smt;
	bool prev_ok = bpf_cpumask_test_cpu(prev_cpu, p->cpus_ptr);
	s32 cpu;

	if (scratch_ok || p->nr_cpus_allowed >= scxk_topo.nr_cpu_ids) {
		llc = scxk_llc_cpumask(scxk_cpu_llc(prev_cpu));
		node = scxk_node_cpumask(scxk_cpu_node(prev_cpu));
	}

	if (scxk_topo.smt && !(flags & SCXK_IDLE_NO_CORE)) {
		idle_smt = scx_bpf_get_idle_smtmask();
		cpu = -EBUSY;
		if (prev_ok && bpf_cpumask_test_cpu(prev_cpu, idle_smt) &&
		    scx_bpf_test_and_clear_cpu_idle(prev_cpu))
			cpu = prev_cpu;
		scx_bpf_put_idle_cpumask(idle_smt);
		if (cpu >= 0)
			return cpu;

		if ((cpu = pick_in(p, llc, SCX_PICK_IDLE_CORE, scratch_ok)) >= 0)
			return cpu;
		if (scxk_topo.nr_nodes > 1 &&
		    (cpu = pick_in(p, node, SCX_PICK_IDLE_CORE, scratch_ok)) >= 0)
			return cpu;
		if ((cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, SCX_PICK_IDLE_CORE)) >= 0)
			return cpu;
	}

	if (prev_ok && scx_bpf_test_and_clear_cpu_idle(prev_cpu))
		return prev_cpu;
	if ((cpu = pick_in(p, llc, 0, scratch_ok)) >= 0)
		return cpu;
	if (scxk_topo.nr_nodes > 1 && (cpu = pick_in(p, node, 0, scratch_ok)) >= 0)
		return cpu;
	return scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
}

__hidden s32 scxk_pick_idle_cpu(struct task_struct *p, s32 prev_cpu, u64 flags)
{
	return pick_idle(p, prev_cpu, flags, true);
}

__hidden s32 scxk_pick_idle_cpu_unshared(struct task_struct *p, s32 prev_cpu)
{
	return pick_idle(p, prev_cpu, 0, false);
}

/* NUMA_NO_NODE: scxk_topo's dense node ids need not be the kernel's. */
#define DSQ_ANY_NODE -1

__hidden s32 scxk_dsq_create_topo(u32 flags)
{
	u32 nr_cpus = min(scxk_topo.nr_cpu_ids, SCXK_MAX_CPUS);
	s32 i, err;

	if (flags & SCXK_DSQ_TOPO_CPU) {
		bpf_for (i, 0, nr_cpus) {
			if ((err = scx_bpf_create_dsq(SCXK_DSQ_CPU(i), DSQ_ANY_NODE)))
				return err;
		}
	}
	if (flags & SCXK_DSQ_TOPO_NODE) {
		bpf_for (i, 0, min(scxk_topo.nr_nodes, SCXK_MAX_NODES)) {
			if ((err = scx_bpf_create_dsq(SCXK_DSQ_NODE(i), DSQ_ANY_NODE)))
				return err;
		}
	}
	return 0;
}
