/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_relay's BPF side and its loader agree on. */
#ifndef __RELAY_INTF_H
#define __RELAY_INTF_H

#include <scxkit/dsq.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define RELAY_DSQ_SHARED 0

/* Counters (scxk_stat_inc) */
enum relay_stat {
	RELAY_STAT_LOCAL,   /* woke onto an idle CPU, skipped the shared queue */
	RELAY_STAT_GLOBAL,  /* went through the shared queue */
	RELAY_STAT_KICKS,   /* idle CPUs woken to take queued work */
	RELAY_NR_STATS,
};

#endif /* __RELAY_INTF_H */
