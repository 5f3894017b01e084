// SPDX-License-Identifier: GPL-2.0-only
/* scx_strata's layer config: upstream-shaped configs parse, malformed ones fail precisely. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"

static struct strata_config cfg;
static char err[STRATA_ERR_LEN];

static int load(const char *name)
{
	char spec[512];
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	err[0] = 0;
	snprintf(spec, sizeof(spec), "f:%s/%s", FIXTURE_DIR, name);
	ret = strata_config_add_spec(&cfg, spec, err, sizeof(err));
	if (!ret)
		ret = strata_config_finish(&cfg, err, sizeof(err));
	return ret;
}

static void test_layered_readme(void **state)
{
	(void)state;
	assert_int_equal(load("layered-readme.json"), 0);
	assert_int_equal(cfg.nr_layers, 3);
	assert_string_equal(cfg.layers[0].name, "batch");
	assert_int_equal(cfg.layers[0].kind, STRATA_CONFINED);
	assert_int_equal(cfg.layers[0].nr_ors, 2);
	assert_int_equal(cfg.layers[0].m[0][0].kind, STRATA_M_CGROUP);
	assert_int_equal(cfg.layers[0].m[0][0].cg, STRATA_CG_PREFIX);
	assert_string_equal(cfg.layers[0].m[0][0].str, "system.slice/");
	assert_int_equal(cfg.layers[0].m[1][0].kind, STRATA_M_NICE_ABOVE);
	assert_int_equal(cfg.layers[0].m[1][0].val, 0);
	assert_true(cfg.layers[0].has_cpus_range);
	assert_int_equal(cfg.layers[0].cpus_max, 16);
	assert_true(cfg.layers[0].util_lo == 0.8 && cfg.layers[0].util_hi == 0.9);
	assert_int_equal(cfg.layers[1].kind, STRATA_OPEN);
	assert_int_equal(cfg.layers[1].nr_ands[0], 2);
	assert_true(cfg.layers[1].preempt && cfg.layers[1].exclusive &&
		    !cfg.layers[1].preempt_first);
	assert_true(cfg.layers[1].yield_ignore == 0.25);
	assert_int_equal(cfg.layers[1].min_exec_us, 100);
	assert_int_equal(cfg.layers[2].kind, STRATA_GROUPED);
	assert_true(strata_layer_matches_all(&cfg.layers[2]));
	/* defaults */
	assert_int_equal(cfg.layers[2].weight, STRATA_DFL_WEIGHT);
	assert_int_equal(cfg.layers[2].growth, STRATA_GROW_STICKY);
	assert_int_equal(cfg.nr_warnings, 0);
}

static void test_layered_builtin_example(void **state)
{
	(void)state;
	assert_int_equal(load("layered-builtin-example.json"), 0);
	assert_int_equal(cfg.nr_layers, 4);
	assert_int_equal(cfg.layers[2].growth, STRATA_GROW_TOPO);
	assert_int_equal(cfg.layers[3].growth, STRATA_GROW_LINEAR);
	assert_int_equal(cfg.layers[2].slice_us, 800);
	assert_int_equal(cfg.layers[0].perf, 1024);
	assert_int_equal(cfg.layers[2].m[1][0].kind, STRATA_M_PCOMM_PREFIX);
	/*
	 * Deprecated and tuning-only fields set away from scx_layered's
	 * default are accepted with one warning per field name, however many
	 * layers set it (allow_node_aligned, xllc_mig_min_us); at the default
	 * (xllc_mig_min_us 0.0, idle_smt null) they are silent.
	 */
	assert_int_equal(cfg.nr_warnings, 2);
	assert_non_null(strstr(cfg.warnings[0], "$[0].kind.Confined.allow_node_aligned: ignored"));
	assert_non_null(strstr(cfg.warnings[1], "$[0].kind.Confined.xllc_mig_min_us: ignored"));
}

