/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats_ids.h - how a scheduler declares its stats, once, for both sides.
 *
 * Every stat is one line of an X-macro list in the scheduler's intf.h:
 *
 *	#define MINIMAL_STATS(S)                                                 \
 *		S(CNT, MINIMAL_STAT_KICKS, "kicks", U64, "", "idle CPUs woken")   \
 *		S(VAL, MINIMAL_LOCAL_PCT, "local_pct", FLOAT, "%", "placed idle")
 *
 *	enum minimal_stat { MINIMAL_STATS(SCXK_STAT_COUNTER) MINIMAL_NR_STATS };
 *	enum minimal_value { MINIMAL_STATS(SCXK_STAT_VALUE) MINIMAL_NR_VALUES };
 *
 * The BPF side counts with scxk_stat_inc(MINIMAL_STAT_KICKS); the loader
 * expands the same list into its table (SCXK_STAT_DESC in stats.h), from
 * which libscxkit serves stats and stats_meta. S(kind, id, name, type,
 * unit, help):
 *   kind  CNT: a BPF counter; clients get its delta since their previous read
 *         TOT: a BPF counter served as its total since attach
 *         RAW: a BPF counter not served itself; collect() derives others from it
 *         VAL: a value the loader's collect() sets (scxk_stats_set_*())
 *   id    the enumerator: counters number the per-CPU array (at most
 *         SCXK_MAX_COUNTERS), values have their own enum
 *   name  the JSON key clients read, snake_case; never rename one
 *   type  U64, I64, FLOAT or STRING: the "datum" in stats_meta
 *   unit  "" or the unit, shown after the help text as "help (unit)"
 *   help  one line for --help-stats and stats_meta
 * The counters are kept by common/stats/stats.bpf.c and summed over CPUs by
 * user space (scxk_counters_read).
 */
#ifndef __SCXKIT_STATS_IDS_H
#define __SCXKIT_STATS_IDS_H

#define SCXK_MAX_COUNTERS 64

/* Expand a list to the enumerators of its counters (CNT, TOT, RAW), in order. */
#define SCXK_STAT_COUNTER(kind, id, ...) __SCXK_STAT_COUNTER_##kind(id)
#define __SCXK_STAT_COUNTER_CNT(id)	 id,
#define __SCXK_STAT_COUNTER_TOT(id)	 id,
#define __SCXK_STAT_COUNTER_RAW(id)	 id,
#define __SCXK_STAT_COUNTER_VAL(id)

/* Expand a list to the enumerators of its values (VAL), in order. */
#define SCXK_STAT_VALUE(kind, id, ...) __SCXK_STAT_VALUE_##kind(id)
#define __SCXK_STAT_VALUE_CNT(id)
#define __SCXK_STAT_VALUE_TOT(id)
#define __SCXK_STAT_VALUE_RAW(id)
#define __SCXK_STAT_VALUE_VAL(id) id,

#endif /* __SCXKIT_STATS_IDS_H */
