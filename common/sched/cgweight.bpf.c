// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hierarchical cgroup cpu.weight for vtime schedulers: the model and the
 * calls are in include/scxkit/cgweight.bpf.h.
 *
 * Each cgroup's S (sum) is changed under that cgroup's own lock, and a
 * change reaches the parent as a separate locked add, one level at a time
 * (BPF holds one spin lock at a time). Concurrent wakeups and sleeps may
 * reach a parent out of order, so a parent's sum can dip below zero for a
 * moment; "busy" is sum > 0, and every busy/idle crossing is decided and
 * its contribution recorded under the child's lock, so the adds a parent
 * receives always total its busy children's current contributions.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/cgweight.bpf.h>
#include <scxkit/sched_math.h>

struct cgw_cgroup {
	struct bpf_spin_lock lock;
	s64 sum;     /* S(C): runnable tasks' weights + busy children's contrib */
	u32 weight;  /* cpu.weight */
	u32 contrib; /* what C adds to its parent's sum: weight while busy, else 0 */
};

struct {
	__uint(type, BPF_MAP_TYPE_CGRP_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct cgw_cgroup);
} scxk_cgw_cgroups SEC(".maps");

/* The weight a runnable task added to its cgroup, taken back when it stops. */
struct cgw_task {
	u32 added;
	u64 cgid; /* its cgroup then, for charges outside its own callbacks */
};

SCXK_TASK_STORAGE(scxk_cgw_tasks, struct cgw_task);

/* The vtime charge stays below ~18 minutes per run, so sums cannot wrap. */
#define CGW_CHARGE_MAX (1ULL << 40)

/* Apply @delta to @cgrp's sum; the change @cgrp's parent must see, if any. */
static s64 cgw_add(struct cgroup *cgrp, s64 delta)
{
	struct cgw_cgroup *cg = bpf_cgrp_storage_get(&scxk_cgw_cgroups, cgrp, 0, 0);
	s64 old, up = 0;

	if (!cg)
		return 0;
	bpf_spin_lock(&cg->lock);
	old = cg->sum;
	cg->sum += delta;
	if (old <= 0 && cg->sum > 0) {
		cg->contrib = cg->weight;
		up = cg->contrib;
	} else if (old > 0 && cg->sum <= 0) {
		up = -(s64)cg->contrib;
		cg->contrib = 0;
	}
	bpf_spin_unlock(&cg->lock);
	return up;
}

/* Apply @delta at @level of @cgrp's ancestry and carry it up to level 1. */
static void cgw_propagate(struct cgroup *cgrp, s32 level, s64 delta)
{
	s32 i;

	for (i = 0; i < SCXK_CGW_MAX_DEPTH && level >= 1 && delta; i++, level--) {
		struct cgroup *c = bpf_cgroup_ancestor(cgrp, level);

		if (!c)
			return;
		delta = cgw_add(c, delta);
		bpf_cgroup_release(c);
	}
}

static s32 cgw_level(struct cgroup *cgrp)
{
	s32 level = BPF_CORE_READ(cgrp, level);

	return level > SCXK_CGW_MAX_DEPTH ? SCXK_CGW_MAX_DEPTH : level;
}

__hidden void scxk_cgw_runnable(struct task_struct *p)
{
	struct cgw_task *t = scxk_task_storage(&scxk_cgw_tasks, p, true);
	struct cgroup *cgrp;

	if (!t || t->added)
		return;
	cgrp = scx_bpf_task_cgroup(p);
	t->added = p->scx.weight;
	t->cgid = BPF_CORE_READ(cgrp, kn, id);
	cgw_propagate(cgrp, cgw_level(cgrp), t->added);
	bpf_cgroup_release(cgrp);
}

__hidden void scxk_cgw_quiescent(struct task_struct *p)
{
	struct cgw_task *t = scxk_task_storage(&scxk_cgw_tasks, p, false);
	struct cgroup *cgrp;

	/* Nothing was added for a task that was runnable before we attached. */
	if (!t || !t->added)
		return;
	cgrp = scx_bpf_task_cgroup(p);
	cgw_propagate(cgrp, cgw_level(cgrp), -(s64)t->added);
	t->added = 0;
	bpf_cgroup_release(cgrp);
}

/* @charge scaled by cpu.weight / S at each level of @cgrp below the root. */
static u64 cgw_scale(struct cgroup *cgrp, u64 charge)
{
	s32 level, depth = cgw_level(cgrp);

	for (level = 1; level <= depth && level <= SCXK_CGW_MAX_DEPTH; level++) {
		struct cgroup *c = bpf_cgroup_ancestor(cgrp, level);
		struct cgw_cgroup *cg;
		u32 weight;
		s64 sum;

		if (!c)
			break;
		cg = bpf_cgrp_storage_get(&scxk_cgw_cgroups, c, 0, 0);
		bpf_cgroup_release(c);
		if (!cg)
			continue;
		/* A racy read: a sum a wakeup is changing is off by one task. */
		sum = READ_ONCE(cg->sum);
		weight = READ_ONCE(cg->weight);
		if (sum > 0 && weight)
			charge = charge * sum / weight;
		if (charge > CGW_CHARGE_MAX)
			charge = CGW_CHARGE_MAX;
	}
	return charge;
}

__hidden u64 scxk_cgw_charge(struct task_struct *p, u64 used)
{
	u64 charge = scxk_scale_by_weight_inv(used, p->scx.weight);
	struct cgroup *cgrp = scx_bpf_task_cgroup(p);

	charge = cgw_scale(cgrp, charge);
	bpf_cgroup_release(cgrp);
	return charge;
}

/*
 * scx_bpf_task_cgroup() serves only the task a callback operates on, and
 * ops.dispatch() operates on none: there the cgroup is found from the id
 * recorded when @p became runnable (it cannot have moved since).
 */
__hidden u64 scxk_cgw_charge_prev(struct task_struct *p, u64 used)
{
	u64 charge = scxk_scale_by_weight_inv(used, p->scx.weight);
	struct cgw_task *t = scxk_task_storage(&scxk_cgw_tasks, p, false);
	struct cgroup *cgrp;

	if (!t || !t->cgid || !(cgrp = bpf_cgroup_from_id(t->cgid)))
		return charge;
	charge = cgw_scale(cgrp, charge);
	bpf_cgroup_release(cgrp);
	return charge;
}

__hidden s32 scxk_cgw_init(struct cgroup *cgrp, struct scx_cgroup_init_args *args)
{
	struct cgw_cgroup *cg =
		bpf_cgrp_storage_get(&scxk_cgw_cgroups, cgrp, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!cg)
		return -ENOMEM;
	cg->weight = args->weight;
	return 0;
}

__hidden void scxk_cgw_set_weight(struct cgroup *cgrp, u32 weight)
{
	struct cgw_cgroup *cg = bpf_cgrp_storage_get(&scxk_cgw_cgroups, cgrp, 0, 0);
	s64 up = 0;

	if (!cg)
		return;
	bpf_spin_lock(&cg->lock);
	cg->weight = weight;
	if (cg->contrib) {
		up = (s64)weight - cg->contrib;
		cg->contrib = weight;
	}
	bpf_spin_unlock(&cg->lock);
	cgw_propagate(cgrp, cgw_level(cgrp) - 1, up);
}
