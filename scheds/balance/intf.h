/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intf.h - what scx_balance's BPF side and its loader agree on: domain
 * limits, the ring of recently active tasks the balancer reads, and the
 * counters.
 */
#ifndef __BALANCE_INTF_H
#define __BALANCE_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/stats_ids.h>
#include <scxkit/topo_data.h>

#include "policy.h"

/*
 * Domains are numbered 0..nr_doms-1 and their DSQ ids are the same numbers
 * (below SCXK_DSQ_PRIVATE_MAX). 64 keeps a set of domains in one u64,
 * which is how affinity and the tuner's greedy sets travel.
 */
#define BALANCE_MAX_DOMS 64

/*
 * Recently active tasks per domain (rusty keeps 1024 too): a domain with
 * more tasks than this active in one balancing interval has its oldest
 * entries overwritten, so the balancer sees a sample of them.
 */
#define BALANCE_RING_SLOTS 1024

/* Flags of struct balance_active */
#define BALANCE_ACT_KWORKER (1U << 0) /* a workqueue worker (PF_WQ_WORKER) */
#define BALANCE_ACT_PINNED  (1U << 1) /* cannot leave its CPU */

/*
 * One entry of a domain's ring, written by the BPF side whenever the task
 * becomes runnable, stops running or goes to sleep, read by the balancer.
 * Entries of an older generation (lb_gen) are stale. The writer is not
 * atomic against the reader: a torn entry is one task's load misread for
 * one interval, which the next interval corrects.
 */
struct balance_active {
	u32 pid;
	u32 gen;      /* lb_gen when written */
	u32 dom;      /* the task's domain when written */
	u32 weight;   /* p->scx.weight, 100 = nice 0 */
	u64 dom_mask; /* domains the task's affinity allows */
	u32 flags;    /* BALANCE_ACT_* */
	u32 pad;
	struct balance_ravg dcyc; /* runnable duty cycle */
};

/* Per-domain state of the BPF side (global data, also visible to the loader). */
struct balance_dom_ctx {
	u64 vtime_now; /* the latest vtime that started running in the domain */
	u64 pad[7];    /* one cache line per domain */
};

/*
 * The stats, one line each, in the order clients see them (the columns are
 * explained in scxkit/stats_ids.h). The loader sets the VALs from its last
 * balancing round and tuner interval.
 */
