/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scxuser.h - libscxuser: write a sched_ext CPU scheduler as an ordinary
 * user-space C program.
 *
 * The library brings its own BPF backend. Tasks that need a decision come
 * to the program as struct scxu_task; the program answers with struct
 * scxu_dispatch (which CPU, how long, in which order). Everything around
 * it, options, attach, stats socket, exit reporting, restart, is the
 * shared scxkit life cycle (scxkit/sched.h).
 *
 * A scheduler is a struct scxu_sched handed to scxu_main(). Its schedule()
 * hook is called in a loop on a dedicated, memory-locked thread:
 *
 *	static int schedule(struct scxu *u)
 *	{
 *		struct scxu_task t;
 *
 *		while (scxu_dequeue(u, &t) == 0) {
 *			struct scxu_dispatch d = scxu_dispatch_for(&t);
 *			scxu_dispatch(u, &d);
 *		}
 *		return scxu_notify_complete(u, 0);
 *	}
 *
 * Rules for that thread (the kernel ejects a scheduler whose tasks wait
 * longer than its timeout, and a page fault there can deadlock): never
 * block, never call malloc; allocate with scxu_alloc() from the
 * preallocated arena, which fails instead of growing. The library enforces
 * it: all memory is locked at start-up (mlockall), and the scheduling
 * thread runs under a seccomp filter that makes brk/mmap/mremap fail with
 * EPERM, so a stray allocation fails rather than faults.
 */
#ifndef __SCXUSER_H
#define __SCXUSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <scxkit/cli.h>
#include <scxkit/stats.h>
#include <scxuser/wire.h>

struct scxu;

/* Tunables a scheduler sets before scxu_main() (or in validate()). */
struct scxu_opts {
	/*
	 * Slice of kernel-side dispatches and of answers with 0; default 5 ms.
	 * Every answer's slice is kept in [SCXU_SLICE_MIN_NS, SCXU_SLICE_MAX_NS]
	 * (wire.h) by the BPF side.
	 */
	uint64_t slice_ns;
	/*
	 * Wakeups onto idle CPUs skip user space. True when scxu_sched.opts
	 * is NULL; unlike the fields around it, false in a scheduler's own
	 * struct is taken as given, not as "the default".
	 */
	bool builtin_idle;
	size_t arena_bytes; /* arena for scxu_alloc(); default 16 MiB */
	/*
	 * When a task is queued for user space and no CPU idles, preempt one
	 * for the scheduling thread if it has not run for this long; bounds
	 * the round trip's extra latency under load. Default 1 ms;
	 * SCXU_PREEMPT_NEVER waits for a slice to end instead.
	 */
	uint64_t preempt_after_ns;
};

#define SCXU_PREEMPT_NEVER UINT64_MAX

/* Counters since attach (BPF side summed over CPUs, plus user-side ones). */
struct scxu_counters {
	uint64_t user_dispatches, kernel_dispatches, cancel_dispatches, bounce_dispatches,
		failed_dispatches, congested, queued, heartbeats, sched_preempts,
		sched_preempts_deferred, slice_clamped, hotplug;
	uint64_t dequeued;	/* scxu_dequeue() successes */
	uint64_t dispatch_full; /* scxu_dispatch() refused: answer ring full */
	uint64_t nr_scheduled;	/* last value given to scxu_notify_complete() */
	uint64_t page_faults;	/* of the whole process since start-up */
};

struct scxu_sched {
	const char *name;	    /* sched_ext ops name, e.g. "relay" */
	const struct scxk_cli *cli; /* the binary's options; the common ones are added */
	struct scxu_opts *opts;	    /* may be changed by validate(); NULL for defaults */
	/* Checks between options after parsing: 0 or -EINVAL (exit 2). */
	int (*validate)(void);
	/* On the scheduling thread, after attach and before the loop (optional). */
	int (*init)(struct scxu *u);
	/*
	 * One round: drain, decide, dispatch, then scxu_notify_complete().
	 * Returns 0, or a negative errno that stops the scheduler (the kernel
	 * then detaches it and the binary exits 1).
	 */
	int (*schedule)(struct scxu *u);
	/*
	 * Extra stats after the library's own (optional): VAL fields only,
	 * the table of a stats list (scxkit/stats_ids.h).
	 */
	const struct scxk_stat_desc *stats;
	size_t nr_stats;
	/*
	 * Set the extra stats with scxk_stats_set*() and the ids of that
	 * list; runs on the stats thread, read-only.
	 */
	int (*collect)(struct scxu *u, struct scxk_stats_read *r);
};

