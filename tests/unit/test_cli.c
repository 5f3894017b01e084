// SPDX-License-Identifier: GPL-2.0-only
/* The option table: parsing, strict values, help, exit codes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxkit/cli.h>

static struct {
	bool flag;
	uint64_t num;
	double ratio;
	const char *mode;
	const char *name;
} cfg;

static const char *const modes[] = {"auto", "performance", "powersave", NULL};

static int parse_even(const char *arg, void *dest)
{
	uint64_t v;

	if (scxk_parse_u64(arg, &v) || v % 2)
		return -EINVAL;
	*(uint64_t *)dest = v;
	return 0;
}

static uint64_t even;

static struct scxk_opt opts[] = {
	{"flag", 'f', NULL, SCXK_OPT_FLAG, &cfg.flag, "a flag"},
	{"num", 'n', "N", SCXK_OPT_U64, &cfg.num, "a number", .min = 1, .max = 100},
	{"ratio", 0, "R", SCXK_OPT_DOUBLE, &cfg.ratio, "a ratio", .max = 1},
	{"mode", 'm', "MODE", SCXK_OPT_CHOICE, &cfg.mode, "a mode", .choices = modes},
	{"name", 0, "NAME", SCXK_OPT_STRING, &cfg.name, "a name"},
	{"even", 'e', "N", SCXK_OPT_CUSTOM, &even, "an even number", .parse = parse_even,
	 .dfl = "0"},
	{0},
};

static const struct scxk_cli cli = {.prog = "scx_test", .summary = "test", .opts = opts};

static int parse(struct scxk_common_opts *c, ...)
{
	char *argv[32] = {"scx_test"};
	int argc = 1;
	va_list ap;
	char *a;

	va_start(ap, c);
	while ((a = va_arg(ap, char *)) && argc < 31)
		argv[argc++] = a;
	va_end(ap);
	memset(&cfg, 0, sizeof(cfg));
	cfg.num = 10;
	cfg.mode = "auto";
	return scxk_cli_parse(&cli, argc, argv, c);
}

static void test_good(void **state)
{
	struct scxk_common_opts c;

	(void)state;
	assert_int_equal(parse(&c, "-f", "--num=42", "--ratio", "0.5", "-m", "powersave", "--name",
			       "x", "-e", "8", "--partial", "--stats", "2", "--exit-dump-len",
			       "4096", "-vv", NULL),
			 0);
	assert_true(cfg.flag);
	assert_int_equal(cfg.num, 42);
	assert_true(cfg.ratio == 0.5);
	assert_string_equal(cfg.mode, "powersave");
	assert_string_equal(cfg.name, "x");
	assert_int_equal(even, 8);
	assert_true(c.partial);
	assert_true(c.stats_interval == 2.0);
	assert_int_equal(c.exit_dump_len, 4096);
	assert_int_equal(c.verbose, 2);
}

static void test_defaults(void **state)
{
	struct scxk_common_opts c;

	(void)state;
	assert_int_equal(parse(&c, NULL), 0);
	assert_int_equal(cfg.num, 10);
	assert_false(c.partial);
	assert_int_equal(c.exit_dump_len, 32768);
	assert_string_equal(c.stats_path, "/var/run/scx/root/stats");
}

/* upstream's spellings (scx_utils' common and libbpf options) */
static void test_upstream_spellings(void **state)
{
	struct scxk_common_opts c;
	static const struct {
		const char *arg;
		int verbose;
	} levels[] = {
		{"error", 0},
		{"warn", 0},
		{"INFO", 0},
		{"debug", 1},
		{"trace", 2},
		{"off", 0},
		{"info,scx_lavd=debug", 1},
		{"scx_lavd=trace,warn", 2},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		assert_int_equal(parse(&c, "--log-level", levels[i].arg, NULL), 0);
		assert_int_equal(c.verbose, levels[i].verbose);
	}
	/* 0 is upstream's "the default size". */
	assert_int_equal(parse(&c, "--exit-dump-len", "0", NULL), 0);
	assert_int_equal(c.exit_dump_len, 32768);
	assert_int_equal(parse(&c, "--run-id", "17", "--relaxed-maps", "--pin-root-path", "/p",
			       "--kconfig", "CONFIG_X=y", "--btf-custom-path", "/b",
			       "--bpf-token-path", "/t", NULL),
			 0);
	assert_true(c.has_run_id);
	assert_int_equal(c.run_id, 17);
	assert_true(c.relaxed_maps);
	assert_string_equal(c.pin_root_path, "/p");
	assert_string_equal(c.kconfig, "CONFIG_X=y");
	assert_string_equal(c.btf_custom_path, "/b");
	assert_string_equal(c.bpf_token_path, "/t");
	assert_int_equal(parse(&c, NULL), 0);
	assert_false(c.has_run_id);
	assert_null(c.btf_custom_path);
}

