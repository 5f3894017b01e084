/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intf.h - what scx_strata's BPF side and its loader agree on: the layer
 * table the loader writes into .rodata, the CPU ownership it pushes into
 * .bss every interval, DSQ ids, and the counters the BPF side keeps.
 */
#ifndef __STRATA_INTF_H
#define __STRATA_INTF_H

#include <scxkit/dsq.h>
#include <scxkit/stats_ids.h>
#include <scxkit/topo_data.h>
#include <scxkit/types.h>

/* Upstream scx_layered's limit (MAX_LAYERS); a power of two so BPF can mask. */
#define STRATA_MAX_LAYERS	 16
#define STRATA_MAX_ORS		 8  /* OR groups per layer */
#define STRATA_MAX_ANDS		 8  /* matchers per AND block */
#define STRATA_COMM_LEN		 16 /* TASK_COMM_LEN */
#define STRATA_MAX_CGRP_MATCHERS 64 /* one bit each in the cgroup map */
#define STRATA_MAX_CGROUPS	 16384

/* Owner of a CPU that no Confined/Grouped layer holds: Open layers run there. */
#define STRATA_OWNER_OPEN 0xff

/* DSQ ids: one per (layer, LLC), then one fallback per LLC. */
#define STRATA_DSQ_LAYER(layer, llc) ((u64)(layer)*SCXK_MAX_LLCS + (llc))
#define STRATA_DSQ_FB(llc)	     ((u64)STRATA_MAX_LAYERS * SCXK_MAX_LLCS + (llc))

enum strata_kind {
	STRATA_CONFINED,
	STRATA_GROUPED,
	STRATA_OPEN,
};

enum strata_placement {
	STRATA_PLACE_STANDARD,
	STRATA_PLACE_STICKY,   /* always stay on prev_cpu in select_cpu */
	STRATA_PLACE_FLOATING, /* no preference for prev_cpu's LLC */
};

enum strata_match_kind {
	STRATA_M_CGROUP, /* cgroup path matcher: bit cg_bit of the cgroup's map entry */
	STRATA_M_COMM_PREFIX,
	STRATA_M_COMM_PREFIX_EXCL,
	STRATA_M_PCOMM_PREFIX, /* thread-group leader's comm */
	STRATA_M_PCOMM_PREFIX_EXCL,
	STRATA_M_NICE_ABOVE,
	STRATA_M_NICE_BELOW,
	STRATA_M_NICE_EQUALS,
	STRATA_M_UID,
	STRATA_M_GID,
	STRATA_M_PID,
	STRATA_M_PPID,
	STRATA_M_TGID,
	STRATA_M_GROUP_LEADER, /* val: 1 = must be leader, 0 = must not */
	STRATA_M_KTHREAD,      /* val: 1 = must be a kthread, 0 = must not */
	STRATA_M_NUMA_NODE,    /* val: the task's affinity lies within this node */
	STRATA_M_AVG_RUNTIME,  /* val <= average run time per schedule (us) < val2 */
	STRATA_M_CMD_JOIN,     /* str is a prefix of the layer the task joined (see below) */
	STRATA_M_NS,	       /* val: inode number of the task's pid namespace */
	STRATA_M_NSPID,	       /* val: pid in its own namespace, val2: that namespace's inode */
	STRATA_M_HINT,	       /* val: the task's hint in the task-hint map */
	STRATA_NR_MATCH_KINDS,
};

/*
 * CmdJoin (scx_layered's wire format, so its clients work unchanged): a
 * thread joins a layer by renaming itself (prctl(PR_SET_NAME),
 * pthread_setname_np()) to a 16-byte command: a little-endian u16
 * STRATA_CMD_PREFIX, an opcode, then up to STRATA_CMD_LEN bytes of layer
 * name. The join lasts until a LEAVE command, whatever names follow.
 */
#define STRATA_CMD_PREFIX 0x5C10
#define STRATA_CMD_LEN	  13
enum strata_cmd_op {
	STRATA_CMD_NONE,
	STRATA_CMD_JOIN,
	STRATA_CMD_LEAVE,
};

/*
 * HintEquals: scx_layered's task-hint map, a task-storage map that user
 * space fills through its pinned path (--task-hint-map, opened with
 * BPF_OBJ_GET, keyed by a pidfd). The value layout is upstream's, so its
 * clients work unchanged; hints above STRATA_HINT_MAX count as none.
 */
struct strata_task_hint {
	u64 hint;
	u64 reserved[3];
};
#define STRATA_HINT_MAX	 1024
#define STRATA_HINT_NONE ((u64)-1)

/*
 * Matchers are flattened by the loader into one list, layer by layer and
 * AND block by AND block, so the BPF side evaluates them in one bounded
 * loop. An empty AND block (a catch-all) is one STRATA_M_ALWAYS entry.
 */
#define STRATA_M_ALWAYS STRATA_NR_MATCH_KINDS
#define STRATA_MAX_FLAT (STRATA_MAX_LAYERS * STRATA_MAX_ORS * STRATA_MAX_ANDS)

struct strata_match {
	u8 kind; /* enum strata_match_kind or STRATA_M_ALWAYS */
	u8 layer;
	u8 end_block; /* last matcher of its AND block */
	u8 cg_bit;
	s32 val;
	s32 val2;		   /* STRATA_M_AVG_RUNTIME's upper bound */
	char str[STRATA_COMM_LEN]; /* comm prefix, NUL-terminated */
};

