/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.bpf.h - per-CPU event counters (common/stats/stats.bpf.c). A per-CPU
 * array keeps increments free of atomics and cache-line bouncing; user
 * space sums the CPUs when it reads.
 */
#ifndef __SCXKIT_STATS_BPF_H
#define __SCXKIT_STATS_BPF_H

#include <scxkit/stats_ids.h>

/** scxk_stat_add - add @val to counter @idx (a scheduler's enum) on this CPU */
void scxk_stat_add(u32 idx, u64 val);

#define scxk_stat_inc(idx) scxk_stat_add(idx, 1)

#endif /* __SCXKIT_STATS_BPF_H */
