// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the option table interpreter (scxk_cli_parse),
 * which every binary runs on its command line and scx.service's SCX_FLAGS,
 * and its entry point without the scheduler options (scxk_cli_parse_opts,
 * the bench workloads'), on the same argv.
 *
 * The input is split at NUL bytes into argv. The table below has one
 * option of every type, including a CPU list through a custom parser, so
 * the whole value-checking path runs. Results must be one of the three
 * documented ones, and an accepted value must respect its table's range.
 * --help and error messages print: run it with -close_fd_mask=3 (run.sh
 * does), libFuzzer still reports crashes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/cli.h>
#include <scxkit/cpumask.h>

#define MAX_ARGS 32

static struct {
	bool flag;
	uint64_t num;
	double ratio;
	const char *path, *mode;
	struct scxk_cpumask cpus;
} cfg;

static const char *const modes[] = {"auto", "performance", "powersave", NULL};

static int parse_cpus(const char *arg, void *dest)
{
	return scxk_cpumask_parse(arg, dest, 64);
}

static struct scxk_opt opts[] = {
	{"flag", 'f', NULL, SCXK_OPT_FLAG, &cfg.flag, "a flag"},
	{"num", 'n', "N", SCXK_OPT_U64, &cfg.num, "a number", .min = 10, .max = 1000},
	{"ratio", 'r', "R", SCXK_OPT_DOUBLE, &cfg.ratio, "a ratio", .max = 100},
	{"path", 0, "PATH", SCXK_OPT_STRING, &cfg.path, "a path"},
	{"mode", 'm', "MODE", SCXK_OPT_CHOICE, &cfg.mode, "a mode", .choices = modes},
	{"cpus", 'c', "CPUS", SCXK_OPT_CUSTOM, &cfg.cpus, "a cpu list", .parse = parse_cpus,
	 .dfl = "all"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "fuzz_cli",
	.summary = "option parser fuzzing",
	.opts = opts,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scxk_common_opts common;
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	int argc = 0, ret;
	size_t i = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "fuzz_cli";
	while (i <= size && argc <= MAX_ARGS) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.num = 10;
	ret = scxk_cli_parse(&cli, argc, argv, &common);
	if (ret != 0 && ret != SCXK_CLI_DONE && ret != -EINVAL)
		abort();
	if (ret == 0 && (cfg.num < 10 || cfg.num > 1000 || cfg.ratio < 0 || cfg.ratio > 100 ||
			 (cfg.path && !*cfg.path) || common.exit_dump_len < 1))
		abort();

	memset(&cfg, 0, sizeof(cfg));
	cfg.num = 10;
	ret = scxk_cli_parse_opts(&cli, argc, argv);
	if (ret != 0 && ret != SCXK_CLI_DONE && ret != -EINVAL)
		abort();
	if (ret == 0 && (cfg.num < 10 || cfg.num > 1000 || cfg.ratio < 0 || cfg.ratio > 100 ||
			 (cfg.path && !*cfg.path)))
		abort();
	free(buf);
	return 0;
}
