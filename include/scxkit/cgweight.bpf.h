/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cgweight.bpf.h - cgroup cpu.weight, hierarchically, for schedulers that
 * order tasks by weighted virtual time (common/sched/cgweight.bpf.c).
 *
 * The fair class gives each cgroup a share of its parent's CPU time in
 * proportion to cpu.weight among the parent's busy children, where a task
 * directly in the parent counts as a child of its own weight (nice 0 = 100,
 * the default cpu.weight). Flattened, that is a per-task weight:
 *
 *   w_flat(p) = w(p) * prod over p's cgroups C below the root of
 *               cpu.weight(C) / S(C)
 *
 * where S(C) sums the weights of C's runnable tasks and the cpu.weight of
 * C's children that have runnable tasks. A vtime scheduler that charges
 * run time divided by w_flat instead of w(p) gives every cgroup its share
 * down the hierarchy, whether or not its tasks share a CPU with the
 * others', as long as the tasks meet in one vtime order.
 *
 * S(C) changes only when a task of C becomes runnable or stops being
 * runnable, and reaches C's parent only when C turns busy or idle, so the
 * bookkeeping is one locked add per wakeup and per sleep; the charge walks
 * the task's cgroups up to the root once per stop.
 *
 * Use it from a vtime scheduler:
 *   ops.runnable:          scxk_cgw_runnable(p)
 *   ops.quiescent:         scxk_cgw_quiescent(p)
 *   ops.stopping:          vtime += scxk_cgw_charge(p, used)
 *   ops.dispatch:          scxk_cgw_charge_prev(prev, used), to compare
 *                          a still-runnable prev with the queue
 *   ops.cgroup_init:       return scxk_cgw_init(cgrp, args)
 *   ops.cgroup_set_weight: scxk_cgw_set_weight(cgrp, weight)
 * Tasks move between cgroups only while not runnable for the scheduler
 * (the kernel takes them off the run queue around the move), so no
 * cgroup_move callback is needed. Without CONFIG_EXT_GROUP_SCHED every task
 * is in the root cgroup and the charge is the plain weighted one.
 */
#ifndef __SCXKIT_CGWEIGHT_BPF_H
#define __SCXKIT_CGWEIGHT_BPF_H

/* cgroups deeper than this count as their ancestor at this depth. */
#define SCXK_CGW_MAX_DEPTH 16

void scxk_cgw_runnable(struct task_struct *p);
void scxk_cgw_quiescent(struct task_struct *p);

/**
 * scxk_cgw_charge - the vtime @p owes for running @used ns
 * Return: @used scaled down by @p's flattened weight (see above); without
 * cgroups, scxk_scale_by_weight_inv(@used, p->scx.weight).
 */
u64 scxk_cgw_charge(struct task_struct *p, u64 used);

/* scxk_cgw_charge() for ops.dispatch()'s @prev, the one task it may charge. */
u64 scxk_cgw_charge_prev(struct task_struct *p, u64 used);

s32 scxk_cgw_init(struct cgroup *cgrp, struct scx_cgroup_init_args *args);
void scxk_cgw_set_weight(struct cgroup *cgrp, u32 weight);

#endif /* __SCXKIT_CGWEIGHT_BPF_H */
