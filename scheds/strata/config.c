// SPDX-License-Identifier: GPL-2.0-only
/*
 * The layer config: scx_layered's JSON schema, parsed with jansson and
 * validated field by field, so that an existing layered config either runs
 * unchanged or is refused with the spec, the JSON path and the reason
 * ("f:a.json: $[1].kind.Confined.util_range: inverted range [0.9, 0.5]").
 *
 * Nothing here touches the kernel: main.c runs all of it before the
 * system checks, which is what makes a bad config exit 2 with the machine
 * untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

/* JSON paths in messages are cut at the buffer size on purpose: never an overflow. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

const char *const strata_growth_names[STRATA_NR_GROWTH] = {
	"Sticky",
	"Linear",
	"Reverse",
	"Topo",
	"RoundRobin",
	"BigLittle",
	"LittleBig",
	"Random",
	"RandomTopo",
	"NodeSpread",
	"NodeSpreadReverse",
	"NodeSpreadRandom",
	"CpuSetSpread",
	"CpuSetSpreadReverse",
	"CpuSetSpreadRandom",
	"StickyDynamic",
};
const char *const strata_kind_names[3] = {"Confined", "Grouped", "Open"};
static const char *const placement_names[] = {"Standard", "Sticky", "Floating"};

/*
 * scx_layered fields with no equivalent here, each with its default in
 * scx_layered (what its "-e" output spells out) and what is lost when it is
 * set otherwise. At the default (or null) a field is accepted silently: it
 * asks for nothing. Set otherwise it is accepted with one warning naming
 * what is ignored, an error with --strict.
 */
static const struct {
	const char *name, *dfl, *why;
} inert_fields[] = {
	{"membw_gb", "null",
	 "memory bandwidth is not measured here; the layer is sized by CPU use"},
	{"util_includes_open_cputime", "false",
	 "a layer's utilisation counts its own CPUs' time only"},
	{"member_expire_ms", "0",
	 "tasks are re-matched at once when they change, not after a delay"},
	{"util_peak_half_life_ms", "0",
	 "layers shrink on the current utilisation, no peak is held"},
	{"idle_resume_us", "null", "no per-layer idle resume latency; use scx_brisk -I for that"},
	{"xnuma_threshold", "[0.6, 0.7]", "no cross-NUMA migration thresholds"},
	{"xnuma_threshold_delta", "[0.2, 0.3]", "no cross-NUMA migration thresholds"},
	{"prev_over_idle_core", "false", "an idle whole core is always preferred"},
	{"skip_remote_node", "false", "idle CPUs of remote nodes are searched last, not skipped"},
	/* Deprecated upstream, or tuning hints of mechanisms this scheduler does not have. */
	{"allow_node_aligned", "null", "deprecated in scx_layered"},
	{"idle_smt", "null", "deprecated in scx_layered"},
	{"xllc_mig_min_us", "0", "no cross-LLC migration delay"},
	{"disallow_open_after_us", "null", "no open-CPU cut-off"},
	{"disallow_preempt_after_us", "null", "no preemption cut-off"},
	{NULL, NULL, NULL},
};
/*
 * scx_layered matchers this scheduler cannot apply, with the reason: a
 * config using one is refused (matching a task differently than the
 * config says would put it in the wrong layer without a word).
 */
static const struct {
	const char *name, *why;
} unsupported_matchers[] = {
	{"UsedGpuTid", "GPU use is not tracked here (scx_layered hooks the NVIDIA driver)"},
	{"UsedGpuPid", "GPU use is not tracked here (scx_layered hooks the NVIDIA driver)"},
	{"SystemCpuUtilBelow",
	 "admission of hinted tasks by system utilisation is not implemented; HintEquals "
	 "alone is"},
	{"DsqInsertBelow",
	 "admission of hinted tasks by the layer's DSQ insert ratio is not implemented; "
	 "HintEquals alone is"},
	{NULL, NULL},
};

