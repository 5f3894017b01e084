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

/* argv from the NULL-terminated arguments, with cfg reset to its defaults */
static int make_argv(char **argv, int max, va_list ap)
{
	int argc = 1;
	char *a;

	argv[0] = "scx_test";
	while ((a = va_arg(ap, char *)) && argc < max - 1)
		argv[argc++] = a;
	argv[argc] = NULL;
	memset(&cfg, 0, sizeof(cfg));
	cfg.num = 10;
	cfg.mode = "auto";
	return argc;
}

static int parse(struct scxk_common_opts *c, ...)
{
	char *argv[32];
	va_list ap;
	int argc;

	va_start(ap, c);
	argc = make_argv(argv, 32, ap);
	va_end(ap);
	return scxk_cli_parse(&cli, argc, argv, c);
}

/* The same table as a binary that is not a scheduler (scxk_cli_parse_opts). */
static int parse_tool(int dummy, ...)
{
	char *argv[32];
	va_list ap;
	int argc;

	va_start(ap, dummy);
	argc = make_argv(argv, 32, ap);
	va_end(ap);
	return scxk_cli_parse_opts(&cli, argc, argv);
}

/* What a call prints on @target_fd (stdout or stderr), read back into @buf. */
struct capture {
	int target, saved, fd;
};

static void capture_start(struct capture *cap, int target_fd)
{
	char path[] = "/tmp/scxk-cli-XXXXXX";

	cap->target = target_fd;
	cap->fd = mkstemp(path);
	assert_true(cap->fd >= 0);
	unlink(path);
	fflush(target_fd == STDOUT_FILENO ? stdout : stderr);
	cap->saved = dup(target_fd);
	dup2(cap->fd, target_fd);
}

static void capture_end(struct capture *cap, char *buf, size_t len)
{
	ssize_t n;

	fflush(cap->target == STDOUT_FILENO ? stdout : stderr);
	dup2(cap->saved, cap->target);
	close(cap->saved);
	n = pread(cap->fd, buf, len - 1, 0);
	close(cap->fd);
	assert_true(n >= 0);
	buf[n] = '\0';
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
/*
 * An option table's upstream declarations: aliases (another long name and
 * short letter), a common option's short letter, multi-value, optional
 * bool values, and ignored options (checked, not stored, one notice).
 */
static uint64_t up_num, up_list_n;
static bool up_flag;

static int parse_count(const char *arg, void *dest)
{
	(void)arg;
	(*(uint64_t *)dest)++;
	return strcmp(arg, "bad") ? 0 : -EINVAL;
}

static struct scxk_opt up_opts[] = {
	{"num", 'n', "N", SCXK_OPT_U64, &up_num, "a number", .max = 100,
	 .upstream = "-N --upstream-num"},
	{"list", 'C', "X", SCXK_OPT_CUSTOM, &up_list_n, "values", .parse = parse_count,
	 .multi = true},
	{"topo", 't', NULL, SCXK_OPT_FLAG, &up_flag, "a flag", .optval = true},
	{"partial", 'p', NULL, SCXK_OPT_COMMON},
	{"old", 'o', "N", SCXK_OPT_U64, NULL, NULL, .max = 5, .ignored = "nothing here"},
	{0},
};

static const struct scxk_cli up_cli = {.prog = "scx_up", .summary = "t", .opts = up_opts};

static int parse_up(struct scxk_common_opts *c, ...)
{
	char *argv[32];
	va_list ap;
	int argc = 1;

	argv[0] = "scx_up";
	va_start(ap, c);
	while ((argv[argc] = va_arg(ap, char *)) && argc < 30)
		argc++;
	va_end(ap);
	up_num = up_list_n = 0;
	up_flag = false;
	return scxk_cli_parse(&up_cli, argc, argv, c);
}

static void test_upstream_table(void **state)
{
	struct scxk_common_opts c;
	struct capture cap;
	char buf[1024];

	(void)state;
	assert_int_equal(parse_up(&c, "--upstream-num", "7", NULL), 0);
	assert_int_equal(up_num, 7);
	assert_int_equal(parse_up(&c, "-N", "8", NULL), 0);
	assert_int_equal(up_num, 8);
	assert_int_equal(parse_up(&c, "-N", "101", NULL), -EINVAL);
	assert_int_equal(parse_up(&c, "-p", NULL), 0);
	assert_true(c.partial);
	assert_int_equal(parse_up(&c, "-C", "a", "b", "c", "-t", "-C", "d", NULL), 0);
	assert_int_equal(up_list_n, 4);
	assert_true(up_flag);
	assert_int_equal(parse_up(&c, "-C", "a", "bad", NULL), -EINVAL);
	assert_int_equal(parse_up(&c, "--topo", "false", NULL), 0);
	assert_false(up_flag);
	assert_int_equal(parse_up(&c, "--topo=true", NULL), 0);
	assert_true(up_flag);
	assert_int_equal(parse_up(&c, "--topo=1", NULL), -EINVAL);
	assert_int_equal(parse_up(&c, "--topo", "maybe", NULL), -EINVAL); /* a stray argument */
	assert_int_equal(parse_up(&c, "--relaxed-maps", "false", NULL), 0);
	assert_false(c.relaxed_maps);
	assert_int_equal(parse_up(&c, "--relaxed-maps", NULL), 0);
	assert_true(c.relaxed_maps);
	assert_int_equal(parse_up(&c, "-o", "6", NULL), -EINVAL);
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(parse_up(&c, "--old", "3", NULL), 0);
	capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "scx_up: note: upstream's --old is accepted and ignored: nothing "
				 "here\n");
	capture_start(&cap, STDOUT_FILENO);
	assert_int_equal(parse_up(&c, "--help-upstream", NULL), SCXK_CLI_DONE);
	capture_end(&cap, buf, sizeof(buf));
	assert_non_null(strstr(buf, "| `-N`, `--upstream-num` | `-n`, `--num` |\n"));
	assert_non_null(strstr(buf, "| `-o`, `--old` | accepted, ignored: nothing here |\n"));
}

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
	struct scxk_common_opts c;
	struct capture cap;
	char buf[4096];

	(void)state;
	capture_start(&cap, STDOUT_FILENO);
	assert_int_equal(parse(&c, "--help-options", NULL), SCXK_CLI_DONE);
	capture_end(&cap, buf, sizeof(buf));
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

