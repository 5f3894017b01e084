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

#define BPF_STRUCT_OPS(name, args...)		SEC("struct_ops/" #name) BPF_PROG(name, ##args)
#define BPF_STRUCT_OPS_SLEEPABLE(name, args...) SEC("struct_ops.s/" #name) BPF_PROG(name, ##args)

/* Ends a policy file: the ops table is its table of contents. */
#define SCXK_OPS_DEFINE(__name, ...)                                                               \
	SEC(".struct_ops.link") struct sched_ext_ops __name = {__VA_ARGS__}

/* errno values (BPF programs have no libc headers) */
#ifndef EPERM
#define EPERM	   1
#define ENOENT	   2
#define E2BIG	   7
#define ENOMEM	   12
#define EBUSY	   16
#define EEXIST	   17
#define EINVAL	   22
#define ENOSPC	   28
#define EOPNOTSUPP 95
#endif

/* Kernel constants that are #defines, hence absent from vmlinux.h. */
#define PF_KTHREAD	0x00200000 /* include/linux/sched.h */
#define CLOCK_MONOTONIC 1

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef READ_ONCE
#define READ_ONCE(x)	 (*(volatile typeof(x) *)&(x))
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
		_Pragma("GCC diagnostic pop")                                                      \
			scx_bpf_error_bstr(___fmt, ___param, sizeof(___param));                    \
	})

/* Task-local storage with a scheduler's own type, created on first use. */
#define SCXK_TASK_STORAGE(__map, __vtype)                                                          \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);                                           \
		__uint(map_flags, BPF_F_NO_PREALLOC);                                              \
		__type(key, int);                                                                  \
		__type(value, __vtype);                                                            \
	} __map SEC(".maps")

static __always_inline void *scxk_task_storage(void *map, struct task_struct *p, bool create)
{
	return bpf_task_storage_get(map, p, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Per-CPU context of a scheduler's own type: one entry, one copy per CPU. */
#define SCXK_PERCPU_CTX(__map, __vtype)                                                            \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                           \
		__uint(max_entries, 1);                                                            \
		__type(key, u32);                                                                  \
		__type(value, __vtype);                                                            \
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

/* Filled in by libbpf from the running kernel's release string. */
extern unsigned int LINUX_KERNEL_VERSION __kconfig;

/*
 * scxk_bpf_run_pins_current - whether running a struct_ops program bumps
 * the current task's migration_disabled count itself
 *
 * The BPF trampoline called migrate_disable() around every program until
 * 6.18; since then it uses rcu_read_lock_dont_migrate(), which disables
 * migration only where CONFIG_PREEMPT_RCU is set. task_struct has
 * rcu_read_lock_nesting exactly when CONFIG_PREEMPT_RCU is set, so the
 * running kernel's BTF answers without reading its config file. The
 * verifier folds both tests into constants.
 */
/*
 * The field is asked for through a local flavour of task_struct: the
 * vmlinux.h of a kernel without CONFIG_PREEMPT_RCU (Debian's arm64 one)
 * does not declare it, and CO-RE matches the flavour to the real type.
 */
struct task_struct___scxk_prcu {
	int rcu_read_lock_nesting;
} __attribute__((preserve_access_index));

static __always_inline bool scxk_bpf_run_pins_current(void)
{
	if (LINUX_KERNEL_VERSION < KERNEL_VERSION(6, 18, 0))
		return true;
	return bpf_core_field_exists(((struct task_struct___scxk_prcu *)0)->rcu_read_lock_nesting);
}

/**
 * scxk_migration_disabled - whether @p must stay on its CPU for now
 * @p: a task the callback was handed
 *
 * Where the BPF runtime disables migration around the program itself
 * (scxk_bpf_run_pins_current()), the current task's count includes that
 * one: a count of exactly 1 on the current task is the program's own and
 * says nothing about @p. Reading p->migration_disabled directly takes
 * every re-queued running task for a pinned one.
 *
 * Return: true when @p may not migrate.
 */
static __always_inline bool scxk_migration_disabled(const struct task_struct *p)
{
	u16 count = p->migration_disabled;

	if (count == 1 && scxk_bpf_run_pins_current())
		return (const struct task_struct *)bpf_get_current_task_btf() != p;
	return count;
}

/**
 * scxk_task_pinned - whether @p can run on one CPU only, for now or for good
 * @p: a task the callback was handed
 *
 * Return: true for single-CPU affinity or disabled migration.
 */
static __always_inline bool scxk_task_pinned(const struct task_struct *p)
{
	return p->nr_cpus_allowed == 1 || scxk_migration_disabled(p);
}

/**
 * scxk_prev_runnable - whether @prev, as ops.dispatch() got it, still wants
 *                      to run
 * @prev: the task that ran on this CPU, or NULL
 *
 * When dispatch finds nothing else, such a task keeps the CPU if it gets a
 * fresh slice (scxk_task_set_slice()); otherwise the CPU would go idle.
 * Return: true for a task that is still queued (SCX_TASK_QUEUED).
 */
static __always_inline bool scxk_prev_runnable(const struct task_struct *prev)
{
	return prev && (prev->scx.flags & SCX_TASK_QUEUED);
}

#include <scxkit/compat.bpf.h>

#endif /* __SCXKIT_COMMON_BPF_H */