static void test_bad(void **state)
{
	struct scxk_common_opts c;
	static const char *const bad[][3] = {
		{"--num", "0"},			      /* below min */
		{"--num", "101"},		      /* above max */
		{"--num", "-1"},		      /* negative */
		{"--num", ""},			      /* empty */
		{"--num", "12abc"},		      /* junk */
		{"--num", "99999999999999999999999"}, /* overflow */
		{"--ratio", "2"},		      /* above max */
		{"--ratio", "nan"},		      /* not finite */
		{"--mode", "turbo"},		      /* unknown choice */
		{"--name", ""},			      /* empty string */
		{"-e", "3"},			      /* custom parser refuses */
		{"--stats", "0"},		      /* zero interval */
		{"--monitor", "-1"},		      /* negative interval */
		{"--log-level", "loud"},	      /* not a level */
		{"--log-level", "=debug"},	      /* directive without a target */
		{"--log-level", ","},		      /* no directive */
		{"--run-id", "-1"},		      /* negative */
		{"--btf-custom-path", ""},	      /* empty path */
		{"--exit-dump-len", "999999999"},     /* too large */
		{"--bogus"},			      /* unknown option */
		{"-z"},				      /* unknown short option */
		{"--num"},			      /* missing value */
		{"extra-arg"},			      /* positional */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int err = parse(&c, bad[i][0], bad[i][1], NULL);

		if (err != -EINVAL)
			fail_msg("'%s %s' gave %d, want -EINVAL", bad[i][0],
				 bad[i][1] ? bad[i][1] : "", err);
	}
	assert_int_equal(parse(&c, "--stats", "1", "--monitor", "1", NULL), -EINVAL);
}

static void test_help(void **state)
{
	struct scxk_common_opts c;
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	scxk_cli_usage(&cli, f);
	fclose(f);
	assert_non_null(strstr(buf, "Usage: scx_test [OPTIONS]"));
	assert_non_null(strstr(buf, "-n, --num=N"));
	assert_non_null(strstr(buf, "(default: 10)"));
	assert_non_null(strstr(buf, "(auto|performance|powersave)"));
	assert_non_null(strstr(buf, "--exit-dump-len=BYTES"));
	assert_non_null(strstr(buf, "--monitor=SEC"));
	assert_int_equal(parse(&c, "--version", NULL), SCXK_CLI_DONE);
}

/* --check-args parses like a real run, and the caller learns it must stop there. */
static void test_check_args(void **state)
{
	struct scxk_common_opts c;

	(void)state;
	assert_int_equal(parse(&c, "--check-args", "--num", "5", "--", "extra", NULL), -EINVAL);
	assert_int_equal(parse(&c, "--check-args", "--num", "5", NULL), 0);
	assert_true(c.check_args);
	assert_int_equal(cfg.num, 5);
	assert_int_equal(parse(&c, "--check-args", "--num", "0", NULL), -EINVAL);
	assert_int_equal(parse(&c, "--num", "5", NULL), 0);
	assert_false(c.check_args);
}

/* --help-options: one line per option from the tables, types and ranges included. */
static void test_help_options(void **state)
{
	static const char *const want[] = {
		"flag flag f - - - -\n",
		"num u64 n N 1 100 -\n",
		"ratio double - R 0 1 -\n",
		"mode choice m MODE - - auto|performance|powersave\n",
		"name string - NAME - - -\n",
		"even custom e N - - -\n",
		"stats double - SEC 0 86400 -\n",
		"monitor-count u64 - N 0 - -\n",
		"exit-dump-len u64 - BYTES 0 16777216 -\n",
		"log-level custom - LEVEL - - -\n",
		"run-id u64 - ID 0 - -\n",
		"verbose flag v - - - -\n",
		"check-args flag - - - - -\n",
	};
	char path[] = "/tmp/scxk-cli-XXXXXX", buf[4096];
	int fd = mkstemp(path), saved;
	struct scxk_common_opts c;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	assert_int_equal(parse(&c, "--help-options", NULL), SCXK_CLI_DONE);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i]))
			fail_msg("--help-options lacks '%s' in:\n%s", want[i], buf);
}

static void test_strict_numbers(void **state)
{
	uint64_t u;
	double d;

	(void)state;
	assert_int_equal(scxk_parse_u64("0x10", &u), 0);
	assert_int_equal(u, 16);
	assert_int_equal(scxk_parse_u64(" 1", &u), -EINVAL);
	assert_int_equal(scxk_parse_u64("+1", &u), -EINVAL);
	assert_int_equal(scxk_parse_u64("18446744073709551616", &u), -ERANGE);
	assert_int_equal(scxk_parse_double("1e999", &d), -ERANGE);
	assert_int_equal(scxk_parse_double("0.25", &d), 0);
	assert_true(d == 0.25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_check_args),
		cmocka_unit_test(test_help_options),
		cmocka_unit_test(test_upstream_spellings),
	};

	/* Error lines are expected here; keep the output readable. */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
