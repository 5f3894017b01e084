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

#include <scxkit/stats_ids.h>
#include <scxkit/types.h>

/*
 * Bounds of the slice an answer may give (struct scxu_dispatch.slice_ns),
 * applied by the BPF side after 0 became the default slice: a policy bug
 * answering 1 ns would make the task switch at every tick, one answering
 * U64_MAX would let it keep its CPU until the watchdog ejects the
 * scheduler. They match the widest range scx_relay's options allow.
 */
#define SCXU_SLICE_MIN_NS (50ULL * 1000)	  /* 50 us */
#define SCXU_SLICE_MAX_NS (1000ULL * 1000 * 1000) /* 1 s */

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
/*
 * With SCXU_CPU_ANY, or the only CPU of a pinned task: if the task runs
 * briefly, preempt a CPU hog on its previous CPU or the CPU that drains
 * the answer, under the rule of scxkit/preempt.bpf.h (the deadline is the
 * order); otherwise queue as usual.
 */
#define SCXU_DISPATCH_PREEMPT_SHORT (1U << 1)

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
	/*
	 * 0: the library's default slice; anything else is clamped to
	 * [SCXU_SLICE_MIN_NS, SCXU_SLICE_MAX_NS] (counted as slice_clamped)
	 */
	u64 slice_ns;
	u64 vtime; /* stored, comes back in the next struct scxu_task */
	/*
	 * Order in the queue it joins, earliest first, in CLOCK_MONOTONIC ns
	 * (the clock of enq_ts; tasks the BPF side queues itself use the
	 * current time): enq_ts means FIFO, later values let others ahead.
	 */
	u64 deadline;
	u64 enq_cnt; /* from struct scxu_task */
};

/*
 * The library's stats, one line each, in the order clients see them
 * (columns: scxkit/stats_ids.h); a scheduler's own follow. The counters are
 * the BPF side's (per-CPU, summed by user space), served as totals since
 * attach; the VALs are set by libscxuser's loader.
 */