/*
 * A binary that is not a scheduler: its own table with the same checks,
 * plus help and version, and none of the scheduler options.
 */
static void test_tool(void **state)
{
	static const char *const refused[][2] = {
		{"--partial"},
		{"--stats", "1"},
		{"-v"},
		{"--verbose"},
		{"--help-man"},
		{"--check-args"},
		{"--features"},
		{"--log-level", "debug"},
		{"--num", "0"},
		{"--num", "x"},
		{"--mode", "turbo"},
		{"-e", "3"},
		{"extra-arg"},
		{"--bogus"},
		{"--num"},
	};
	struct capture cap;
	char buf[8192];
	size_t i;

	(void)state;
	assert_int_equal(parse_tool(0, "-f", "--num=42", "-m", "powersave", "-e", "8", NULL), 0);
	assert_true(cfg.flag);
	assert_int_equal(cfg.num, 42);
	assert_string_equal(cfg.mode, "powersave");
	assert_int_equal(even, 8);
	assert_int_equal(parse_tool(0, NULL), 0);
	assert_int_equal(cfg.num, 10);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int err = parse_tool(0, refused[i][0], refused[i][1], NULL);

		if (err != -EINVAL)
			fail_msg("'%s %s' gave %d, want -EINVAL", refused[i][0],
				 refused[i][1] ? refused[i][1] : "", err);
	}
	assert_int_equal(parse_tool(0, "-V", NULL), SCXK_CLI_DONE);

	capture_start(&cap, STDOUT_FILENO);
	assert_int_equal(parse_tool(0, "--num", "5", "-h", "--bogus", NULL), SCXK_CLI_DONE);
	capture_end(&cap, buf, sizeof(buf));
	assert_non_null(strstr(buf, "Usage: scx_test [OPTIONS]\n\ntest\n\nOptions:\n"));
	assert_non_null(strstr(buf, "  -n, --num=N"));
	assert_non_null(strstr(buf, "  -h, --help "));
	assert_non_null(strstr(buf, "  -V, --version "));
	assert_non_null(strstr(buf, "      --help-options "));
	assert_non_null(strstr(buf, "\nExit status: 0 success, 1 failure, 2 usage error.\n"));
	assert_null(strstr(buf, "Common options"));
	assert_null(strstr(buf, "--partial"));
	assert_null(strstr(buf, "SCX_TIMEOUT_MS"));

	capture_start(&cap, STDOUT_FILENO);
	assert_int_equal(parse_tool(0, "--help-options", NULL), SCXK_CLI_DONE);
	capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "flag flag f - - - -\n"
				 "num u64 n N 1 100 -\n"
				 "ratio double - R 0 1 -\n"
				 "mode choice m MODE - - auto|performance|powersave\n"
				 "name string - NAME - - -\n"
				 "even custom e N - - -\n"
				 "help flag h - - - -\n"
				 "version flag V - - - -\n"
				 "help-options flag - - - - -\n");

	/* One line naming the option, then the hint; nothing on stdout. */
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(parse_tool(0, "--num", "101", NULL), -EINVAL);
	capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "scx_test: --num: value out of range 1..100\n"
				 "try 'scx_test --help'\n");
}

/* The caller's own checks report like the parser. */
static void test_error(void **state)
{
	struct capture cap;
	char buf[256];

	(void)state;
	capture_start(&cap, STDERR_FILENO);
	assert_int_equal(scxk_cli_error("scxk-x", "--a is above --b (%d > %d)", 3, 2), -EINVAL);
	capture_end(&cap, buf, sizeof(buf));
	assert_string_equal(buf, "scxk-x: --a is above --b (3 > 2)\ntry 'scxk-x --help'\n");
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
		cmocka_unit_test(test_upstream_table),
		cmocka_unit_test(test_tool),
		cmocka_unit_test(test_error),
	};

	/* Error lines are expected here; keep the output readable. */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
