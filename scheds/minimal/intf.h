/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_minimal's BPF side and its loader agree on. */
#ifndef __MINIMAL_INTF_H
#define __MINIMAL_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/stats_ids.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define MINIMAL_DSQ_SHARED 0

/*
 * The stats, one line each, in the order clients see them (the columns are
 * explained in scxkit/stats_ids.h). A new counter is one CNT line here and
 * a scxk_stat_inc() in minimal.bpf.c; the loader serves it unchanged.
 */
#define MINIMAL_STATS(S)                                                                           \
	S(CNT, MINIMAL_STAT_LOCAL, "local", U64, "", "tasks placed directly on an idle CPU")       \
	S(CNT, MINIMAL_STAT_GLOBAL, "global", U64, "", "tasks that went through the shared queue") \
	S(CNT, MINIMAL_STAT_KICKS, "kicks", U64, "", "idle CPUs woken to take queued work")        \
	S(CNT, MINIMAL_STAT_KEPT, "kept", U64, "",                                                 \
	  "expired slices renewed because the task was still first in vtime order")                \
	S(CNT, MINIMAL_STAT_HOTPLUG, "hotplug", U64, "",                                           \
	  "CPUs gone offline or online, handled without a restart")                                \
	S(VAL, MINIMAL_LOCAL_PCT, "local_pct", FLOAT, "%",                                         \
	  "share of placements that found an idle CPU")                                            \
	S(VAL, MINIMAL_FIFO, "fifo", U64, "", "1 in --fifo mode")

enum minimal_stat { MINIMAL_STATS(SCXK_STAT_COUNTER) MINIMAL_NR_STATS };
enum minimal_value { MINIMAL_STATS(SCXK_STAT_VALUE) MINIMAL_NR_VALUES };

#endif /* __MINIMAL_INTF_H */
