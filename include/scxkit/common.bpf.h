/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * common.bpf.h - what every scxkit BPF scheduler includes first.
 *
 * vmlinux.h comes from one kernel (include/arch/x86/vmlinux.h, 7.3 at the
 * time of writing) and carries that kernel's kfunc prototypes. Everything
 * that differs between 6.12 and the newest kernel goes through the compat
 * wrappers in compat.bpf.h, never through a kfunc name directly.
 */
#ifndef __SCXKIT_COMMON_BPF_H
#define __SCXKIT_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") __weak = "GPL";

#define BPF_STRUCT_OPS(name, args...) SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

/* Ends a policy file: the ops table is its table of contents. */
#define SCXK_OPS_DEFINE(__name, ...)                                                               \
	SEC(".struct_ops.link") struct sched_ext_ops __name = { __VA_ARGS__ }

/* errno values (BPF programs have no libc headers) */
#ifndef EPERM
#define EPERM 1
#define ENOENT 2
#define E2BIG 7
#define ENOMEM 12
#define EBUSY 16
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define EOPNOTSUPP 95
#endif

/* Kernel constants that are #defines, hence absent from vmlinux.h. */
#define PF_KTHREAD 0x00200000 /* include/linux/sched.h */
#define CLOCK_MONOTONIC 1

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef READ_ONCE
#define READ_ONCE(x) (*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))
#endif
#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif

/*
 * scxk_error - abort the scheduler with a formatted reason. The kernel
 * disables the scheduler, records the message and the loader prints it.
 */
#define scxk_error(fmt, args...)                                                                   \
	({                                                                                         \
		static char ___fmt[] = fmt;                                                        \
		unsigned long long ___param[___bpf_narg(args)];                                    \
		_Pragma("GCC diagnostic push")                                                     \
			_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")                     \
				___bpf_fill(___param, args);                                       \
		_Pragma("GCC diagnostic pop") scx_bpf_error_bstr(___fmt, ___param,                 \
								 sizeof(___param));                \
	})

/* scxk_exit - leave on purpose with @code (e.g. a restart request). */
#define scxk_exit(code, fmt, args...)                                                              \
	({                                                                                         \
		static char ___fmt[] = fmt;                                                        \
		unsigned long long ___param[___bpf_narg(args)];                                    \
		_Pragma("GCC diagnostic push")                                                     \
			_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")                     \
				___bpf_fill(___param, args);                                       \
		_Pragma("GCC diagnostic pop") scx_bpf_exit_bstr(code, ___fmt, ___param,            \
								sizeof(___param));                 \
	})

/* Task-local storage with a scheduler's own type, created on first use. */
#define SCXK_TASK_STORAGE(__map, __vtype)                                                           \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);                                           \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, __vtype);                                                             \
	} __map SEC(".maps")

static __always_inline void *scxk_task_storage(void *map, struct task_struct *p, bool create)
{
	return bpf_task_storage_get(map, p, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Per-CPU context of a scheduler's own type: one entry, one copy per CPU. */
#define SCXK_PERCPU_CTX(__map, __vtype)                                                             \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                           \
		__uint(max_entries, 1);                                                            \
		__type(key, u32);                                                                  \
		__type(value, __vtype);                                                             \
	} __map SEC(".maps")

static __always_inline void *scxk_percpu_ctx(void *map)
{
	u32 zero = 0;

	return bpf_map_lookup_elem(map, &zero);
}

/* Per-CPU context of another CPU. */
static __always_inline void *scxk_percpu_ctx_of(void *map, s32 cpu)
{
	u32 zero = 0;

	return bpf_map_lookup_percpu_elem(map, &zero, cpu);
}

/**
 * scxk_migration_disabled - whether @p must stay on its CPU for now
 *
 * A BPF program runs with migration disabled, so when @p is the current
 * task (enqueue of a preempted or yielding task) a count of exactly 1 is
 * the program's own and says nothing about @p.
 */
static __always_inline bool scxk_migration_disabled(const struct task_struct *p)
{
	if (p->migration_disabled == 1)
		return (const struct task_struct *)bpf_get_current_task_btf() != p;
	return p->migration_disabled;
}

#include <scxkit/compat.bpf.h>

#endif /* __SCXKIT_COMMON_BPF_H */