#define BALANCE_STATS(S)                                                                           \
	S(VAL, BALANCE_SLICE_US, "slice_us", U64, "", "current slice (the tuner's choice)")        \
	S(VAL, BALANCE_CPU_BUSY, "cpu_busy", FLOAT, "%",                                           \
	  "average CPU utilisation over the last tuner interval")                                  \
	S(VAL, BALANCE_LOAD, "load", FLOAT, "nice-0 tasks",                                        \
	  "total load at the last balancing round")                                                \
	S(VAL, BALANCE_IMBAL_PCT, "imbal_pct", FLOAT, "%",                                         \
	  "largest domain imbalance |load - fair share| / fair share, "                            \
	  "before the last round's moves")                                                         \
	S(VAL, BALANCE_IMBAL_AFTER_PCT, "imbal_after_pct", FLOAT, "%",                             \
	  "the same, expected after those moves")                                                  \
	S(VAL, BALANCE_NODE_IMBAL_PCT, "node_imbal_pct", FLOAT, "%",                               \
	  "largest NUMA node imbalance before the moves")                                          \
	S(VAL, BALANCE_LB_MOVES, "lb_moves", U64, "", "moves chosen by the last balancing round")  \
	S(VAL, BALANCE_LB_ROUNDS, "lb_rounds", U64, "", "balancing rounds since attach")           \
	S(VAL, BALANCE_LB_US, "lb_us", FLOAT, "us", "time the last balancing round took")          \
	S(CNT, BALANCE_STAT_MIGRATE, "nr_migrations", U64, "",                                     \
	  "balancer moves tasks took since the previous read")                                     \
	S(VAL, BALANCE_TOTAL, "total", U64, "", "task placements since the previous read")         \
	/* placements: the counters that add up to "total" */                                      \
	BALANCE_SHARE(S, SYNC_PREV_IDLE, "sync_prev_idle",                                         \
		      "sync wakeups onto their idle previous CPU")                                 \
	BALANCE_SHARE(S, WAKE_SYNC, "wake_sync", "sync wakeups onto the waker's CPU")              \
	BALANCE_SHARE(S, PREV_IDLE, "prev_idle", "wakeups onto their idle previous CPU")           \
	BALANCE_SHARE(S, DOM_IDLE, "dom_idle", "wakeups onto an idle CPU of their domain")         \
	BALANCE_SHARE(S, DIRECT_GREEDY, "direct_greedy",                                           \
		      "wakeups pushed to an under-used domain of the node")                        \
	BALANCE_SHARE(S, DIRECT_GREEDY_FAR, "direct_greedy_far",                                   \
		      "wakeups pushed to an under-used domain of another node")                    \
	BALANCE_SHARE(S, PINNED, "pinned", "single-CPU tasks queued on their CPU")                 \
	BALANCE_SHARE(S, KTHREAD, "kthread", "per-CPU kthreads sent to their local queue")         \
	BALANCE_SHARE(S, DSQ, "dsq", "tasks queued on their domain's queue")                       \
	BALANCE_SHARE(S, PREEMPT, "preempt",                                                       \
		      "short-running wakeups that preempted a hog (scxkit/preempt.bpf.h)")         \
	/* dispatch paths, also as shares of the placements */                                     \
	BALANCE_SHARE(S, DISPATCH_LOCAL, "dispatch_local", "dispatches from the CPU's own domain") \
	BALANCE_SHARE(S, GREEDY_LOCAL, "greedy_local",                                             \
		      "dispatches stolen from another domain of the node")                         \
	BALANCE_SHARE(S, GREEDY_XNUMA, "greedy_xnuma", "dispatches stolen across NUMA nodes")      \
	BALANCE_SHARE(S, KICK_GREEDY, "kick_greedy",                                               \
		      "idle CPUs of under-used domains kicked to steal")                           \
	BALANCE_SHARE(S, REPATRIATE, "repatriate", "tasks found off their domain and sent back")   \
	BALANCE_SHARE(S, DL_CLAMP, "dl_clamp", "enqueues whose sleep credit was clamped")          \
	S(CNT, BALANCE_STAT_REHOME, "rehome", U64, "",                                             \
	  "tasks given a new domain: an affinity change, or their domain's CPUs all offline")      \
	S(CNT, BALANCE_STAT_HOTPLUG, "hotplug", U64, "",                                           \
	  "CPUs gone offline or online, handled in place (no restart)")                            \
	S(RAW, BALANCE_STAT_KEEP, "keep", U64, "", "slices refilled: nothing else waited")         \
	S(VAL, BALANCE_DIRECT_GREEDY_CPUS, "direct_greedy_cpus", STRING, "",                       \
	  "CPUs that take direct greedy pushes")                                                   \
	S(VAL, BALANCE_KICK_GREEDY_CPUS, "kick_greedy_cpus", STRING, "", "CPUs kicked to steal")   \
	S(VAL, BALANCE_DOMS, "doms", STRING, "",                                                   \
	  "the domains' CPUs, ';'-separated, with their node")                                     \
	S(VAL, BALANCE_DOM_CPUS, "dom_cpus", STRING, "",                                           \
	  "online CPUs per domain at the last round, ','-separated (what load is shared by)")      \
	S(VAL, BALANCE_DOM_LOAD, "dom_load", STRING, "",                                           \
	  "load per domain at the last round, ','-separated")                                      \
	S(VAL, BALANCE_DOM_IMBAL, "dom_imbal", STRING, "%, signed",                                \
	  "imbalance per domain at the last round")                                                \
	S(VAL, BALANCE_DOM_UTIL, "dom_util", STRING, "%",                                          \
	  "utilisation per domain, last tuner interval")                                           \
	S(VAL, BALANCE_NODE_LOAD, "node_load", STRING, "", "load per NUMA node at the last round") \
	S(VAL, BALANCE_NODE_IMBAL, "node_imbal", STRING, "%, signed",                              \
	  "imbalance per NUMA node at the last round")                                             \
	S(VAL, BALANCE_DOMAINS, "domains", DICT, "u64:DomainStats",                                \
	  "per domain, by id (the DomainStats struct of stats_meta)")

/*
 * A counter served as its share of the placements: the counter
 * BALANCE_STAT_<ID> (not served itself) and the value BALANCE_PCT_<ID>.
 */
#define BALANCE_SHARE(S, ID, name, help)                                                           \
	S(RAW, BALANCE_STAT_##ID, name "_cnt", U64, "", help)                                      \
	S(VAL, BALANCE_PCT_##ID, name, FLOAT, "% of total", help)

enum balance_stat { BALANCE_STATS(SCXK_STAT_COUNTER) BALANCE_NR_STATS };
enum balance_value { BALANCE_STATS(SCXK_STAT_VALUE) BALANCE_NR_VALUES };

/* Placements: the counters that add up to "total" in stats. */
#define BALANCE_FIRST_PLACEMENT BALANCE_STAT_SYNC_PREV_IDLE
#define BALANCE_LAST_PLACEMENT	BALANCE_STAT_PREEMPT
/* Counter BALANCE_STAT_SYNC_PREV_IDLE + k is served as value BALANCE_PCT_SYNC_PREV_IDLE + k. */
#define BALANCE_NR_SHARES (BALANCE_PCT_DL_CLAMP - BALANCE_PCT_SYNC_PREV_IDLE + 1)
_Static_assert(BALANCE_STAT_DL_CLAMP - BALANCE_STAT_SYNC_PREV_IDLE == BALANCE_NR_SHARES - 1,
	       "BALANCE_SHARE lines are consecutive");

#endif /* __BALANCE_INTF_H */
