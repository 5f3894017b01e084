/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_cadence's BPF side and its loader agree on. */
#ifndef __CADENCE_INTF_H
#define __CADENCE_INTF_H

#include <scxkit/dsq.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define CADENCE_DSQ_SHARED 0

/* Counters (scxk_stat_inc) */
enum cadence_stat {
	CADENCE_STAT_LOCAL,   /* woke onto an idle CPU, skipped the shared queue */
	CADENCE_STAT_GLOBAL,  /* went through the shared queue */
	CADENCE_STAT_KICKS,   /* idle CPUs woken to take queued work */
	CADENCE_NR_STATS,
};

#endif /* __CADENCE_INTF_H */
