// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option table interpreter: getopt_long, --help, --help-man and strict
 * value parsing. Values are checked here so that every bad flag of every
 * binary fails the same way: one line on stderr, exit 2, kernel untouched.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/cli.h>
#include <scxkit/log.h>
#include <scxkit/stats.h>
#include <scxkit/uei.h>

#ifndef SCXK_VERSION
#define SCXK_VERSION "unknown"
#endif

/* Long-only options get ids above any character. */
enum {
	OPT_STATS = 0x100,
	OPT_MONITOR,
	OPT_MONITOR_COUNT,
	OPT_HELP_STATS,
	OPT_EXIT_DUMP_LEN,
	OPT_PARTIAL,
	OPT_STATS_SOCKET,
	OPT_HELP_MAN,
	OPT_FAULT_STARVE,
	OPT_CHECK_ARGS,
	OPT_FIRST_OWN, /* the binary's own long-only options start here */
};

/* The shared options, documented like a binary's own (ids in short_opt). */
static const struct {
	const char *name;
	int id;
	const char *metavar;
	const char *help;
	const char *dfl;
} common_opts[] = {
	{ "stats", OPT_STATS, "SEC", "run the scheduler and print its stats every SEC seconds", "off" },
	{ "monitor", OPT_MONITOR, "SEC",
	  "print the stats of the running scheduler every SEC seconds; never loads BPF", "off" },
	{ "monitor-count", OPT_MONITOR_COUNT, "N", "with --monitor, stop after N prints", "0 (forever)" },
	{ "help-stats", OPT_HELP_STATS, NULL, "describe every stat and exit", NULL },
	{ "exit-dump-len", OPT_EXIT_DUMP_LEN, "BYTES",
	  "size of the kernel's debug dump kept on an error exit", "32768" },
	{ "partial", OPT_PARTIAL, NULL,
	  "schedule only tasks that set SCHED_EXT; others stay on the fair class", NULL },
	{ "stats-socket", OPT_STATS_SOCKET, "PATH", "stats socket path", SCXK_STATS_DEFAULT_PATH },
	{ "verbose", 'v', NULL, "more output; twice adds libbpf's debug output", NULL },
	{ "version", 'V', NULL, "print the version and exit", NULL },
	{ "help", 'h', NULL, "print this help and exit", NULL },
	{ "help-man", OPT_HELP_MAN, NULL, "print the OPTIONS section of the man page (scdoc)", NULL },
	{ "check-args", OPT_CHECK_ARGS, NULL,
	  "only parse the options and exit; reads no file and writes nothing", NULL },
#ifdef SCXK_FAULT_INJECTION
	{ "fault-starve-tgid", OPT_FAULT_STARVE, "TGID",
	  "TEST BUILD ONLY: never run the tasks of process TGID, so the kernel's watchdog "
	  "ejects the scheduler", "off" },
#endif
};
#define NR_COMMON (sizeof(common_opts) / sizeof(common_opts[0]))

int scxk_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int scxk_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static const char *opt_dfl(const struct scxk_opt *o, char *buf, size_t len)
{
	if (o->dfl)
		return o->dfl;
	switch (o->type) {
	case SCXK_OPT_U64:
		snprintf(buf, len, "%" PRIu64, *(uint64_t *)o->dest);
		return buf;
	case SCXK_OPT_DOUBLE:
		snprintf(buf, len, "%g", *(double *)o->dest);
		return buf;
	case SCXK_OPT_STRING:
	case SCXK_OPT_CHOICE:
		return *(const char **)o->dest;
	default:
		return NULL;
	}
}

static void print_opt(FILE *f, int short_opt, const char *name, const char *metavar,
		      const char *help, const char *dfl, const char *const *choices)
{
	char lhs[64];
	int n;

	if (short_opt > 0 && short_opt < 0x100)
		n = snprintf(lhs, sizeof(lhs), "  -%c, --%s", short_opt, name);
	else
		n = snprintf(lhs, sizeof(lhs), "      --%s", name);
	if (metavar && n < (int)sizeof(lhs))
		snprintf(lhs + n, sizeof(lhs) - n, "=%s", metavar);
	fprintf(f, "%-32s %s", lhs, help);
	if (choices) {
		fputs(" (", f);
		for (int i = 0; choices[i]; i++)
			fprintf(f, "%s%s", i ? "|" : "", choices[i]);
		fputc(')', f);
	}
	if (dfl)
		fprintf(f, " (default: %s)", dfl);
	fputc('\n', f);
}