static void test_every_matcher(void **state)
{
	const struct strata_layer_cfg *l;

	(void)state;
	assert_int_equal(load("every-matcher.json"), 0);
	l = &cfg.layers[0];
	assert_int_equal(l->m[0][0].kind, STRATA_M_UID);
	assert_int_equal(l->m[0][0].val, 1000);
	assert_int_equal(l->m[0][1].kind, STRATA_M_GID);
	assert_int_equal(l->m[1][0].kind, STRATA_M_PID);
	assert_int_equal(l->m[2][0].kind, STRATA_M_PPID);
	assert_int_equal(l->m[2][1].kind, STRATA_M_KTHREAD);
	assert_int_equal(l->m[2][1].val, 1);
	assert_int_equal(l->m[3][0].kind, STRATA_M_TGID);
	assert_int_equal(l->m[3][1].kind, STRATA_M_GROUP_LEADER);
	assert_int_equal(l->m[3][1].val, 0);
	assert_int_equal(l->placement, STRATA_PLACE_STICKY);
	assert_true(l->fifo);
	l = &cfg.layers[1];
	assert_int_equal(l->m[0][0].kind, STRATA_M_COMM_PREFIX_EXCL);
	assert_int_equal(l->m[0][1].kind, STRATA_M_PCOMM_PREFIX_EXCL);
	assert_int_equal(l->m[0][2].kind, STRATA_M_NICE_EQUALS);
	assert_int_equal(l->m[0][2].val, -5);
	assert_int_equal(l->m[0][3].cg, STRATA_CG_SUFFIX);
	assert_int_equal(l->m[0][4].cg, STRATA_CG_CONTAINS);
	assert_true(l->has_cpus_frac && l->frac_lo == 0.25 && l->frac_hi == 0.5);
	assert_true(l->protect && l->idle_confined);
	assert_int_equal(l->growth, STRATA_GROW_ROUND_ROBIN);
	assert_int_equal(l->nr_nodes, 1);
	assert_int_equal(l->nr_llcs, 2);
	assert_int_equal(cfg.layers[4].m[1][0].kind, STRATA_M_NUMA_NODE);
	assert_int_equal(cfg.layers[4].m[1][0].val, 1);
	assert_int_equal(cfg.layers[4].m[1][1].kind, STRATA_M_AVG_RUNTIME);
	assert_int_equal(cfg.layers[4].m[1][1].val, 1000);
	assert_int_equal(cfg.layers[4].m[1][1].val2, 50000);
	assert_int_equal(l->llcs[1], 2);
	assert_int_equal(cfg.layers[2].growth, STRATA_GROW_BIG_LITTLE);
	assert_int_equal(cfg.layers[2].placement, STRATA_PLACE_FLOATING);
	assert_int_equal(cfg.layers[3].growth, STRATA_GROW_LITTLE_BIG);
	assert_int_equal(cfg.layers[3].weight, STRATA_DFL_WEIGHT); /* 0 means the default */
	assert_int_equal(cfg.layers[4].growth, STRATA_GROW_REVERSE);
	l = &cfg.layers[5];
	assert_string_equal(l->name, "joined and contained");
	assert_int_equal(l->m[0][0].kind, STRATA_M_CMD_JOIN);
	assert_string_equal(l->m[0][0].str, "render");
	assert_int_equal(l->m[1][0].kind, STRATA_M_CGROUP);
	assert_int_equal(l->m[1][0].cg, STRATA_CG_REGEX);
	assert_string_equal(l->m[1][0].str, "^/sys/fs/cgroup/ci-[0-9]+\\.slice$");
	assert_int_equal(l->m[2][0].kind, STRATA_M_NS);
	assert_int_equal(l->m[2][0].val, 4026531836LL);
	/* NSPIDEquals is [namespace, pid], as scx_layered spells it */
	assert_int_equal(l->m[3][0].kind, STRATA_M_NSPID);
	assert_int_equal(l->m[3][0].val, 1);
	assert_int_equal(l->m[3][0].val2, 4026532100LL);
	assert_int_equal(l->m[4][0].kind, STRATA_M_HINT);
	assert_int_equal(l->m[4][0].val, 1024);
}