/**
 * scxu_main - the whole life of a user-space scheduler binary
 *
 * Parses options (the scheduler's and the common scxkit ones), checks the
 * system, locks memory, loads and attaches the BPF backend, runs
 * s->schedule() in a loop on the scheduling thread, serves stats, and on
 * exit reports why the kernel or the user stopped it.
 *
 * Return: the process exit status: 0 after SIGINT/SIGTERM, 1 on a runtime
 * error or ejection, 2 on bad options (the kernel untouched).
 */
int scxu_main(const struct scxu_sched *s, int argc, char **argv);

/* ---- the scheduling thread's API (hot path: none of these allocates) ---- */

/**
 * scxu_dequeue - the next task waiting for a decision
 * Return: 0 and *@t filled, -EAGAIN when none is queued, or -EBADMSG when
 * the record taken off the ring was too short to be a task (it is
 * consumed; *@t is not filled and must not be dispatched).
 */
int scxu_dequeue(struct scxu *u, struct scxu_task *t);

/**
 * scxu_dispatch - send a decision to the BPF side
 *
 * @d->cpu is a CPU or SCXU_CPU_ANY; a CPU the task may not use is bounced
 * to the shared queue by BPF. An answer for a task queued again since
 * (older enq_cnt) is dropped by BPF and counted as a cancel.
 * Return: 0, -EINVAL for a bad CPU or pid, -ENOSPC if the answer ring is
 * full (try again after scxu_notify_complete()).
 */
int scxu_dispatch(struct scxu *u, const struct scxu_dispatch *d);

/** scxu_dispatch_for - an answer for @t with default slice, any CPU, FIFO order */
static inline struct scxu_dispatch scxu_dispatch_for(const struct scxu_task *t)
{
	struct scxu_dispatch d = {
		.pid = t->pid,
		.cpu = SCXU_CPU_ANY,
		.vtime = t->vtime,
		.deadline = t->enq_ts,
		.enq_cnt = t->enq_cnt,
	};
	return d;
}

/**
 * scxu_select_cpu - claim an idle CPU for task @pid, nearest @prev_cpu first
 * Return: the CPU (no longer idle: dispatch there), -EBUSY if none is
 * idle, -ESRCH if the task is gone.
 */
int scxu_select_cpu(struct scxu *u, int32_t pid, int32_t prev_cpu);

/**
 * scxu_notify_complete - end of a round
 * @nr_pending: tasks the scheduler still holds (it is run again soon while
 *              this is non-zero)
 *
 * Gives the CPU back (sched_yield()); the BPF side runs this thread again
 * as soon as tasks are queued or @nr_pending is non-zero.
 * Return: 0.
 */
int scxu_notify_complete(struct scxu *u, uint64_t nr_pending);

/** scxu_nr_queued - tasks waiting in the ring for scxu_dequeue() (approximate) */
uint64_t scxu_nr_queued(const struct scxu *u);

/** scxu_nr_waiting - tasks in the shared queue, dispatched but not running yet */
uint64_t scxu_nr_waiting(const struct scxu *u);

/** scxu_nr_cpus - possible CPUs (valid CPU ids are 0..scxu_nr_cpus()-1) */
int scxu_nr_cpus(const struct scxu *u);

/** scxu_exited - true once the scheduler is detaching (signal or kernel exit) */
bool scxu_exited(const struct scxu *u);

/** scxu_now_ns - CLOCK_MONOTONIC in ns, the clock of struct scxu_task.enq_ts */
uint64_t scxu_now_ns(void);

/**
 * scxu_alloc - memory from the scheduler's locked arena (never faults)
 * @align: 0 or a power of two up to 4096
 * Return: the block, or NULL when the arena cannot satisfy it.
 */
void *scxu_alloc(struct scxu *u, size_t size, size_t align);

/** scxu_free - return a block from scxu_alloc(); NULL is ignored */
void scxu_free(struct scxu *u, void *p);

/** scxu_counters_read - current counters (any thread) */
int scxu_counters_read(struct scxu *u, struct scxu_counters *c);

/** scxu_priv / scxu_set_priv - the scheduler's own state pointer */
void *scxu_priv(const struct scxu *u);
void scxu_set_priv(struct scxu *u, void *priv);

#endif /* __SCXUSER_H */