struct strata_layer_bpf {
	u64 slice_ns;
	u64 min_exec_ns;
	u32 kind;	      /* enum strata_kind */
	u32 weight;	      /* 1..10000 */
	u32 yield_ignore_pct; /* share of the slice a yield does not forfeit */
	u32 perf;	      /* cpuperf target 1..1024, 0 = leave alone */
	u32 placement;	      /* enum strata_placement */
	u8 fifo;
	u8 preempt;
	u8 preempt_first;
	u8 exclusive;
	u8 protect;	  /* "protected": owned CPUs serve no other layer */
	u8 idle_confined; /* Grouped: spill only once the machine is fully allocated */
	u8 pad[2];
};

/*
 * Counters per layer, kept per CPU in BPF and summed by the loader, which
 * serves them by name in each layer's object of the "layers" stat (all but
 * runtime_ns, which feeds the layer's util). L(id, name, help).
 */
#define STRATA_LSTATS(L)                                                                           \
	L(STRATA_LS_SEL_LOCAL, "sel_local", "placed on an idle CPU in select_cpu")                 \
	L(STRATA_LS_ENQ_LOCAL, "enq_local", "placed on an idle CPU in enqueue")                    \
	L(STRATA_LS_ENQ_DSQ, "enq_dsq", "queued on a layer DSQ")                                   \
	L(STRATA_LS_SPILL, "spill", "Grouped/Open task placed outside its own CPUs")               \
	L(STRATA_LS_PREEMPT, "preempt", "preempted a non-preempting layer's task")                 \
	L(STRATA_LS_PREEMPT_FAIL, "preempt_fail", "wanted to preempt, found no victim")            \
	L(STRATA_LS_MIGRATION, "migration", "started on a different CPU than last time")           \
	L(STRATA_LS_KEEP, "keep", "kept running past its slice, nothing waited")                   \
	L(STRATA_LS_YIELD, "yield", "yielded")                                                     \
	L(STRATA_LS_EXCL_IDLE, "excl_idle", "a CPU stayed idle for an exclusive sibling")          \
	L(STRATA_LS_RUNTIME_NS, "runtime_ns", "time run on a CPU")

#define STRATA_LSTAT_ID(id, name, help) id,
enum strata_lstat { STRATA_LSTATS(STRATA_LSTAT_ID) STRATA_NR_LSTATS };

/* Run-queue latency histogram: bucket b counts waits in [2^(b-1), 2^b) us. */
#define STRATA_LAT_BUCKETS 16

struct strata_lstats {
	u64 cnt[STRATA_NR_LSTATS];
	u64 lat[STRATA_LAT_BUCKETS];
};

/*
 * The system stats, one line each, in the order clients see them (the
 * columns are explained in scxkit/stats_ids.h).
 */
#define STRATA_STATS(S)                                                                            \
	S(VAL, STRATA_NR_LAYERS, "nr_layers", U64, "", "layers in the config")                     \
	S(VAL, STRATA_OPEN_CPUS, "open_cpus", U64, "", "CPUs owned by no Confined/Grouped layer")  \
	S(CNT, STRATA_STAT_FB_ENQ, "fb_enq", U64, "",                                              \
	  "tasks queued on a fallback DSQ (custom affinity)")                                      \
	S(CNT, STRATA_STAT_FB_LOCAL, "fb_local", U64, "",                                          \
	  "per-CPU kthreads (pinned tasks beside a higher class) sent straight to their CPU")      \
	S(CNT, STRATA_STAT_FB_BOOST, "fb_boost", U64, "",                                          \
	  "times the fallback DSQ was served first for its share")                                 \
	S(RAW, STRATA_STAT_FB_RUNTIME, "fb_runtime", U64, "ns", "time run by fallback tasks")      \
	S(VAL, STRATA_FB_UTIL, "fb_util", FLOAT, "", "CPUs' worth of time run by fallback tasks")  \
	S(CNT, STRATA_STAT_ANTISTALL, "antistall", U64, "",                                        \
	  "DSQs served out of turn after waiting --antistall-sec")                                 \
	S(CNT, STRATA_STAT_REMATCH, "rematch", U64, "", "tasks re-matched to another layer")       \
	S(TOT, STRATA_STAT_HOTPLUG, "hotplug", U64, "",                                            \
	  "CPUs gone offline or online since attach, handled without a restart")                   \
	S(VAL, STRATA_HELD_CPUS, "held_cpus", U64, "",                                             \
	  "online CPUs left out of the layers' sizing: a higher class held them")                  \
	S(CNT, STRATA_STAT_HELD_ANY, "held_any", U64, "",                                          \
	  "tasks a CPU beside a higher class took from any layer's queue")                         \
	S(VAL, STRATA_CGROUPS, "cgroups", U64, "",                                                 \
	  "cgroups seen by the last scan (0 without cgroup matchers)")                             \
	S(VAL, STRATA_LAYERS, "layers", DICT, "string:LayerStats",                                 \
	  "per layer, by name (the LayerStats struct of stats_meta)")

enum strata_stat { STRATA_STATS(SCXK_STAT_COUNTER) STRATA_NR_STATS };
enum strata_value { STRATA_STATS(SCXK_STAT_VALUE) STRATA_NR_VALUES };

#endif /* __STRATA_INTF_H */