static const struct {
	const char *file, *want;
} bad[] = {
	{"bad-01-not-array.json", "$: expected an array of layers, got an object"},
	{"bad-02-empty.json", "$: no layers"},
	{"bad-03-syntax.json", "invalid JSON at line 1 column 14"},
	{"bad-04-layer-not-object.json", "$[0]: expected a layer object, got an integer"},
	{"bad-05-missing-name.json", "$[0]: missing field \"name\""},
	{"bad-06-name-type.json", "$[0].name: expected a string, got an integer"},
	{"bad-08-unknown-kind.json", "$[0].kind.Closed: unknown layer kind"},
	{"bad-10-wrong-type-bool.json", "$[0].kind.Open.preempt: expected a boolean, got a string"},
	{"bad-11-wrong-type-int.json",
	 "$[0].kind.Open.slice_us: expected an integer, got a number"},
	{"bad-12-util-inverted.json", "$[0].kind.Confined.util_range: inverted range [0.9, 0.1]"},
	{"bad-13-util-empty.json", "$[0].kind.Confined.util_range: empty range [0.5, 0.5]"},
	{"bad-14-cpus-inverted.json", "$[0].kind.Grouped.cpus_range: inverted range [4, 2]"},
	{"bad-15-cpus-empty.json", "$[0].kind.Grouped.cpus_range: empty range [0, 0]"},
	{"bad-16-range-and-frac.json",
	 "$[0].kind.Confined: cpus_range and cpus_range_frac conflict"},
	{"bad-17-no-util-range.json",
	 "$[0].kind.Confined: util_range is required for Confined layers"},
	{"bad-18-last-not-catchall.json", "the last layer \"a\" must be a catch-all"},
	{"bad-19-early-catchall.json", "layer \"a\" (#0) matches every task"},
	{"bad-20-unknown-matcher.json", "$[0].matches[0][0].CommSuffix: unknown matcher"},
	{"bad-21-unsupported-matcher.json",
	 "$[0].matches[0][0].UsedGpuTid: matcher not supported by scx_strata: GPU use"},
	{"bad-22-nice-range.json", "$[0].matches[0][0].NiceAbove: 25 is out of range [-20, 19]"},
	{"bad-23-comm-too-long.json",
	 "CommPrefix: \"abcdefghijklmnopq\" is longer than 15 characters"},
	{"bad-24-duplicate-name.json", "$[1].name: duplicate layer name \"a\""},
	{"bad-26-growth-unknown.json",
	 "$[0].kind.Open.growth_algo: unknown growth algorithm \"Sideways\""},
	{"bad-28-preempt-first-alone.json",
	 "$[0].kind.Open: preempt_first conflicts with preempt=false"},
	{"bad-29-weight-range.json", "$[0].kind.Open.weight: 20000 is out of range [0, 10000]"},
	{"bad-31-matcher-two-keys.json",
	 "$[0].matches[0][0]: a matcher is an object with exactly one key"},
	{"bad-32-no-or-groups.json", "$[0].matches: no AND block"},
	{"bad-33-util-above-one.json",
	 "$[0].kind.Confined.util_range[1]: 1.5 is out of range [0, 1]"},
	{"bad-34-too-many-layers.json", "$[16]: more than 16 layers"},
	{"bad-36-duplicate-key.json", "duplicate object key"},
	{"bad-37-regex-invalid.json",
	 "$[0].matches[0][0].CgroupRegex: invalid POSIX extended regex \"web(1|2\""},
	{"bad-38-cmdjoin-too-long.json",
	 "$[0].matches[0][0].CmdJoin: \"fourteen-chars\" is longer than 13 characters"},
	{"bad-39-nspid-shape.json",
	 "$[0].matches[0][0].NSPIDEquals: expected [namespace id, pid], got an integer"},
	{"bad-40-nspid-pid-type.json",
	 "$[0].matches[0][0].NSPIDEquals[1]: expected an integer, got a string"},
	{"bad-41-sysutil-unsupported.json",
	 "$[0].matches[0][0].SystemCpuUtilBelow: matcher not supported by scx_strata: admission "
	 "of hinted tasks by system utilisation"},
	{"bad-42-dsqinsert-unsupported.json",
	 "$[0].matches[0][0].DsqInsertBelow: matcher not supported by scx_strata: admission of "
	 "hinted tasks by the layer's DSQ insert ratio"},
	{"bad-43-hint-range.json", "$[0].matches[0][0].HintEquals: 1025 is out of range [0, 1024]"},
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = load(bad[i].file);

		if (ret != -EINVAL || !strstr(err, bad[i].want))
			fail_msg("%s: ret %d, error '%s', want '%s'", bad[i].file, ret, err,
				 bad[i].want);
		/* the message names the file it came from, or the layer at fault */
		if (!strstr(err, bad[i].file) && !strstr(err, "layer \""))
			fail_msg("%s: error '%s' names neither file nor layer", bad[i].file, err);
	}
}

/*
 * What scx_layered accepts and this scheduler cannot apply: a warning that
 * names the field by default, an error with --strict (cfg.strict).
 */
