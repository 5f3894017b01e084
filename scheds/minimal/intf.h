/* SPDX-License-Identifier: GPL-2.0-only */
/* intf.h - what scx_minimal's BPF side and its loader agree on. */
#ifndef __MINIMAL_INTF_H
#define __MINIMAL_INTF_H

#include <scxkit/dsq.h>

/* The one queue every CPU serves when no idle CPU took the task directly. */
#define MINIMAL_DSQ_SHARED 0

/* Counters (scxk_stat_inc) */
enum minimal_stat {
	MINIMAL_STAT_LOCAL,   /* woke onto an idle CPU, skipped the shared queue */
	MINIMAL_STAT_GLOBAL,  /* went through the shared queue */
	MINIMAL_STAT_KICKS,   /* idle CPUs woken to take queued work */
	MINIMAL_STAT_HOTPLUG, /* CPUs that went offline or online while attached */
	MINIMAL_NR_STATS,
};

#endif /* __MINIMAL_INTF_H */