struct ctx {
	struct strata_config *cfg;
	const char *source;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(struct ctx *c, const char *path,
						      const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(c->err, c->errlen, "%s: %s: ", c->source, path);
	if (n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/*
 * @field at @path is accepted but ignored for @why: a warning, once per
 * field name, or an error with --strict. Return: 0 or -EINVAL.
 */
static int lenient(struct ctx *c, const char *path, const char *field, const char *why)
{
	struct strata_config *cfg = c->cfg;
	unsigned int i;

	if (cfg->strict)
		return fail(c, path, "%s: %s (an error with --strict)", field, why);
	for (i = 0; i < cfg->nr_warnings; i++)
		if (!strcmp(cfg->warned[i], field))
			return 0;
	if (cfg->nr_warnings >= STRATA_MAX_WARNINGS)
		return 0;
	snprintf(cfg->warned[cfg->nr_warnings], sizeof(cfg->warned[0]), "%s", field);
	snprintf(cfg->warnings[cfg->nr_warnings++], STRATA_ERR_LEN, "%s: %s: ignored: %s",
		 c->source, path, why);
	return 0;
}

/* @v is @field's scx_layered default: null, or what inert_fields says. */
static bool is_inert_default(const char *dfl, const json_t *v)
{
	json_t *d;
	bool eq;

	if (json_is_null(v))
		return true;
	if (!(d = json_loads(dfl, JSON_DECODE_ANY, NULL)))
		return false;
	eq = json_equal(d, (json_t *)v) || (json_is_number(d) && json_is_number(v) &&
					    json_number_value(d) == json_number_value(v));
	if (!eq && json_is_array(d) && json_is_array(v) &&
	    json_array_size(d) == json_array_size(v)) {
		eq = true;
		for (size_t i = 0; i < json_array_size(d); i++)
			eq = eq && json_is_number(json_array_get(v, i)) &&
			     fabs(json_number_value(json_array_get(v, i)) -
				  json_number_value(json_array_get(d, i))) < 1e-9;
	}
	json_decref(d);
	return eq;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

static int get_bool(struct ctx *c, const char *path, const json_t *v, bool *out)
{
	if (!json_is_boolean(v))
		return fail(c, path, "expected a boolean, got %s", type_name(v));
	*out = json_is_true(v);
	return 0;
}

static int get_int(struct ctx *c, const char *path, const json_t *v, int64_t lo, int64_t hi,
		   int64_t *out)
{
	if (!json_is_integer(v))
		return fail(c, path, "expected an integer, got %s", type_name(v));
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return fail(c, path, "%lld is out of range [%lld, %lld]", (long long)*out,
			    (long long)lo, (long long)hi);
	return 0;
}

static int get_num(struct ctx *c, const char *path, const json_t *v, double lo, double hi,
		   double *out)
{
	if (!json_is_number(v))
		return fail(c, path, "expected a number, got %s", type_name(v));
	*out = json_number_value(v);
	if (!(*out >= lo && *out <= hi))
		return fail(c, path, "%g is out of range [%g, %g]", *out, lo, hi);
	return 0;
}

static int get_pair(struct ctx *c, const char *path, const json_t *v, double lo, double hi,
		    bool integer, double out[2])
{
	char sub[STRATA_ERR_LEN];
	int64_t iv = 0;
	int err;

	if (!json_is_array(v) || json_array_size(v) != 2)
		return fail(c, path, "expected a [low, high] pair, got %s",
			    json_is_array(v) ? "an array of another length" : type_name(v));
	for (int i = 0; i < 2; i++) {
		snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		if (integer) {
			if ((err = get_int(c, sub, json_array_get(v, i), (int64_t)lo, (int64_t)hi,
					   &iv)))
				return err;
			out[i] = (double)iv;
		} else if ((err = get_num(c, sub, json_array_get(v, i), lo, hi, &out[i]))) {
			return err;
		}
	}
	if (out[0] > out[1])
		return fail(c, path, "inverted range [%g, %g]: low must not exceed high", out[0],
			    out[1]);
	return 0;
}

static int get_list(struct ctx *c, const char *path, const json_t *v, unsigned int limit,
		    unsigned int *nr, unsigned int *out)
{
	char sub[STRATA_ERR_LEN];
	size_t i;
	json_t *e;
	int64_t iv = 0;
	int err;

	if (!json_is_array(v))
		return fail(c, path, "expected an array of ids, got %s", type_name(v));
	if (json_array_size(v) > STRATA_MAX_LIST)
		return fail(c, path, "more than %d entries", STRATA_MAX_LIST);
	*nr = 0;
	json_array_foreach(v, i, e)
	{
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if ((err = get_int(c, sub, e, 0, limit - 1, &iv)))
			return err;
		out[(*nr)++] = (unsigned int)iv;
	}
	return 0;
}

static int get_choice(struct ctx *c, const char *path, const json_t *v, const char *const *names,
		      int nr, int *out)
{
	if (!json_is_string(v))
		return fail(c, path, "expected a string, got %s", type_name(v));
	for (int i = 0; i < nr; i++)
		if (!strcmp(json_string_value(v), names[i])) {
			*out = i;
			return 0;
		}
	return -ENOENT;
}

/* ---- matchers ---- */

struct matcher_desc {
	const char *name;
	enum strata_match_kind kind;
	enum strata_cg_match cg;
	/*
	 * 's' cgroup string, 'c' comm prefix, 'j' join name, 'x' regex, 'i' integer,
	 * 'b' boolean, 'n' nice, 'N' node, 'r' [min, max) us, 'p' [nsid, pid], 'h' hint
	 */
	char type;
};

static const struct matcher_desc matchers[] = {
	{"CgroupPrefix", STRATA_M_CGROUP, STRATA_CG_PREFIX, 's'},
	{"CgroupSuffix", STRATA_M_CGROUP, STRATA_CG_SUFFIX, 's'},
	{"CgroupContains", STRATA_M_CGROUP, STRATA_CG_CONTAINS, 's'},
	{"CgroupRegex", STRATA_M_CGROUP, STRATA_CG_REGEX, 'x'},
	{"CommPrefix", STRATA_M_COMM_PREFIX, 0, 'c'},
	{"CommPrefixExclude", STRATA_M_COMM_PREFIX_EXCL, 0, 'c'},
	{"PcommPrefix", STRATA_M_PCOMM_PREFIX, 0, 'c'},
	{"PcommPrefixExclude", STRATA_M_PCOMM_PREFIX_EXCL, 0, 'c'},
	{"NiceAbove", STRATA_M_NICE_ABOVE, 0, 'n'},
	{"NiceBelow", STRATA_M_NICE_BELOW, 0, 'n'},
	{"NiceEquals", STRATA_M_NICE_EQUALS, 0, 'n'},
	{"UIDEquals", STRATA_M_UID, 0, 'i'},
	{"GIDEquals", STRATA_M_GID, 0, 'i'},
	{"PIDEquals", STRATA_M_PID, 0, 'i'},
	{"PPIDEquals", STRATA_M_PPID, 0, 'i'},
	{"TGIDEquals", STRATA_M_TGID, 0, 'i'},
	{"IsGroupLeader", STRATA_M_GROUP_LEADER, 0, 'b'},
	{"IsKthread", STRATA_M_KTHREAD, 0, 'b'},
	{"NumaNode", STRATA_M_NUMA_NODE, 0, 'N'},
	{"AvgRuntime", STRATA_M_AVG_RUNTIME, 0, 'r'},
	{"CmdJoin", STRATA_M_CMD_JOIN, 0, 'j'},
	{"NSEquals", STRATA_M_NS, 0, 'i'},
	{"NSPIDEquals", STRATA_M_NSPID, 0, 'p'},
	{"HintEquals", STRATA_M_HINT, 0, 'h'},
};
#define NR_MATCHERS (sizeof(matchers) / sizeof(matchers[0]))

static int parse_matcher(struct ctx *c, const char *path, const json_t *v,
			 struct strata_match_cfg *m)
{
	const struct matcher_desc *d = NULL;
	const char *key;
	char sub[STRATA_ERR_LEN];
	json_t *val;
	bool b;
	int err;

	if (!json_is_object(v) || json_object_size(v) != 1)
		return fail(c, path,
			    "a matcher is an object with exactly one key, e.g. "
			    "{\"CommPrefix\": \"foo\"}");
	json_object_foreach((json_t *)v, key, val)
	{
		for (size_t i = 0; i < NR_MATCHERS; i++)
			if (!strcmp(matchers[i].name, key))
				d = &matchers[i];
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
	}
	if (!d) {
		/* The object has exactly one key (checked above): that one. */
		key = json_object_iter_key(json_object_iter((json_t *)v));
		for (size_t i = 0; key && unsupported_matchers[i].name; i++)
			if (!strcmp(unsupported_matchers[i].name, key))
				return fail(c, sub, "matcher not supported by scx_strata: %s",
					    unsupported_matchers[i].why);
		return fail(c, sub, "unknown matcher");
	}
	m->kind = d->kind;
	m->cg = d->cg;
	switch (d->type) {
	case 's':
	case 'c':
	case 'j':
	case 'x':
		if (!json_is_string(val))
			return fail(c, sub, "expected a string, got %s", type_name(val));
		if (d->type == 'j' && strlen(json_string_value(val)) > STRATA_CMD_LEN)
			return fail(c, sub,
				    "\"%s\" is longer than %d characters, no join command "
				    "can carry it",
				    json_string_value(val), STRATA_CMD_LEN);
		if (d->type == 'x') {
			regex_t re;
			char why[128];
			int rc = regcomp(&re, json_string_value(val), STRATA_CG_REGEX_FLAGS);

			if (rc) {
				regerror(rc, &re, why, sizeof(why));
				return fail(c, sub, "invalid POSIX extended regex \"%s\": %s",
					    json_string_value(val), why);
			}
			regfree(&re);
		}
		if (d->type == 'c' && strlen(json_string_value(val)) >= STRATA_COMM_LEN)
			return fail(c, sub,
				    "\"%s\" is longer than %d characters, no task name "
				    "can start with it",
				    json_string_value(val), STRATA_COMM_LEN - 1);
		if (strlen(json_string_value(val)) >= STRATA_CGRP_STR_LEN)
			return fail(c, sub, "longer than %d characters", STRATA_CGRP_STR_LEN - 1);
		if ((d->type == 's' || d->type == 'x') && !*json_string_value(val))
			return fail(c, sub,
				    "empty cgroup pattern matches every task; use an "
				    "empty AND block [] for a catch-all");
		snprintf(m->str, sizeof(m->str), "%s", json_string_value(val));
		return 0;
	case 'n':
		return get_int(c, sub, val, -20, 19, &m->val);
	case 'i':
		return get_int(c, sub, val, 0, UINT32_MAX, &m->val);
	case 'p': {
		/* scx_layered's NSPIDEquals(nsid, pid): [namespace inode, pid in it] */
		int64_t ns, pid;

		if (!json_is_array(val) || json_array_size(val) != 2)
			return fail(c, sub, "expected [namespace id, pid], got %s",
				    json_is_array(val) ? "an array of another length"
						       : type_name(val));
		snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "[0]");
		if ((err = get_int(c, sub, json_array_get(val, 0), 0, UINT32_MAX, &ns)))
			return err;
		sub[strlen(sub) - 2] = '1';
		if ((err = get_int(c, sub, json_array_get(val, 1), 0, UINT32_MAX, &pid)))
			return err;
		m->val = pid;
		m->val2 = ns;
		return 0;
	}
	case 'N':
		return get_int(c, sub, val, 0, SCXK_MAX_NODES - 1, &m->val);
	case 'h':
		return get_int(c, sub, val, 0, STRATA_HINT_MAX, &m->val);
	case 'r': {
		double r[2];

		/* [min_us, max_us): the task's average run time per schedule */
		if ((err = get_pair(c, sub, val, 0, INT32_MAX, true, r)))
			return err;
		if (r[0] == r[1])
			return fail(c, sub, "empty range [%g, %g): no task can match", r[0], r[1]);
		m->val = (int64_t)r[0];
		m->val2 = (int64_t)r[1];
		return 0;
	}
	default:
		if ((err = get_bool(c, sub, val, &b)))
			return err;
		m->val = b;
		return 0;
	}
}

static int parse_matches(struct ctx *c, const char *path, const json_t *v,
			 struct strata_layer_cfg *l)
{
	char sub[STRATA_ERR_LEN];
	size_t i, j;
	json_t *blk, *mv;
	int err;

	if (!json_is_array(v))
		return fail(c, path, "expected an array of AND blocks (arrays of matchers), got %s",
			    type_name(v));
	if (json_array_size(v) == 0)
		return fail(c, path,
			    "no AND block: the layer could never match; use [[]] for a "
			    "catch-all");
	if (json_array_size(v) > STRATA_MAX_ORS)
		return fail(c, path, "%zu OR groups, at most %d are supported", json_array_size(v),
			    STRATA_MAX_ORS);
	json_array_foreach(v, i, blk)
	{
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!json_is_array(blk))
			return fail(c, sub, "expected an AND block (array of matchers), got %s",
				    type_name(blk));
		if (json_array_size(blk) > STRATA_MAX_ANDS)
			return fail(c, sub, "%zu matchers, at most %d per AND block",
				    json_array_size(blk), STRATA_MAX_ANDS);
		json_array_foreach(blk, j, mv)
		{
			char msub[STRATA_ERR_LEN + 16];

			snprintf(msub, sizeof(msub), "%s[%zu]", sub, j);
			if ((err = parse_matcher(c, msub, mv, &l->m[i][j])))
				return err;
		}
		l->nr_ands[i] = (unsigned int)json_array_size(blk);
	}
	l->nr_ors = (unsigned int)json_array_size(v);
	return 0;
}

/* ---- kind and its fields ---- */

static int parse_kind_field(struct ctx *c, const char *path, const char *key, const json_t *v,
			    struct strata_layer_cfg *l)
{
	bool policy = l->kind != STRATA_OPEN;
	double pair[2];
	int64_t iv;
	int err, choice;

	if (policy && !strcmp(key, "util_range")) {
		if ((err = get_pair(c, path, v, 0.0, 1.0, false, pair)))
			return err;
		if (pair[0] == pair[1] || pair[1] == 0.0)
			return fail(c, path, "empty range [%g, %g]: sizing needs low < high",
				    pair[0], pair[1]);
		l->util_lo = pair[0];
		l->util_hi = pair[1];
	} else if (policy && !strcmp(key, "cpus_range")) {
		if ((err = get_pair(c, path, v, 0, SCXK_MAX_CPUS, true, pair)))
			return err;
		if (pair[1] == 0)
			return fail(c, path, "empty range [0, 0]: the layer could never run");
		l->has_cpus_range = true;
		l->cpus_min = (unsigned int)pair[0];
		l->cpus_max = (unsigned int)pair[1];
	} else if (policy && !strcmp(key, "cpus_range_frac")) {
		if ((err = get_pair(c, path, v, 0.0, 1.0, false, pair)))
			return err;
		if (pair[1] == 0.0)
			return fail(c, path, "empty range [0, 0]: the layer could never run");
		l->has_cpus_frac = true;
		l->frac_lo = pair[0];
		l->frac_hi = pair[1];
	} else if (policy && !strcmp(key, "protected")) {
		return get_bool(c, path, v, &l->protect);
	} else if (l->kind == STRATA_GROUPED && !strcmp(key, "idle_confined")) {
		return get_bool(c, path, v, &l->idle_confined);
	} else if (!strcmp(key, "min_exec_us")) {
		if ((err = get_int(c, path, v, 0, 1000000, &iv)))
			return err;
		l->min_exec_us = (uint64_t)iv;
	} else if (!strcmp(key, "yield_ignore")) {
		return get_num(c, path, v, 0.0, 1.0, &l->yield_ignore);
	} else if (!strcmp(key, "slice_us")) {
		if ((err = get_int(c, path, v, 0, 1000000, &iv)))
			return err;
		if (iv && iv < 100)
			return fail(c, path, "%lld us is below the 100 us minimum slice",
				    (long long)iv);
		l->slice_us = (uint64_t)iv;
	} else if (!strcmp(key, "fifo")) {
		return get_bool(c, path, v, &l->fifo);
	} else if (!strcmp(key, "preempt")) {
		return get_bool(c, path, v, &l->preempt);
	} else if (!strcmp(key, "preempt_first")) {
		return get_bool(c, path, v, &l->preempt_first);
	} else if (!strcmp(key, "exclusive")) {
		return get_bool(c, path, v, &l->exclusive);
	} else if (!strcmp(key, "weight")) {
		if ((err = get_int(c, path, v, 0, STRATA_MAX_WEIGHT, &iv)))
			return err;
		l->weight = iv ? (unsigned int)iv : STRATA_DFL_WEIGHT;
	} else if (!strcmp(key, "growth_algo")) {
		err = get_choice(c, path, v, strata_growth_names, STRATA_NR_GROWTH, &choice);
		if (err == -ENOENT)
			return fail(c, path, "unknown growth algorithm \"%s\"",
				    json_string_value(v));
		if (err)
			return err;
		l->growth = (enum strata_growth)choice;
	} else if (!strcmp(key, "perf")) {
		if ((err = get_int(c, path, v, 0, 1024, &iv)))
			return err;
		l->perf = (unsigned int)iv;
	} else if (!strcmp(key, "nodes")) {
		return get_list(c, path, v, SCXK_MAX_NODES, &l->nr_nodes, l->nodes);
	} else if (!strcmp(key, "llcs")) {
		return get_list(c, path, v, SCXK_MAX_LLCS, &l->nr_llcs, l->llcs);
	} else if (!strcmp(key, "placement")) {
		err = get_choice(c, path, v, placement_names, 3, &choice);
		if (err == -ENOENT)
			return fail(c, path,
				    "unknown placement \"%s\" (Standard, Sticky, Floating)",
				    json_string_value(v));
		if (err)
			return err;
		l->placement = (enum strata_placement)choice;
	} else {
		for (int i = 0; inert_fields[i].name; i++)
			if (!strcmp(key, inert_fields[i].name))
				return is_inert_default(inert_fields[i].dfl, v)
					       ? 0
					       : lenient(c, path, key, inert_fields[i].why);
		/* scx_layered ignores them too (serde skips a field the kind lacks). */
		if (!strcmp(key, "util_range") || !strcmp(key, "cpus_range") ||
		    !strcmp(key, "cpus_range_frac") || !strcmp(key, "protected") ||
		    !strcmp(key, "idle_confined") || !strcmp(key, "membw_gb") ||
		    !strcmp(key, "util_includes_open_cputime"))
			return lenient(c, path, key, "not a field of this layer kind");
		return lenient(c, path, key, "unknown field");
	}
	return 0;
}

static int parse_kind(struct ctx *c, const char *path, const json_t *v, struct strata_layer_cfg *l)
{
	char sub[STRATA_ERR_LEN], fsub[STRATA_ERR_LEN + 64];
	const char *kname, *key;
	json_t *body, *fv;
	bool has_util = false;
	int err, k;

	if (!json_is_object(v) || json_object_size(v) != 1)
		return fail(c, path, "expected {\"Confined\"|\"Grouped\"|\"Open\": {...}}");
	json_object_foreach((json_t *)v, kname, body)
	{
		snprintf(sub, sizeof(sub), "%s.%s", path, kname);
		for (k = 0; k < 3; k++)
			if (!strcmp(kname, strata_kind_names[k]))
				break;
		if (k == 3)
			return fail(c, sub, "unknown layer kind (Confined, Grouped, Open)");
		l->kind = (enum strata_kind)k;
		if (!json_is_object(body))
			return fail(c, sub, "expected an object of fields, got %s",
				    type_name(body));
		json_object_foreach(body, key, fv)
		{
			/* null is scx_layered's "not set" for its optional fields */
			if (json_is_null(fv))
				continue;
			snprintf(fsub, sizeof(fsub), "%s.%s", sub, key);
			if ((err = parse_kind_field(c, fsub, key, fv, l)))
				return err;
			if (!strcmp(key, "util_range"))
				has_util = true;
		}
	}
	if (l->kind != STRATA_OPEN && !has_util)
		return fail(c, sub, "util_range is required for %s layers",
			    strata_kind_names[l->kind]);
	if (l->has_cpus_range && l->has_cpus_frac)
		return fail(c, sub, "cpus_range and cpus_range_frac conflict: give one of them");
	if (l->preempt_first && !l->preempt)
		return fail(c, sub,
			    "preempt_first conflicts with preempt=false: it only "
			    "orders preemption");
	return 0;
}

static void layer_defaults(struct strata_layer_cfg *l)
{
	memset(l, 0, sizeof(*l));
	l->weight = STRATA_DFL_WEIGHT;
	l->growth = STRATA_GROW_STICKY;
}

static int parse_layer(struct ctx *c, const char *path, const json_t *v, struct strata_layer_cfg *l)
{
	char sub[STRATA_ERR_LEN];
	const char *key;
	json_t *fv;
	int err;

	if (!json_is_object(v))
		return fail(c, path, "expected a layer object, got %s", type_name(v));
	layer_defaults(l);
	json_object_foreach((json_t *)v, key, fv)
	{
		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (!strcmp(key, "name") || !strcmp(key, "comment") || !strcmp(key, "matches") ||
		    !strcmp(key, "kind") || json_is_null(fv))
			continue;
		if (!strcmp(key, "template"))
			err = lenient(c, sub, key,
				      "no layer is made per matching cgroup: the layer runs as "
				      "written, as scx_layered runs it when no cgroup matches");
		else
			err = lenient(c, sub, key,
				      "unknown field (a layer has name, comment, template, "
				      "matches, kind)");
		if (err)
			return err;
	}
	fv = json_object_get(v, "name");
	snprintf(sub, sizeof(sub), "%s.name", path);
	if (!fv)
		return fail(c, path, "missing field \"name\"");
	if (!json_is_string(fv))
		return fail(c, sub, "expected a string, got %s", type_name(fv));
	if (!*json_string_value(fv) || strlen(json_string_value(fv)) >= STRATA_NAME_LEN)
		return fail(c, sub, "a name has 1 to %d characters", STRATA_NAME_LEN - 1);
	/* Any printable text (scx_layered's examples have spaces): names are JSON keys only. */
	for (const unsigned char *s = (const unsigned char *)json_string_value(fv); *s; s++)
		if (*s < ' ' || *s == 0x7f)
			return fail(c, sub, "a name may not contain control characters");
	snprintf(l->name, sizeof(l->name), "%s", json_string_value(fv));
	if ((fv = json_object_get(v, "comment"))) {
		snprintf(sub, sizeof(sub), "%s.comment", path);
		if (!json_is_string(fv) && !json_is_null(fv))
			return fail(c, sub, "expected a string, got %s", type_name(fv));
		if (json_is_string(fv))
			snprintf(l->comment, sizeof(l->comment), "%s", json_string_value(fv));
	}
	if (!(fv = json_object_get(v, "matches")))
		return fail(c, path, "missing field \"matches\"");
	snprintf(sub, sizeof(sub), "%s.matches", path);
	if ((err = parse_matches(c, sub, fv, l)))
		return err;
	if (!(fv = json_object_get(v, "kind")))
		return fail(c, path, "missing field \"kind\"");
	snprintf(sub, sizeof(sub), "%s.kind", path);
	return parse_kind(c, sub, fv, l);
}

/*
 * @quote_text: whether a syntax error may quote the offending token. Not
 * for files: the path may name any file the (root) loader can read, and
 * the error must not show a piece of it to whoever gave that path.
 */
static int add_json(struct strata_config *cfg, const char *text, const char *source,
		    bool quote_text, char *err, size_t errlen)
{
	struct ctx c = {cfg, source, err, errlen};
	json_error_t jerr;
	char path[64];
	json_t *root, *lv;
	size_t i;
	int ret = 0;

	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		/* jansson quotes the token last, as " near '<token>'" */
		char *near = quote_text ? NULL : strstr(jerr.text, " near ");

		if (near)
			*near = '\0';
		snprintf(err, errlen, "%s: invalid JSON at line %d column %d: %s", source,
			 jerr.line, jerr.column, jerr.text);
		return -EINVAL;
	}
	cfg->nr_specs++;
	if (!json_is_array(root)) {
		ret = fail(&c, "$", "expected an array of layers, got %s", type_name(root));
		goto out;
	}
	if (json_array_size(root) == 0) {
		ret = fail(&c, "$", "no layers");
		goto out;
	}
	json_array_foreach(root, i, lv)
	{
		snprintf(path, sizeof(path), "$[%zu]", i);
		if (cfg->nr_layers >= STRATA_MAX_LAYERS) {
			ret = fail(&c, path, "more than %d layers", STRATA_MAX_LAYERS);
			goto out;
		}
		if ((ret = parse_layer(&c, path, lv, &cfg->layers[cfg->nr_layers])))
			goto out;
		for (unsigned int j = 0; j < cfg->nr_layers; j++)
			if (!strcmp(cfg->layers[j].name, cfg->layers[cfg->nr_layers].name)) {
				snprintf(path, sizeof(path), "$[%zu].name", i);
				ret = fail(&c, path, "duplicate layer name \"%s\"",
					   cfg->layers[j].name);
				goto out;
			}
		cfg->nr_layers++;
	}
out:
	json_decref(root);
	return ret;
}

int strata_config_add_json(struct strata_config *cfg, const char *text, const char *source,
			   char *err, size_t errlen)
{
	return add_json(cfg, text, source, true, err, errlen);
}

int strata_config_add_spec(struct strata_config *cfg, const char *spec, char *err, size_t errlen)
{
	const char *path = NULL;
	char source[64];
	struct stat st;
	char *text;
	FILE *f;
	long len;
	int fd, ret;

	if (!strncmp(spec, "f:", 2))
		path = spec + 2;
	else if (!strncmp(spec, "file:", 5))
		path = spec + 5;
	if (!path) {
		snprintf(source, sizeof(source), "inline spec %u", cfg->nr_specs + 1);
		return strata_config_add_json(cfg, spec, source, err, errlen);
	}
	/* Non-blocking: opening a FIFO must not wait for a writer forever. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file of at most 1 MiB", path);
		return -EINVAL;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    len > (1 << 20)) {
		fclose(f);
		snprintf(err, errlen, "%s: not a regular file of at most 1 MiB", path);
		return -EINVAL;
	}
	text = calloc(1, (size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		fclose(f);
		snprintf(err, errlen, "%s: cannot read", path);
		return -EIO;
	}
	fclose(f);
	ret = add_json(cfg, text, path, false, err, errlen);
	free(text);
	return ret;
}

bool strata_layer_matches_all(const struct strata_layer_cfg *l)
{
	for (unsigned int i = 0; i < l->nr_ors; i++)
		if (!l->nr_ands[i])
			return true;
	return false;
}

int strata_config_finish(struct strata_config *cfg, char *err, size_t errlen)
{
	unsigned int nr_cg = 0, i, o, a;
	const struct strata_layer_cfg *l;

	if (!cfg->nr_layers) {
		snprintf(err, errlen,
			 "no layer config: give a spec (inline JSON or f:PATH), or "
			 "--run-example");
		return -EINVAL;
	}
	for (i = 0; i < cfg->nr_layers; i++) {
		l = &cfg->layers[i];
		if (i + 1 < cfg->nr_layers && strata_layer_matches_all(l)) {
			snprintf(err, errlen,
				 "layer \"%s\" (#%u) matches every task, so the "
				 "layers after it could never match; only the last "
				 "layer may be a catch-all",
				 l->name, i);
			return -EINVAL;
		}
		for (o = 0; o < l->nr_ors; o++)
			for (a = 0; a < l->nr_ands[o]; a++)
				nr_cg += l->m[o][a].kind == STRATA_M_CGROUP;
	}
	l = &cfg->layers[cfg->nr_layers - 1];
	if (!strata_layer_matches_all(l)) {
		snprintf(err, errlen,
			 "the last layer \"%s\" must be a catch-all (\"matches\": "
			 "[[]]) so that every task has a layer",
			 l->name);
		return -EINVAL;
	}
	if (nr_cg > STRATA_MAX_CGRP_MATCHERS) {
		snprintf(err, errlen, "%u cgroup matchers, at most %d are supported", nr_cg,
			 STRATA_MAX_CGRP_MATCHERS);
		return -EINVAL;
	}
	return 0;
}

/*
 * CgroupRegex sees what scx_layered's cgroup walker sees: the absolute
 * path under /sys/fs/cgroup, without a trailing slash.
 */
static void regex_path(const char *rel, char *buf, size_t len)
{
	size_t n = strlen(rel);

	snprintf(buf, len, "/sys/fs/cgroup%s%.*s", n ? "/" : "",
		 (int)(n && rel[n - 1] == '/' ? n - 1 : n), rel);
}

bool strata_cgroup_match(const struct strata_match_cfg *m, const char *path)
{
	regex_t re;
	bool ok;

	if (m->cg != STRATA_CG_REGEX)
		return strata_cgroup_match_re(m, NULL, path);
	if (regcomp(&re, m->str, STRATA_CG_REGEX_FLAGS))
		return false;
	ok = strata_cgroup_match_re(m, &re, path);
	regfree(&re);
	return ok;
}

bool strata_cgroup_match_re(const struct strata_match_cfg *m, const regex_t *re, const char *path)
{
	const char *p = m->str, *s = path;
	char slashed[4096];
	size_t pl, sl;

	if (m->cg == STRATA_CG_REGEX) {
		regex_path(path, slashed, sizeof(slashed));
		return re && !regexec(re, slashed, 0, NULL, 0);
	}

	/* Paths are "a/b/" relative to the cgroup2 root; "/a/b/" patterns are accepted too. */
	if (*p == '/') {
		snprintf(slashed, sizeof(slashed), "/%s", path);
		s = slashed;
	}
	pl = strlen(p);
	sl = strlen(s);
	switch (m->cg) {
	case STRATA_CG_PREFIX:
		return sl >= pl && !strncmp(s, p, pl);
	case STRATA_CG_SUFFIX:
		return sl >= pl && !strcmp(s + sl - pl, p);
	default:
		return strstr(s, p) != NULL;
	}
}

/* ---- --print-and-exit ---- */

static json_t *matcher_json(const struct strata_match_cfg *m)
{
	for (size_t i = 0; i < NR_MATCHERS; i++) {
		const struct matcher_desc *d = &matchers[i];

		if (d->kind != m->kind || (m->kind == STRATA_M_CGROUP && d->cg != m->cg))
			continue;
		if (d->type == 's' || d->type == 'c' || d->type == 'j' || d->type == 'x')
			return json_pack("{s:s}", d->name, m->str);
		if (d->type == 'p')
			return json_pack("{s:[I,I]}", d->name, (json_int_t)m->val2,
					 (json_int_t)m->val);
		if (d->type == 'b')
			return json_pack("{s:b}", d->name, (int)m->val);
		if (d->type == 'r')
			return json_pack("{s:[I,I]}", d->name, (json_int_t)m->val,
					 (json_int_t)m->val2);
		return json_pack("{s:I}", d->name, (json_int_t)m->val);
	}
	return json_null();
}

static json_t *uint_list(const unsigned int *v, unsigned int nr)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < nr; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

json_t *strata_config_to_json(const struct strata_config *cfg)
{
	json_t *root = json_array();

	for (unsigned int i = 0; i < cfg->nr_layers; i++) {
		const struct strata_layer_cfg *l = &cfg->layers[i];
		json_t *matches = json_array(), *body, *layer;

		for (unsigned int o = 0; o < l->nr_ors; o++) {
			json_t *blk = json_array();

			for (unsigned int a = 0; a < l->nr_ands[o]; a++)
				json_array_append_new(blk, matcher_json(&l->m[o][a]));
			json_array_append_new(matches, blk);
		}
		body = json_pack(
			"{s:I,s:f,s:I,s:b,s:b,s:b,s:b,s:i,s:s,s:i,s:o,s:o,s:s}", "min_exec_us",
			(json_int_t)l->min_exec_us, "yield_ignore", l->yield_ignore, "slice_us",
			(json_int_t)l->slice_us, "fifo", l->fifo, "preempt", l->preempt,
			"preempt_first", l->preempt_first, "exclusive", l->exclusive, "weight",
			l->weight, "growth_algo", strata_growth_names[l->growth], "perf", l->perf,
			"nodes", uint_list(l->nodes, l->nr_nodes), "llcs",
			uint_list(l->llcs, l->nr_llcs), "placement", placement_names[l->placement]);
		if (l->kind != STRATA_OPEN) {
			json_object_set_new(body, "util_range",
					    json_pack("[f,f]", l->util_lo, l->util_hi));
			if (l->has_cpus_frac)
				json_object_set_new(body, "cpus_range_frac",
						    json_pack("[f,f]", l->frac_lo, l->frac_hi));
			else
				json_object_set_new(
					body, "cpus_range",
					json_pack("[i,i]", l->cpus_min,
						  l->has_cpus_range ? l->cpus_max : SCXK_MAX_CPUS));
			json_object_set_new(body, "protected", json_boolean(l->protect));
		}
		if (l->kind == STRATA_GROUPED)
			json_object_set_new(body, "idle_confined", json_boolean(l->idle_confined));
		layer = json_pack("{s:s,s:s,s:o,s:{s:o}}", "name", l->name, "comment", l->comment,
				  "matches", matches, "kind", strata_kind_names[l->kind], body);
		json_array_append_new(root, layer);
	}
	return root;
}

/*
 * The example of -e/--run-example, in the shape of scx_layered's built-in
 * example: background work confined, interactive work preempting, a noisy
 * benchmark on its own CPUs, everything else grouped.
 */
const char strata_example_config[] =
	"[\n"
	"  {\n"
	"    \"name\": \"batch\",\n"
	"    \"comment\": \"background services and niced tasks: confined, sized to keep "
	"their CPUs 80-90% busy\",\n"
	"    \"matches\": [[{\"CgroupPrefix\": \"system.slice/\"}], [{\"NiceAbove\": 0}]],\n"
	"    \"kind\": {\"Confined\": {\"util_range\": [0.8, 0.9], \"cpus_range\": [0, 16], "
	"\"min_exec_us\": 1000, \"slice_us\": 20000, \"weight\": 100}}\n"
	"  },\n"
	"  {\n"
	"    \"name\": \"immediate\",\n"
	"    \"comment\": \"latency-sensitive tasks of the workload: preempt the other layers, "
	"keep SMT siblings idle\",\n"
	"    \"matches\": [[{\"CgroupPrefix\": \"workload.slice/\"}, {\"NiceBelow\": 0}]],\n"
	"    \"kind\": {\"Open\": {\"min_exec_us\": 100, \"yield_ignore\": 0.25, \"preempt\": "
	"true, "
	"\"preempt_first\": false, \"exclusive\": true, \"slice_us\": 5000}}\n"
	"  },\n"
	"  {\n"
	"    \"name\": \"stress-ng\",\n"
	"    \"comment\": \"a known CPU hog kept on its own CPUs\",\n"
	"    \"matches\": [[{\"CommPrefix\": \"stress-ng\"}], [{\"PcommPrefix\": "
	"\"stress-ng\"}]],\n"
	"    \"kind\": {\"Confined\": {\"util_range\": [0.2, 0.8], \"cpus_range\": [1, 2], "
	"\"growth_algo\": \"Reverse\", \"weight\": 50}}\n"
	"  },\n"
	"  {\n"
	"    \"name\": \"normal\",\n"
	"    \"comment\": \"the rest: grouped, may spill onto idle CPUs\",\n"
	"    \"matches\": [[]],\n"
	"    \"kind\": {\"Grouped\": {\"util_range\": [0.5, 0.6], \"cpus_range\": [1, 8], "
	"\"growth_algo\": \"Linear\"}}\n"
	"  }\n"
	"]\n";
