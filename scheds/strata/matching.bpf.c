// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_strata: matching. Which layer a task belongs to: the loader
 * flattens each layer's match blocks (comm, parent comm, cgroup, nice,
 * ids, leader, kthread, NUMA node, pid namespace, joined layer) into
 * flat[], evaluated here in order; a task is matched again when it is
 * renamed or changes cgroup, nice or affinity, and the per-layer task
 * counts follow it.
 */
#include "strata.bpf.h"

/* cgroup id -> bit per cgroup matcher that the cgroup's path satisfies (loader-filled) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STRATA_MAX_CGROUPS);
	__type(key, u64);
	__type(value, u64);
} cgrp_bits SEC(".maps");

/* HintEquals: written by user space only (intf.h); pinned by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct strata_task_hint);
} task_hints SEC(".maps");

/* ---- matching ---- */

struct tinfo {
	char comm[STRATA_COMM_LEN];
	char pcomm[STRATA_COMM_LEN];
	u64 cgbits;
	s32 nice;
	u32 uid, gid, pid, ppid, tgid;
	bool leader, kthread;
	const struct cpumask *cpus;
	u64 avg_runtime_us;
	u32 ns_inum, nspid; /* the task's own pid namespace and its pid there */
	u64 hint;
	const char *join;
};

static __always_inline bool has_prefix(const char *s, const volatile char *pat)
{
#pragma unroll
	for (int j = 0; j < STRATA_COMM_LEN; j++) {
		char c = pat[j];

		if (!c)
			return true;
		if (s[j] != c)
			return false;
	}
	return true;
}

static bool eval(const volatile struct strata_match *m, const struct tinfo *ti)
{
	switch (m->kind) {
	case STRATA_M_ALWAYS:
		return true;
	case STRATA_M_CGROUP:
		return (ti->cgbits >> (m->cg_bit & 63)) & 1;
	case STRATA_M_COMM_PREFIX:
		return has_prefix(ti->comm, m->str);
	case STRATA_M_COMM_PREFIX_EXCL:
		return !has_prefix(ti->comm, m->str);
	case STRATA_M_PCOMM_PREFIX:
		return has_prefix(ti->pcomm, m->str);
	case STRATA_M_PCOMM_PREFIX_EXCL:
		return !has_prefix(ti->pcomm, m->str);
	case STRATA_M_NICE_ABOVE:
		return ti->nice > m->val;
	case STRATA_M_NICE_BELOW:
		return ti->nice < m->val;
	case STRATA_M_NICE_EQUALS:
		return ti->nice == m->val;
	case STRATA_M_UID:
		return ti->uid == (u32)m->val;
	case STRATA_M_GID:
		return ti->gid == (u32)m->val;
	case STRATA_M_PID:
		return ti->pid == (u32)m->val;
	case STRATA_M_PPID:
		return ti->ppid == (u32)m->val;
	case STRATA_M_TGID:
		return ti->tgid == (u32)m->val;
	case STRATA_M_GROUP_LEADER:
		return ti->leader == !!m->val;
	case STRATA_M_KTHREAD:
		return ti->kthread == !!m->val;
	case STRATA_M_AVG_RUNTIME:
		return ti->avg_runtime_us >= (u32)m->val && ti->avg_runtime_us < (u32)m->val2;
	case STRATA_M_CMD_JOIN:
		/* as scx_layered: no join command, no match; else a prefix of the name */
		return ti->join[0] && has_prefix(ti->join, m->str);
	case STRATA_M_NS:
		return ti->ns_inum == (u32)m->val;
	case STRATA_M_NSPID:
		return ti->nspid == (u32)m->val && ti->ns_inum == (u32)m->val2;
	case STRATA_M_HINT:
		return ti->hint == (u64)m->val;
	case STRATA_M_NUMA_NODE: {
		/* as scx_layered: the task may only run on this node's CPUs */
		const struct cpumask *node = scxk_node_cpumask((u32)m->val & (SCXK_MAX_NODES - 1));

		return node && bpf_cpumask_subset(ti->cpus, node);
	}
	}
	return false;
}

static u64 task_cgid(struct task_struct *p)
{
	return BPF_CORE_READ(p, cgroups, dfl_cgrp, kn, id);
}

/*
 * The pid namespace @p lives in (task_active_pid_ns(): the namespace of
 * its pid's deepest level) and its pid there, as NSEquals/NSPIDEquals
 * compare them; 0 when the task is exiting.
 */
static void task_pidns(struct task_struct *p, u32 *inum, u32 *nr)
{
	struct pid *pid = BPF_CORE_READ(p, thread_pid);
	struct upid up = {};
	u32 level;

	if (!pid)
		return;
	level = BPF_CORE_READ(pid, level);
	if (bpf_probe_read_kernel(&up, sizeof(up), &pid->numbers[level & 63]) || !up.ns)
		return;
	*nr = (u32)up.nr;
	*inum = BPF_CORE_READ(up.ns, ns.inum);
}

