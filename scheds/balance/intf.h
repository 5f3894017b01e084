/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intf.h - what scx_balance's BPF side and its loader agree on: domain
 * limits, the ring of recently active tasks the balancer reads, and the
 * counters.
 */
#ifndef __BALANCE_INTF_H
#define __BALANCE_INTF_H

#include <scxkit/dsq.h>
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
#define BALANCE_ACT_PINNED (1U << 1)  /* cannot leave its CPU */

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

enum balance_stat {
	BALANCE_STAT_SYNC_PREV_IDLE, /* sync wakeup, previous CPU idle in the waker's domain */
	BALANCE_STAT_WAKE_SYNC,	     /* sync wakeup onto the waker's CPU */
	BALANCE_STAT_PREV_IDLE,	     /* previous CPU idle */
	BALANCE_STAT_DOM_IDLE,	     /* an idle CPU of the task's domain */
	BALANCE_STAT_DIRECT_GREEDY,  /* pushed to an idle CPU of an under-used domain */
	BALANCE_STAT_DIRECT_GREEDY_FAR, /* the same, on another NUMA node */
	BALANCE_STAT_PINNED,	     /* single-CPU task on its CPU's queue */
	BALANCE_STAT_KTHREAD,	     /* per-CPU kthread sent to its local queue (-k) */
	BALANCE_STAT_DSQ,	     /* queued on its domain's queue */
	BALANCE_STAT_DISPATCH_LOCAL, /* a CPU served its own domain or CPU queue */
	BALANCE_STAT_GREEDY_LOCAL,   /* stolen from another domain of the same node */
	BALANCE_STAT_GREEDY_XNUMA,   /* stolen from a domain on another node */
	BALANCE_STAT_KICK_GREEDY,    /* idle CPU of an under-used domain kicked to steal */
	BALANCE_STAT_REPATRIATE,     /* task found off its domain, sent back */
	BALANCE_STAT_DL_CLAMP,	     /* sleep credit clamped to one slice */
	BALANCE_STAT_MIGRATE,	     /* load-balancer move applied */
	BALANCE_STAT_REHOME,	     /* affinity change forced a new domain */
	BALANCE_STAT_KEEP,	     /* slice refilled: nothing else waited */
	BALANCE_NR_STATS,
};

/* Placements: the counters that add up to "total" in stats. */
#define BALANCE_FIRST_PLACEMENT BALANCE_STAT_SYNC_PREV_IDLE
#define BALANCE_LAST_PLACEMENT BALANCE_STAT_DSQ

#endif /* __BALANCE_INTF_H */