static const struct {
	const char *file, *path;
} lenient[] = {
	{"lenient-07-unknown-layer-field.json", "$[0].colour: ignored: unknown field"},
	{"lenient-09-unknown-kind-field.json", "$[0].kind.Open.speed: ignored: unknown field"},
	{"lenient-25-open-util-range.json",
	 "$[0].kind.Open.util_range: ignored: not a field of this layer kind"},
	{"lenient-30-template.json",
	 "$[0].template: ignored: no layer is made per matching cgroup"},
	{"lenient-35-idle-confined-on-confined.json",
	 "$[0].kind.Confined.idle_confined: ignored: not a field of this layer kind"},
};

static void test_lenient_and_strict(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(lenient) / sizeof(lenient[0]); i++) {
		char spec[512];
		int ret = load(lenient[i].file);

		if (ret || cfg.nr_warnings != 1 || !strstr(cfg.warnings[0], lenient[i].path))
			fail_msg("%s: ret %d (%s), %u warnings, first '%s', want '%s'",
				 lenient[i].file, ret, err, cfg.nr_warnings,
				 cfg.nr_warnings ? cfg.warnings[0] : "", lenient[i].path);
		memset(&cfg, 0, sizeof(cfg));
		cfg.strict = true;
		snprintf(spec, sizeof(spec), "f:%s/%s", FIXTURE_DIR, lenient[i].file);
		ret = strata_config_add_spec(&cfg, spec, err, sizeof(err));
		if (ret != -EINVAL || !strstr(err, "(an error with --strict)"))
			fail_msg("%s with --strict: ret %d, error '%s'", lenient[i].file, ret, err);
	}
}

/*
 * A config written here in the shapes scx_layered's examples and its "-e"
 * output use: names with spaces, nulls, every default spelled out, a
 * template, every growth algorithm and layer kind, and every field of
 * its current schema (matchers: test_every_matcher).
 */
static void test_upstream_schema(void **state)
{
	(void)state;
	assert_int_equal(load("upstream-schema.json"), 0);
	assert_int_equal(cfg.nr_layers, 16);
	assert_string_equal(cfg.layers[0].name, "interactive apps");
	for (unsigned int g = 0; g < STRATA_NR_GROWTH; g++)
		assert_int_equal(cfg.layers[g].growth, g);
	/* only what is set away from its default warns: template, membw_gb, member_expire_ms */
	for (unsigned int i = 0; i < cfg.nr_warnings; i++)
		print_message("warning: %s\n", cfg.warnings[i]);
	assert_int_equal(cfg.nr_warnings, 3);
	memset(&cfg, 0, sizeof(cfg));
	cfg.strict = true;
	assert_int_equal(strata_config_add_spec(&cfg, "f:" FIXTURE_DIR "/upstream-schema.json", err,
						sizeof(err)),
			 -EINVAL);
}