/* @p's hint, STRATA_HINT_NONE without one (or without --task-hint-map) */
static u64 task_hint(struct task_struct *p)
{
	struct strata_task_hint *h;

	if (!match_hint || !(h = bpf_task_storage_get(&task_hints, p, NULL, 0)))
		return STRATA_HINT_NONE;
	return h->hint <= STRATA_HINT_MAX ? h->hint : STRATA_HINT_NONE;
}

/* The first layer whose AND block all match; the last layer is the catch-all. */
static u32 match_layer(struct task_struct *p, u64 cgid, const struct task_ctx *tctx)
{
	struct task_struct *leader = BPF_CORE_READ(p, group_leader);
	struct tinfo ti = {};
	u64 *bits;
	bool ok = true;
	u32 i;

	bpf_probe_read_kernel(ti.comm, sizeof(ti.comm), p->comm);
	if (leader)
		bpf_probe_read_kernel(ti.pcomm, sizeof(ti.pcomm), &leader->comm);
	bits = bpf_map_lookup_elem(&cgrp_bits, &cgid);
	ti.cgbits = bits ? *bits : 0;
	ti.nice = (s32)p->static_prio - 120; /* MAX_RT_PRIO + NICE_WIDTH / 2 */
	ti.uid = BPF_CORE_READ(p, cred, euid.val);
	ti.gid = BPF_CORE_READ(p, cred, egid.val);
	ti.pid = p->pid;
	ti.tgid = p->tgid;
	ti.ppid = BPF_CORE_READ(p, real_parent, tgid);
	ti.leader = p->pid == p->tgid;
	ti.kthread = p->flags & PF_KTHREAD;
	ti.cpus = p->cpus_ptr;
	ti.avg_runtime_us = tctx->avg_runtime / SCXK_NSEC_PER_USEC;
	ti.join = tctx->join;
	ti.hint = tctx->hint;
	if (match_ns)
		task_pidns(p, &ti.ns_inum, &ti.nspid);

	bpf_for (i, 0, nr_flat) {
		const volatile struct strata_match *m = &flat[i & (STRATA_MAX_FLAT - 1)];

		if (ok && !eval(m, &ti))
			ok = false;
		if (m->end_block) {
			if (ok)
				return m->layer;
			ok = true;
		}
	}
	return nr_layers - 1;
}

/* (Re)match @p; moves its task count when the layer changes. */
__hidden void rematch(struct task_struct *p, struct task_ctx *tctx, bool first)
{
	u64 cgid = task_cgid(p);
	u32 l;

	tctx->hint = task_hint(p);
	l = LAYER_IDX(match_layer(p, cgid, tctx));

	bpf_probe_read_kernel(tctx->comm, sizeof(tctx->comm), p->comm);
	tctx->cgid = cgid;
	tctx->cg_gen = READ_ONCE(cg_gen);
	tctx->matched_at = scxk_now();
	if (first) {
		tctx->layer = l;
		__sync_fetch_and_add(&layer_nr_tasks[l], 1);
		return;
	}
	if (l == tctx->layer)
		return;
	__sync_fetch_and_sub(&layer_nr_tasks[LAYER_IDX(tctx->layer)], 1);
	__sync_fetch_and_add(&layer_nr_tasks[l], 1);
	tctx->layer = l;
	scxk_stat_inc(STRATA_STAT_REMATCH);
}

/*
 * A rename (exec, prctl), a cgroup change or a new hint since the last
 * match? (User space writes hints with no hook to tell BPF: they are
 * compared here, as scx_layered does when the task runs.)
 */
__hidden void maybe_rematch(struct task_struct *p, struct task_ctx *tctx)
{
	u64 comm[2] = {};

	bpf_probe_read_kernel(comm, sizeof(comm), p->comm);
	if (comm[0] != tctx->comm[0] || comm[1] != tctx->comm[1] ||
	    tctx->cg_gen != READ_ONCE(cg_gen) || tctx->cgid != task_cgid(p) ||
	    (match_hint && tctx->hint != task_hint(p)))
		rematch(p, tctx, false);
}

/*
 * CmdJoin: a rename to a command (intf.h) joins or leaves a layer. The
 * tracepoint sees every rename, also two within one time slice, and runs
 * before the name changes; the change itself then re-matches the task
 * (maybe_rematch). Attached by the loader only when a CmdJoin matcher is
 * configured.
 */
SEC("tp_btf/task_rename")
int BPF_PROG(strata_task_rename, struct task_struct *p, const char *buf)
{
	struct {
		u16 prefix;
		u8 op;
		char name[STRATA_CMD_LEN];
	} cmd = {};
	struct task_ctx *tctx;

	_Static_assert(sizeof(cmd) == STRATA_COMM_LEN, "a command fills a task name");
	if (bpf_probe_read_kernel_str(&cmd, sizeof(cmd), buf) < 0 ||
	    cmd.prefix != STRATA_CMD_PREFIX || !(tctx = task_ctx(p)))
		return 0;
	if (cmd.op == STRATA_CMD_JOIN) {
		__builtin_memset(tctx->join, 0, sizeof(tctx->join));
		__builtin_memcpy(tctx->join, cmd.name, sizeof(cmd.name));
	} else if (cmd.op == STRATA_CMD_LEAVE) {
		__builtin_memset(tctx->join, 0, sizeof(tctx->join));
	}
	return 0;
}