void scxk_cli_usage(const struct scxk_cli *cli, FILE *f)
{
	const struct scxk_opt *o;
	char buf[64];
	size_t i;

	fprintf(f, "Usage: %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", cli->prog,
		cli->positional && cli->args ? " " : "", cli->positional && cli->args ? cli->args : "",
		cli->summary);
	for (o = cli->opts; o && o->name; o++)
		print_opt(f, o->short_opt, o->name, o->metavar, o->help,
			  opt_dfl(o, buf, sizeof(buf)), o->choices);
	fputs("\nCommon options:\n", f);
	for (i = 0; i < NR_COMMON; i++)
		print_opt(f, common_opts[i].id, common_opts[i].name, common_opts[i].metavar,
			  common_opts[i].help, common_opts[i].dfl, NULL);
	fputs("\nEnvironment:\n"
	      "  SCX_TIMEOUT_MS     watchdog timeout the kernel enforces on the scheduler\n"
	      "  SCX_SYSFS_PREFIX   root under which sysfs is read (for tests)\n",
	      f);
	if (cli->examples)
		fprintf(f, "\nExamples:\n%s", cli->examples);
	fputs("\nExit status: 0 clean detach, 1 failure or ejection by the kernel, 2 usage error.\n",
	      f);
}

/* scdoc text for the man page, generated from the same table as --help. */
static void print_man(const struct scxk_cli *cli, FILE *f)
{
	const struct scxk_opt *o;
	char buf[64];
	size_t i;

	for (o = cli->opts; o && o->name; o++) {
		const char *dfl = opt_dfl(o, buf, sizeof(buf));

		if (o->short_opt > 0 && o->short_opt < 0x100)
			fprintf(f, "*-%c*, ", o->short_opt);
		fprintf(f, "*--%s*%s%s%s\n\t%s", o->name, o->metavar ? "=_" : "",
			o->metavar ? o->metavar : "", o->metavar ? "_" : "", o->help);
		fprintf(f, "%s%s%s\n\n", dfl ? " Default: " : "", dfl ? dfl : "", dfl ? "." : "");
	}
	for (i = 0; i < NR_COMMON; i++) {
		if (common_opts[i].id < 0x100)
			fprintf(f, "*-%c*, ", common_opts[i].id);
		fprintf(f, "*--%s*%s%s%s\n\t%s", common_opts[i].name,
			common_opts[i].metavar ? "=_" : "",
			common_opts[i].metavar ? common_opts[i].metavar : "",
			common_opts[i].metavar ? "_" : "", common_opts[i].help);
		if (common_opts[i].dfl)
			fprintf(f, " Default: %s.", common_opts[i].dfl);
		fputs("\n\n", f);
	}
}

static int bad(const struct scxk_cli *cli, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: ", cli->prog);
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\ntry '%s --help'\n", cli->prog);
	return -EINVAL;
}

static int set_opt(const struct scxk_cli *cli, const struct scxk_opt *o, const char *arg)
{
	uint64_t u;
	double d;
	int err;

	switch (o->type) {
	case SCXK_OPT_FLAG:
		*(bool *)o->dest = true;
		return 0;
	case SCXK_OPT_U64:
		if ((err = scxk_parse_u64(arg, &u)))
			return bad(cli, "--%s: '%s' is not a non-negative integer", o->name, arg);
		if (u < o->min || (o->max && u > o->max)) {
			char range[64];

			snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, o->min, o->max);
			return bad(cli, "--%s: value out of range %s", o->name, range);
		}
		*(uint64_t *)o->dest = u;
		return 0;
	case SCXK_OPT_DOUBLE:
		if ((err = scxk_parse_double(arg, &d)))
			return bad(cli, "--%s: '%s' is not a non-negative number", o->name, arg);
		if (d < (double)o->min || (o->max && d > (double)o->max))
			return bad(cli, "--%s: '%s' is out of range", o->name, arg);
		*(double *)o->dest = d;
		return 0;
	case SCXK_OPT_STRING:
		if (!*arg)
			return bad(cli, "--%s: empty value%s", o->name, "");
		*(const char **)o->dest = arg;
		return 0;
	case SCXK_OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(arg, o->choices[i])) {
				*(const char **)o->dest = o->choices[i];
				return 0;
			}
		}
		return bad(cli, "--%s: unknown value '%s'", o->name, arg);
	case SCXK_OPT_CUSTOM:
		if ((err = o->parse(arg, o->dest)))
			return bad(cli, "--%s: invalid value '%s'", o->name, arg);
		return 0;
	}
	return -EINVAL;
}

static int set_common(const struct scxk_cli *cli, int id, const char *arg,
		      struct scxk_common_opts *c)
{
	double d;
	uint64_t u;

