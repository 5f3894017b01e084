/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_balance's BPF side and its loader agree on. */
#ifndef __BALANCE_INTF_H
#define __BALANCE_INTF_H

#include <scxkit/dsq.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define BALANCE_DSQ_SHARED 0

/* Counters (scxk_stat_inc) */
enum balance_stat {
	BALANCE_STAT_LOCAL,   /* woke onto an idle CPU, skipped the shared queue */
	BALANCE_STAT_GLOBAL,  /* went through the shared queue */
	BALANCE_STAT_KICKS,   /* idle CPUs woken to take queued work */
	BALANCE_NR_STATS,
};

#endif /* __BALANCE_INTF_H */
