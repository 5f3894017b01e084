// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduler modes (include/scxkit/mode.h): org.scx.Loader's numbers, the
 * names scxctl and /etc/default/scx accept, and what is refused; and a
 * scheduler's .modes table as --mode-flags prints it, through the option
 * engine (scxk_cli_parse returns DONE, or -EINVAL for a bad mode).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <scxkit/cli.h>
#include <scxkit/mode.h>

static void numbers_are_upstreams(void **state)
{
	(void)state;
	/* configs/org.scx.Loader.xml: 0 Auto, 1 Gaming, 2 PowerSave, 3 LowLatency, 4 Server */
	assert_int_equal(SCXK_MODE_AUTO, 0);
	assert_int_equal(SCXK_MODE_GAMING, 1);
	assert_int_equal(SCXK_MODE_POWERSAVE, 2);
	assert_int_equal(SCXK_MODE_LOWLATENCY, 3);
	assert_int_equal(SCXK_MODE_SERVER, 4);
	assert_string_equal(scxk_mode_name(SCXK_MODE_POWERSAVE), "powersave");
	assert_null(scxk_mode_name(SCXK_NR_MODES));
}

static void parse_names_and_numbers(void **state)
{
	(void)state;
	assert_int_equal(scxk_mode_parse("auto"), SCXK_MODE_AUTO);
	assert_int_equal(scxk_mode_parse("Gaming"), SCXK_MODE_GAMING);
	assert_int_equal(scxk_mode_parse("PowerSave"), SCXK_MODE_POWERSAVE);
	assert_int_equal(scxk_mode_parse("LowLatency"), SCXK_MODE_LOWLATENCY);
	assert_int_equal(scxk_mode_parse("low-latency"), SCXK_MODE_LOWLATENCY);
	assert_int_equal(scxk_mode_parse("power-save"), SCXK_MODE_POWERSAVE);
	assert_int_equal(scxk_mode_parse("server"), SCXK_MODE_SERVER);
	assert_int_equal(scxk_mode_parse("0"), SCXK_MODE_AUTO);
	assert_int_equal(scxk_mode_parse("4"), SCXK_MODE_SERVER);
}

static void parse_refuses(void **state)
{
	static const char *const bad[] = {"",	"5",	 "42",	    "-1",	   "1x",
					  " 1", "turbo", "gamingx", "auto;reboot", "4294967297"};

	(void)state;
	assert_int_equal(scxk_mode_parse(NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(scxk_mode_parse(bad[i]), -EINVAL);
}

static struct scxk_opt opts[] = {{0}};
static const struct scxk_cli cli = {
	.prog = "scx_test",
	.summary = "test",
	.opts = opts,
	.modes = {[SCXK_MODE_GAMING] = (const char *const[]){"-m", "all", "a b", NULL}},
};

/* --mode-flags MODE through the engine, stdout captured */
static int mode_flags(const char *mode, char *out, size_t len)
{
	char *argv[] = {"scx_test", "--mode-flags", (char *)mode, NULL};
	struct scxk_common_opts common;
	FILE *saved = stdout, *mem = fmemopen(out, len, "w");
	int rc;

	assert_non_null(mem);
	memset(out, 0, len);
	stdout = mem;
	rc = scxk_cli_parse(&cli, 3, argv, &common);
	fclose(mem);
	stdout = saved;
	return rc;
}

static void mode_flags_prints_the_table(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(mode_flags("gaming", out, sizeof(out)), SCXK_CLI_DONE);
	/* one per line, a flag with a blank stays one */
	assert_string_equal(out, "-m\nall\na b\n");
	assert_int_equal(mode_flags("1", out, sizeof(out)), SCXK_CLI_DONE);
	assert_string_equal(out, "-m\nall\na b\n");
	/* no entry: no flags */
	assert_int_equal(mode_flags("server", out, sizeof(out)), SCXK_CLI_DONE);
	assert_string_equal(out, "");
	assert_int_equal(mode_flags("turbo", out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_are_upstreams),
		cmocka_unit_test(parse_names_and_numbers),
		cmocka_unit_test(parse_refuses),
		cmocka_unit_test(mode_flags_prints_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