	switch (id) {
	case OPT_STATS:
	case OPT_MONITOR:
		if (scxk_parse_double(arg, &d) || d <= 0 || d > 86400)
			return bad(cli, "--%s: '%s' is not an interval in seconds (0 < SEC <= 86400)",
				   id == OPT_STATS ? "stats" : "monitor", arg);
		*(id == OPT_STATS ? &c->stats_interval : &c->monitor_interval) = d;
		return 0;
	case OPT_MONITOR_COUNT:
		if (scxk_parse_u64(arg, &u))
			return bad(cli, "--monitor-count: '%s' is not a count%s", arg, "");
		c->monitor_count = u;
		return 0;
	case OPT_EXIT_DUMP_LEN:
		/* Above 16 MiB the dump buffer would not fit one map value. */
		if (scxk_parse_u64(arg, &u) || u < 1 || u > (16U << 20))
			return bad(cli, "--exit-dump-len: '%s' is not a size in 1..16777216%s", arg, "");
		c->exit_dump_len = u;
		return 0;
	case OPT_PARTIAL:
		c->partial = true;
		return 0;
	case OPT_STATS_SOCKET:
		if (!*arg || strlen(arg) >= 108 /* sun_path */)
			return bad(cli, "--stats-socket: '%s' is not a usable socket path%s", arg, "");
		c->stats_path = arg;
		return 0;
	case OPT_HELP_STATS:
		c->help_stats = true;
		return 0;
	case OPT_CHECK_ARGS:
		c->check_args = true;
		return 0;
	case OPT_FAULT_STARVE:
		/* PID 1 and the kernel's own threads are never a sensible victim. */
		if (scxk_parse_u64(arg, &u) || u < 2 || u > 4194304 /* PID_MAX_LIMIT */)
			return bad(cli, "--fault-starve-tgid: '%s' is not a process id in 2..4194304%s",
				   arg, "");
		c->fault_starve_tgid = u;
		return 0;
	}
	return -EINVAL;
}

int scxk_cli_parse(const struct scxk_cli *cli, int argc, char **argv,
		   struct scxk_common_opts *common)
{
	struct option lopts[128];
	char sopts[128] = ":";
	const struct scxk_opt *o;
	int nr = 0, own = 0, c, err;
	size_t i, sl = 1;

	memset(common, 0, sizeof(*common));
	common->exit_dump_len = SCXK_UEI_DUMP_DFL_LEN;
	common->stats_path = SCXK_STATS_DEFAULT_PATH;

	for (o = cli->opts; o && o->name; o++, own++) {
		int has_arg = o->type == SCXK_OPT_FLAG ? no_argument : required_argument;

		lopts[nr++] = (struct option){ o->name, has_arg, NULL,
					       o->short_opt ? o->short_opt : OPT_FIRST_OWN + own };
		if (o->short_opt && sl < sizeof(sopts) - 3) {
			sopts[sl++] = (char)o->short_opt;
			if (has_arg == required_argument)
				sopts[sl++] = ':';
		}
	}
	for (i = 0; i < NR_COMMON; i++)
		lopts[nr++] = (struct option){ common_opts[i].name,
					       common_opts[i].metavar ? required_argument : no_argument,
					       NULL, common_opts[i].id };
	lopts[nr] = (struct option){ 0 };
	strncat(sopts, "vVh", sizeof(sopts) - sl - 1);

	/*
	 * 0, not 1: glibc then also forgets its position inside a previous
	 * argv's "-abc" cluster, which would otherwise point into memory a
	 * second caller (tests, fuzzing) may have freed.
	 */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == '?')
			return bad(cli, "unknown option '%s'%s", argv[optind - 1], "");
		if (c == ':')
			return bad(cli, "option '%s' needs a value%s", argv[optind - 1], "");
		if (c == 'h') {
			scxk_cli_usage(cli, stdout);
			return SCXK_CLI_DONE;
		}
		if (c == 'V') {
			printf("%s %s\n", cli->prog, SCXK_VERSION);
			return SCXK_CLI_DONE;
		}
		if (c == OPT_HELP_MAN) {
			print_man(cli, stdout);
			return SCXK_CLI_DONE;
		}
		if (c == 'v') {
			common->verbose++;
			continue;
		}
		if (c >= OPT_STATS && c < OPT_FIRST_OWN) {
			if ((err = set_common(cli, c, optarg, common)))
				return err;
			continue;
		}
		own = 0;
		for (o = cli->opts; o && o->name; o++, own++) {
			if (c == (o->short_opt ? o->short_opt : OPT_FIRST_OWN + own))
				break;
		}
		if (!o || !o->name)
			return bad(cli, "unknown option '%s'%s", argv[optind - 1], "");
		if ((err = set_opt(cli, o, optarg)))
			return err;
	}
	for (; optind < argc && cli->positional; optind++)
		if (cli->positional(argv[optind]))
			return bad(cli, "invalid argument '%.200s'%s", argv[optind], "");
	if (optind < argc)
		return bad(cli, "unexpected argument '%s'%s", argv[optind], "");
	if (common->stats_interval && common->monitor_interval)
		return bad(cli, "--stats and --monitor exclude each other%s%s", "", "");
	scxk_log_setup(cli->prog, common->verbose);
	return 0;
}
