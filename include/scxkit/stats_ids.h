/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_ids.h - per-CPU event counters kept by the BPF side (common/bpf/
 * stats.bpf.c) and summed over CPUs by user space (scxk_counters_read).
 * Each scheduler numbers its counters in its intf.h, from 0 up to
 * SCXK_MAX_COUNTERS - 1.
 */
#ifndef __SCXKIT_STATS_IDS_H
#define __SCXKIT_STATS_IDS_H

#define SCXK_MAX_COUNTERS 64

#endif /* __SCXKIT_STATS_IDS_H */