static void test_inline_and_sources(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(
		strata_config_add_spec(&cfg,
				       "[{\"name\":\"a\",\"matches\":[[{\"PIDEquals\":1}]],"
				       "\"kind\":{\"Open\":{}}}]",
				       err, sizeof(err)),
		0);
	/* specs concatenate; the second one's errors name it */
	assert_int_equal(strata_config_add_spec(&cfg,
						"[{\"name\":\"b\",\"matches\":[[]],"
						"\"kind\":{\"Open\":{\"fifo\":1}}}]",
						err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "inline spec 2: $[0].kind.Open.fifo: expected a boolean"));
	assert_int_equal(strata_config_add_spec(&cfg,
						"[{\"name\":\"b\",\"matches\":[[]],"
						"\"kind\":{\"Open\":{}}}]",
						err, sizeof(err)),
			 0);
	assert_int_equal(strata_config_finish(&cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_layers, 2);
	assert_int_equal(strata_config_add_spec(&cfg, "file:/nonexistent/x.json", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/x.json: cannot read"));
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(strata_config_finish(&cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no layer config"));
}

/* --print-and-exit output is itself a valid config that expands to the same thing. */
static void test_roundtrip(void **state)
{
	static struct strata_config a;
	json_t *j1, *j2;
	char *text;

	(void)state;
	const char *files[] = {"layered-readme.json", "every-matcher.json",
			       "layered-builtin-example.json", "upstream-schema.json"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		assert_int_equal(load(files[i]), 0);
		a = cfg;
		j1 = strata_config_to_json(&a);
		text = json_dumps(j1, 0);
		memset(&cfg, 0, sizeof(cfg));
		assert_int_equal(strata_config_add_json(&cfg, text, "printed", err, sizeof(err)),
				 0);
		assert_int_equal(strata_config_finish(&cfg, err, sizeof(err)), 0);
		j2 = strata_config_to_json(&cfg);
		assert_true(json_equal(j1, j2));
		free(text);
		json_decref(j1);
		json_decref(j2);
	}
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(
		strata_config_add_json(&cfg, strata_example_config, "example", err, sizeof(err)),
		0);
	assert_int_equal(strata_config_finish(&cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_layers, 4);
}

static void test_cgroup_match(void **state)
{
	struct strata_match_cfg m = {.kind = STRATA_M_CGROUP};

	(void)state;
	m.cg = STRATA_CG_PREFIX;
	strcpy(m.str, "system.slice/");
	assert_true(strata_cgroup_match(&m, "system.slice/sshd.service/"));
	assert_false(strata_cgroup_match(&m, "system.slice2/"));
	assert_false(strata_cgroup_match(&m, "user.slice/system.slice/"));
	strcpy(m.str, "/system.slice/"); /* a leading slash is accepted too */
	assert_true(strata_cgroup_match(&m, "system.slice/a/"));
	m.cg = STRATA_CG_SUFFIX;
	strcpy(m.str, "app.service/");
	assert_true(strata_cgroup_match(&m, "system.slice/app.service/"));
	assert_false(strata_cgroup_match(&m, "system.slice/app.service/child/"));
	m.cg = STRATA_CG_CONTAINS;
	strcpy(m.str, "db");
	assert_true(strata_cgroup_match(&m, "work.slice/mydb.scope/"));
	assert_false(strata_cgroup_match(&m, ""));
	/* CgroupRegex: the absolute path without a trailing slash, as scx_layered's walker sees it
	 */
	m.cg = STRATA_CG_REGEX;
	strcpy(m.str, "^/sys/fs/cgroup/ci-[0-9]+\\.slice$");
	assert_true(strata_cgroup_match(&m, "ci-12.slice/"));
	assert_false(strata_cgroup_match(&m, "ci-12.slice/job/"));
	assert_false(strata_cgroup_match(&m, "ci-x.slice/"));
	assert_false(strata_cgroup_match(&m, "ci-12xslice/"));
	strcpy(m.str, "^/sys/fs/cgroup$");
	assert_true(strata_cgroup_match(&m, ""));
	strcpy(m.str, "web[12]"); /* unanchored: a match anywhere in the path */
	assert_true(strata_cgroup_match(&m, "a/web2.scope/b/"));
	assert_false(strata_cgroup_match(&m, "a/web3.scope/"));
}

/* A spec naming a FIFO is refused at once instead of waiting for a writer. */
static void test_fifo_spec(void **state)
{
	char dir[] = "/tmp/strata-fifo-XXXXXX", path[64], spec[80];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(spec, sizeof(spec), "f:%s", path);
	memset(&cfg, 0, sizeof(cfg));
	/* A hang is a failure: cmocka cannot time out, so SIGALRM kills the test. */
	alarm(5);
	assert_int_equal(strata_config_add_spec(&cfg, spec, err, sizeof(err)), -EINVAL);
	alarm(0);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	rmdir(dir);
}

/* A syntax error in a file names line and column, never the file's text. */
static void test_file_error_quotes_nothing(void **state)
{
	char path[] = "/tmp/strata-secret-XXXXXX", spec[64];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	/* an unterminated string: jansson quotes it whole as the token */
	assert_int_equal(write(fd, "\"s3cretpassw0rd\n", 16), 16);
	close(fd);
	snprintf(spec, sizeof(spec), "f:%s", path);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(strata_config_add_spec(&cfg, spec, err, sizeof(err)), -EINVAL);
	unlink(path);
	assert_non_null(strstr(err, "invalid JSON at line 1"));
	if (strstr(err, "s3cret"))
		fail_msg("error quotes the file: '%s'", err);
	/* Inline specs come from the user: quoting them helps and leaks nothing. */
	assert_int_equal(strata_config_add_spec(&cfg, "[x]", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "near"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layered_readme),
		cmocka_unit_test(test_layered_builtin_example),
		cmocka_unit_test(test_every_matcher),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lenient_and_strict),
		cmocka_unit_test(test_upstream_schema),
		cmocka_unit_test(test_inline_and_sources),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_cgroup_match),
		cmocka_unit_test(test_fifo_spec),
		cmocka_unit_test(test_file_error_quotes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
