/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - scx_strata's layer configuration: parsing and validation of
 * the JSON layer specs (the scx_layered schema), with no kernel, BPF or
 * file-system side effects besides reading "f:" files. Every error names
 * the spec, the JSON path and the reason.
 */
#ifndef __STRATA_CONFIG_H
#define __STRATA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <regex.h>

#include "intf.h"

#define STRATA_NAME_LEN	    64
#define STRATA_CGRP_STR_LEN 256
#define STRATA_ERR_LEN	    512
#define STRATA_MAX_LIST	    16 /* entries of "nodes" / "llcs" */

enum strata_growth {
	STRATA_GROW_STICKY,
	STRATA_GROW_LINEAR,
	STRATA_GROW_REVERSE,
	STRATA_GROW_TOPO,
	STRATA_GROW_ROUND_ROBIN,
	STRATA_GROW_BIG_LITTLE,
	STRATA_GROW_LITTLE_BIG,
	STRATA_GROW_RANDOM,
	STRATA_GROW_RANDOM_TOPO,
	STRATA_GROW_NODE_SPREAD,
	STRATA_GROW_NODE_SPREAD_REVERSE,
	STRATA_GROW_NODE_SPREAD_RANDOM,
	STRATA_GROW_CPUSET_SPREAD,
	STRATA_GROW_CPUSET_SPREAD_REVERSE,
	STRATA_GROW_CPUSET_SPREAD_RANDOM,
	STRATA_GROW_STICKY_DYNAMIC,
	STRATA_NR_GROWTH,
};

enum strata_cg_match {
	STRATA_CG_PREFIX,
	STRATA_CG_SUFFIX,
	STRATA_CG_CONTAINS,
	STRATA_CG_REGEX, /* POSIX extended regex on the absolute path, see strata_cgroup_path() */
};

struct strata_match_cfg {
	enum strata_match_kind kind;
	enum strata_cg_match cg; /* for STRATA_M_CGROUP */
	int64_t val, val2;	 /* val2: AvgRuntime's upper bound */
	char str[STRATA_CGRP_STR_LEN];
};

struct strata_layer_cfg {
	char name[STRATA_NAME_LEN];
	enum strata_kind kind;
	unsigned int nr_ors;
	unsigned int nr_ands[STRATA_MAX_ORS];
	struct strata_match_cfg m[STRATA_MAX_ORS][STRATA_MAX_ANDS];
	/* kind fields (Confined/Grouped) */
	double util_lo, util_hi;
	bool has_cpus_range, has_cpus_frac;
	unsigned int cpus_min, cpus_max; /* cpus_max 0 = no limit */
	double frac_lo, frac_hi;
	bool protect, idle_confined;
	/* common fields */
	uint64_t min_exec_us;
	double yield_ignore;
	uint64_t slice_us; /* 0 = --slice-us */
	bool fifo, preempt, preempt_first, exclusive;
	unsigned int weight;
	enum strata_growth growth;
	unsigned int perf;
	unsigned int nr_nodes, nodes[STRATA_MAX_LIST];
	unsigned int nr_llcs, llcs[STRATA_MAX_LIST];
	enum strata_placement placement;
	char comment[256];
};

#define STRATA_MAX_WARNINGS 32

struct strata_config {
	/* Set before parsing: what would be a warning is an error (--strict). */
	bool strict;
	unsigned int nr_layers;
	struct strata_layer_cfg layers[STRATA_MAX_LAYERS];
	unsigned int nr_specs;
	unsigned int nr_warnings;
	/* Fields accepted but ignored, one per field name (the first place it is set). */
	char warnings[STRATA_MAX_WARNINGS][STRATA_ERR_LEN];
	char warned[STRATA_MAX_WARNINGS][64];
};

/* The default layer weight (scx_layered's DEFAULT_LAYER_WEIGHT). */
#define STRATA_DFL_WEIGHT 100
#define STRATA_MAX_WEIGHT 10000

/**
 * strata_config_add_spec - parse one positional spec and append its layers
 * @cfg: zero-initialised before the first call
 * @spec: inline JSON, or "f:PATH" / "file:PATH"
 * @err: receives "SOURCE: $PATH: reason" on failure
 * Return: 0 or -EINVAL (-ENOENT etc. when a file cannot be read).
 */
int strata_config_add_spec(struct strata_config *cfg, const char *spec, char *err, size_t errlen);

/**
 * strata_config_add_json - strata_config_add_spec() for JSON text from @source
 * @source: names the input in error messages ("inline spec 1", a path)
 */
int strata_config_add_json(struct strata_config *cfg, const char *text, const char *source,
			   char *err, size_t errlen);

/**
 * strata_config_finish - checks across all specs: at least one layer, the
 * last layer is a catch-all and the only one, cgroup matcher count
 * Return: 0 or -EINVAL with @err set.
 */
int strata_config_finish(struct strata_config *cfg, char *err, size_t errlen);

/** strata_config_to_json - the expanded config, every default filled in */
json_t *strata_config_to_json(const struct strata_config *cfg);

/** strata_layer_matches_all - the layer has an empty AND block (catch-all) */
bool strata_layer_matches_all(const struct strata_layer_cfg *l);

/**
 * strata_cgroup_match - does cgroup @path satisfy @m?
 * @path: relative to the cgroup2 root with a trailing slash ("a/b/", "" for the root)
 *
 * A CgroupRegex pattern is compiled at each call; a caller that matches
 * many paths compiles it once and uses strata_cgroup_match_re().
 */
bool strata_cgroup_match(const struct strata_match_cfg *m, const char *path);

/**
 * strata_cgroup_match_re - strata_cgroup_match() with CgroupRegex's @re compiled
 * @re: regcomp(m->str, STRATA_CG_REGEX_FLAGS) when m->cg is STRATA_CG_REGEX, else unused
 */
bool strata_cgroup_match_re(const struct strata_match_cfg *m, const regex_t *re, const char *path);

#define STRATA_CG_REGEX_FLAGS (REG_EXTENDED | REG_NOSUB)

extern const char *const strata_growth_names[STRATA_NR_GROWTH];
extern const char *const strata_kind_names[3];

/* The documented example config of -e/--run-example. */
extern const char strata_example_config[];

#endif /* __STRATA_CONFIG_H */