#define SCXU_STATS(S)                                                                              \
	S(VAL, SCXU_NR_QUEUED, "nr_queued", U64, "",                                               \
	  "tasks waiting in the ring for the user-space scheduler")                                \
	S(VAL, SCXU_NR_SCHEDULED, "nr_scheduled", U64, "",                                         \
	  "tasks the user-space scheduler holds back")                                             \
	S(VAL, SCXU_NR_WAITING, "nr_waiting", U64, "",                                             \
	  "dispatched tasks waiting in the shared queue")                                          \
	S(TOT, SCXU_CNT_USER_DISPATCHES, "nr_user_dispatches", U64, "",                            \
	  "decisions taken in user space (since attach)")                                          \
	S(TOT, SCXU_CNT_PREEMPT_DISPATCHES, "nr_preempt_dispatches", U64, "",                      \
	  "of those, short runners that preempted a hog (SCXU_DISPATCH_PREEMPT_SHORT)")            \
	S(TOT, SCXU_CNT_KERNEL_DISPATCHES, "nr_kernel_dispatches", U64, "",                        \
	  "decisions taken in BPF: idle CPU on wakeup, per-CPU kthread, last task, "               \
	  "a CPU a higher class holds")                                                            \
	S(TOT, SCXU_CNT_CANCEL_DISPATCHES, "nr_cancel_dispatches", U64, "",                        \
	  "stale answers dropped (task queued again)")                                             \
	S(TOT, SCXU_CNT_BOUNCE_DISPATCHES, "nr_bounce_dispatches", U64, "",                        \
	  "answers naming a CPU the task may not use")                                             \
	S(TOT, SCXU_CNT_FAILED_DISPATCHES, "nr_failed_dispatches", U64, "",                        \
	  "answers for tasks that were gone")                                                      \
	S(TOT, SCXU_CNT_CONGESTED, "nr_sched_congested", U64, "",                                  \
	  "tasks queued in BPF because the ring was full")                                         \
	S(RAW, SCXU_CNT_QUEUED, "queued", U64, "", "tasks sent to user space")                     \
	S(TOT, SCXU_CNT_HEARTBEATS, "nr_heartbeats", U64, "",                                      \
	  "heartbeat kicks that found work pending")                                               \
	S(TOT, SCXU_CNT_SCHED_PREEMPTS, "nr_sched_preempts", U64, "",                              \
	  "busy CPUs preempted to run the scheduling thread (every CPU busy, work queued)")        \
	S(TOT, SCXU_CNT_SCHED_PREEMPTS_DEFERRED, "nr_sched_preempts_deferred", U64, "",            \
	  "of those, preemptions the rate limit postponed to a timer")                             \
	S(TOT, SCXU_CNT_SCHED_MOVED, "nr_sched_moved", U64, "",                                    \
	  "times the scheduling thread left a CPU a higher class holds, to idle elsewhere")        \
	S(TOT, SCXU_CNT_SCHED_TIMER_DYING, "nr_sched_timer_dying", U64, "",                        \
	  "postponed preemptions not armed because the CPU was going down")                        \
	S(TOT, SCXU_CNT_SLICE_CLAMPED, "nr_slice_clamped", U64, "",                                \
	  "answers whose slice was outside [SCXU_SLICE_MIN_NS, SCXU_SLICE_MAX_NS] "                \
	  "and was clamped")                                                                       \
	S(TOT, SCXU_CNT_HOTPLUG, "hotplug", U64, "",                                               \
	  "CPUs gone offline or online, handled without a restart")                                \
	S(VAL, SCXU_NR_PAGE_FAULTS, "nr_page_faults", U64, "",                                     \
	  "page faults of the scheduler process since start-up")                                   \
	S(VAL, SCXU_EVENTS_PER_S, "events_per_s", FLOAT, "",                                       \
	  "tasks handled by the user-space side per second since this client's previous read")

enum scxu_counter { SCXU_STATS(SCXK_STAT_COUNTER) SCXU_NR_COUNTERS };
enum scxu_value { SCXU_STATS(SCXK_STAT_VALUE) SCXU_NR_VALUES };

/**
 * scxu_slice_bound - the slice an answer really gets
 * @slice_ns: what user space answered (0 for the default)
 * @dfl_ns: the library's default slice (struct scxu_opts.slice_ns)
 * @clamped: set to whether the result differs from what was asked
 *
 * Return: @slice_ns, or @dfl_ns for 0, limited to
 * [SCXU_SLICE_MIN_NS, SCXU_SLICE_MAX_NS].
 */
static inline u64 scxu_slice_bound(u64 slice_ns, u64 dfl_ns, bool *clamped)
{
	u64 want = slice_ns ? slice_ns : dfl_ns;
	u64 got = want < SCXU_SLICE_MIN_NS   ? SCXU_SLICE_MIN_NS
		  : want > SCXU_SLICE_MAX_NS ? SCXU_SLICE_MAX_NS
					     : want;

	*clamped = got != want;
	return got;
}

#ifndef __bpf__
#include <errno.h>
#include <stddef.h>
#include <string.h>

/**
 * scxu_task_from_record - copy one queued-ring record into @t
 * @data, @size: the record as the ring buffer delivered it
 *
 * A record shorter than struct scxu_task means the BPF side and the library
 * disagree on the layout (or memory is corrupt): nothing of it is a usable
 * task, so it is an error rather than a half-filled @t.
 * Return: 0, or -EBADMSG for a short record (@t untouched).
 */
static inline int scxu_task_from_record(struct scxu_task *t, const void *data, size_t size)
{
	if (size < sizeof(*t))
		return -EBADMSG;
	memcpy(t, data, sizeof(*t));
	return 0;
}
#endif

#endif /* __SCXUSER_WIRE_H */
