/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire.h - the records libscxuser's BPF backend and its user-space half
 * exchange, compiled both for BPF and for the host. Tasks travel to user
 * space through a BPF ring buffer as struct scxu_task and come back through
 * a user ring buffer as struct scxu_dispatch. Both are fixed-size and
 * padding-free so that every kernel and compiler agree on the layout.
 */
#ifndef __SCXUSER_WIRE_H
#define __SCXUSER_WIRE_H

#include <scxkit/types.h>

/* A dispatch to any CPU the task may use (the shared queue). */
#define SCXU_CPU_ANY (1 << 20)

/*
 * Records each ring holds. 4096 matches the number of tasks a busy
 * desktop has runnable at worst; when the queued ring is full, enqueue
 * falls back to the kernel-side shared queue (counted as congestion).
 */
#define SCXU_RING_ENTRIES 4096

/* struct scxu_task.flags */
#define SCXU_TASK_WAKEUP  (1U << 0) /* woke up (as opposed to preempted or yielded) */
#define SCXU_TASK_NEW	  (1U << 1) /* first time queued since it joined sched_ext */
#define SCXU_TASK_KTHREAD (1U << 2) /* a kernel thread */

/* struct scxu_dispatch.flags */
#define SCXU_DISPATCH_PREEMPT (1U << 0) /* preempt the target CPU's current task */

/* A task waiting for a decision. */
struct scxu_task {
	s32 pid;
	s32 cpu;	     /* CPU it last ran on */
	u32 nr_cpus_allowed; /* 1 means pinned: only @cpu is possible */
	u32 flags;	     /* SCXU_TASK_* */
	u64 run_ns;	     /* CPU time used since its previous report */
	u64 exec_runtime_ns; /* CPU time used since it last slept */
	u64 weight;	     /* 1..10000, 100 for nice 0 */
	u64 vtime;	     /* what user space stored last (0 for a new task) */
	u64 enq_cnt;	     /* echo back in the answer; older answers are stale */
	u64 enq_ts;	     /* when it was queued (CLOCK_MONOTONIC ns) */
	char comm[16];
};

/* The answer for one task. */
struct scxu_dispatch {
	s32 pid;
	s32 cpu;   /* a CPU, or SCXU_CPU_ANY */
	u32 flags; /* SCXU_DISPATCH_* */
	u32 pad;
	u64 slice_ns; /* 0: the library's default slice */
	u64 vtime;    /* stored, comes back in the next struct scxu_task */
	/*
	 * Order in the queue it joins, earliest first, in CLOCK_MONOTONIC ns
	 * (the clock of enq_ts; tasks the BPF side queues itself use the
	 * current time): enq_ts means FIFO, later values let others ahead.
	 */
	u64 deadline;
	u64 enq_cnt; /* from struct scxu_task */
};

/* Counters of the BPF side (per-CPU, summed by user space). */
enum scxu_counter {
	SCXU_CNT_USER_DISPATCHES,   /* answers from user space inserted */
	SCXU_CNT_KERNEL_DISPATCHES, /* decided in BPF: idle CPU, per-CPU kthread, last task */
	SCXU_CNT_CANCEL_DISPATCHES, /* stale answers dropped (task queued again since) */
	SCXU_CNT_BOUNCE_DISPATCHES, /* answer named a CPU the task may not use */
	SCXU_CNT_FAILED_DISPATCHES, /* task gone or the kernel refused the insertion */
	SCXU_CNT_CONGESTED,	    /* queued ring full: task went to the shared queue */
	SCXU_CNT_QUEUED,	    /* tasks sent to user space */
	SCXU_CNT_HEARTBEATS,	    /* heartbeat kicks that found work pending */
	SCXU_CNT_SCHED_PREEMPTS,    /* CPUs preempted for the scheduling thread */
	SCXU_CNT_SCHED_PREEMPTS_DEFERRED, /* of those, by the timer the rate limit armed */
	SCXU_NR_COUNTERS,
};

#endif /* __SCXUSER_WIRE_H */
