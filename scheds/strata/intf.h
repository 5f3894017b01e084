/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_strata's BPF side and its loader agree on. */
#ifndef __STRATA_INTF_H
#define __STRATA_INTF_H

#include <scxkit/dsq.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define STRATA_DSQ_SHARED 0

/* Counters (scxk_stat_inc) */
enum strata_stat {
	STRATA_STAT_LOCAL,   /* woke onto an idle CPU, skipped the shared queue */
	STRATA_STAT_GLOBAL,  /* went through the shared queue */
	STRATA_STAT_KICKS,   /* idle CPUs woken to take queued work */
	STRATA_NR_STATS,
};

#endif /* __STRATA_INTF_H */
