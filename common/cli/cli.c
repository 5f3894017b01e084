// SPDX-License-Identifier: GPL-2.0-only
/*
 * The option table interpreter: getopt_long, --help, --help-man and strict
 * value parsing. Values are checked here so that every bad flag of every
 * binary fails the same way: one line on stderr, exit 2, kernel untouched.
 * A scheduler's table gets the scheduler options added (scxk_cli_parse());
 * any other binary's, only help and version (scxk_cli_parse_opts(): the
 * bench workloads, which link this file and log.c alone, without libbpf).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <scxkit/cli.h>
#include <scxkit/log.h>
#include <scxkit/stats.h>
#include <scxkit/uei.h>

/* Longest --stats/--monitor interval: a day. */
#define SCXK_MAX_INTERVAL_S 86400

#ifndef SCXK_VERSION
#define SCXK_VERSION "unknown"
#endif

/* Long-only options get ids above any character. */
enum {
	OPT_STATS = 0x100,
	OPT_MONITOR,
	OPT_MONITOR_COUNT,
	OPT_MONITOR_FORMAT,
	OPT_HELP_STATS,
	OPT_EXIT_DUMP_LEN,
	OPT_PARTIAL,
	OPT_STATS_SOCKET,
	OPT_HELP_MAN,
	OPT_FAULT_STARVE,
	OPT_CHECK_ARGS,
	OPT_HELP_OPTIONS,
	OPT_FEATURES,
	OPT_LOG_LEVEL,
	OPT_RUN_ID,
	OPT_RELAXED_MAPS,
	OPT_PIN_ROOT_PATH,
	OPT_KCONFIG,
	OPT_BTF_CUSTOM_PATH,
	OPT_BPF_TOKEN_PATH,
	OPT_HELP_UPSTREAM,
	OPT_MODE_FLAGS,
	OPT_FIRST_OWN, /* the binary's own long-only options start here */
};

/* An option the engine adds to a binary's table (id in short_opt). */
struct added_opt {
	const char *name;
	int id;
	const char *metavar;
	enum scxk_opt_type type;
	uint64_t min, max;
	const char *help;
	const char *dfl;
	bool optval; /* as scxk_opt.optval: --relaxed-maps[=BOOL] */
};

/* Help texts of the options both sets below have. */
#define HELP_VERSION "print the version and exit"
#define HELP_HELP    "print this help and exit"
#define HELP_HELP_OPTIONS                                                                          \
	"print every option's name, type, short form, range and choices, one per line (for "       \
	"tests)"

/*
 * The shared options of every scheduler, documented like a binary's own.
 * Types and ranges are what set_common() enforces, and what --help-options
 * tells the bad-input tests.
 */
static const struct added_opt common_opts[] = {
	{"stats", OPT_STATS, "SEC", SCXK_OPT_DOUBLE, 0, SCXK_MAX_INTERVAL_S,
	 "run the scheduler and print its stats every SEC seconds", "off"},
	{"monitor", OPT_MONITOR, "SEC", SCXK_OPT_DOUBLE, 0, SCXK_MAX_INTERVAL_S,
	 "print the stats of the running scheduler every SEC seconds; never loads BPF", "off"},
	{"monitor-count", OPT_MONITOR_COUNT, "N", SCXK_OPT_U64, 0, 0,
	 "with --monitor, stop after N prints", "0 (forever)"},
	{"monitor-format", OPT_MONITOR_FORMAT, "FMT", SCXK_OPT_STRING, 0, 0,
	 "how --monitor and --stats print: human (a table with units and rates), kv (one "
	 "key=value line per read, for scripts) or auto (human on a terminal, else kv)",
	 "auto"},
	{"help-stats", OPT_HELP_STATS, NULL, SCXK_OPT_FLAG, 0, 0, "describe every stat and exit",
	 NULL},
	/* Above 16 MiB the dump buffer would not fit one map value. 0, as upstream. */
	{"exit-dump-len", OPT_EXIT_DUMP_LEN, "BYTES", SCXK_OPT_U64, 0, 16U << 20,
	 "size of the kernel's debug dump kept on an error exit (0: the default)", "32768"},
	{"partial", OPT_PARTIAL, NULL, SCXK_OPT_FLAG, 0, 0,
	 "schedule only tasks that set SCHED_EXT; others stay on the fair class", NULL},
	{"stats-socket", OPT_STATS_SOCKET, "PATH", SCXK_OPT_STRING, 0, 0, "stats socket path",
	 SCXK_STATS_DEFAULT_PATH},
	{"verbose", 'v', NULL, SCXK_OPT_FLAG, 0, 0, "more output; twice adds libbpf's debug output",
	 NULL},
	{"version", 'V', NULL, SCXK_OPT_FLAG, 0, 0, HELP_VERSION, NULL},
	/* Upstream's spellings (scx_utils), so their command lines keep working. */
	{"log-level", OPT_LOG_LEVEL, "LEVEL", SCXK_OPT_CUSTOM, 0, 0,
	 "upstream's verbosity: error, warn, info, debug or trace, or tracing directives such "
	 "as 'info,scx_lavd=debug' (the most verbose level counts; debug is -v, trace -vv)",
	 "info"},
	{"run-id", OPT_RUN_ID, "ID", SCXK_OPT_U64, 0, 0,
	 "a tag for this run, logged when it starts", "none"},
	/* libbpf's options for opening the object, as upstream's loaders pass them. */
	/* A bool upstream: --relaxed-maps true; alone it means true here. */
	{"relaxed-maps", OPT_RELAXED_MAPS, NULL, SCXK_OPT_FLAG, 0, 0,
	 "libbpf: parse map definitions non-strictly (upstream's '--relaxed-maps true|false' too)",
	 NULL, true},
	{"pin-root-path", OPT_PIN_ROOT_PATH, "PATH", SCXK_OPT_STRING, 0, 0,
	 "libbpf: the directory maps with a pinning attribute are pinned in", "/sys/fs/bpf"},
	{"kconfig", OPT_KCONFIG, "TEXT", SCXK_OPT_STRING, 0, 0,
	 "libbpf: CONFIG_X=VALUE lines that override the kernel's config for the object's "
	 "CONFIG_ externs",
	 "none"},
	{"btf-custom-path", OPT_BTF_CUSTOM_PATH, "PATH", SCXK_OPT_STRING, 0, 0,
	 "libbpf: the kernel BTF file CO-RE relocations use", "/sys/kernel/btf/vmlinux"},
	{"bpf-token-path", OPT_BPF_TOKEN_PATH, "PATH", SCXK_OPT_STRING, 0, 0,
	 "libbpf: a BPF file system mount to derive a BPF token from", "libbpf's default"},
	{"features", OPT_FEATURES, NULL, SCXK_OPT_FLAG, 0, 0,
	 "list the kernel features this scheduler uses (ops flags, callbacks, kfuncs) and "
	 "whether the running kernel (or --btf-custom-path's) has each, then exit 0 if it runs "
	 "there, 2 if it would be refused; loads nothing",
	 NULL},
	{"help", 'h', NULL, SCXK_OPT_FLAG, 0, 0, HELP_HELP, NULL},
	{"help-man", OPT_HELP_MAN, NULL, SCXK_OPT_FLAG, 0, 0,
	 "print the OPTIONS section of the man page (scdoc)", NULL},
	{"help-options", OPT_HELP_OPTIONS, NULL, SCXK_OPT_FLAG, 0, 0, HELP_HELP_OPTIONS, NULL},
	{"help-upstream", OPT_HELP_UPSTREAM, NULL, SCXK_OPT_FLAG, 0, 0,
	 "print the upstream scheduler's options and what each becomes here (Markdown table "
	 "rows, as in the README)",
	 NULL},
	{"mode-flags", OPT_MODE_FLAGS, "MODE", SCXK_OPT_STRING, 0, 0,
	 "print the flags of MODE (" SCXK_MODE_NAMES "), one per line, and exit; "
	 "scxctl --mode and the org.scx.Loader service use them",
	 NULL},
	{"check-args", OPT_CHECK_ARGS, NULL, SCXK_OPT_FLAG, 0, 0,
	 "only parse the options, print their values (name=value) and exit; reads no file and "
	 "writes nothing",
	 NULL},
#ifdef SCXK_FAULT_INJECTION
	/* PID 1 and the kernel's own threads are never a sensible victim. */
	{"fault-starve-tgid", OPT_FAULT_STARVE, "TGID", SCXK_OPT_U64, 2,
	 4194304 /* PID_MAX_LIMIT */,
	 "TEST BUILD ONLY: never run the tasks of process TGID, so the kernel's watchdog "
	 "ejects the scheduler",
	 "off"},
#endif
};

/*
 * What scxk_cli_parse_opts() adds for a binary that is not a scheduler
 * (the bench workloads): help, version and the table for tests, nothing
 * that loads or watches a scheduler.
 */
static const struct added_opt tool_opts[] = {
	{"help", 'h', NULL, SCXK_OPT_FLAG, 0, 0, HELP_HELP, NULL},
	{"version", 'V', NULL, SCXK_OPT_FLAG, 0, 0, HELP_VERSION, NULL},
	{"help-options", OPT_HELP_OPTIONS, NULL, SCXK_OPT_FLAG, 0, 0, HELP_HELP_OPTIONS, NULL},
};

/* One of the two sets, and whether it is the scheduler's. */
struct added {
	const struct added_opt *opts;
	size_t nr;
	bool sched;
};

#define NR_COMMON (sizeof(common_opts) / sizeof(common_opts[0]))
#define NR_TOOL	  (sizeof(tool_opts) / sizeof(tool_opts[0]))
static const struct added sched_added = {common_opts, NR_COMMON, true};
static const struct added tool_added = {tool_opts, NR_TOOL, false};

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

int scxk_parse_virt_llc(const char *arg, void *dest)
{
	char buf[48], *dash;
	uint64_t lo, hi;

	(void)dest;
	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	dash = strchr(buf, '-');
	if (!dash)
		return -EINVAL;
	*dash = '\0';
	if (scxk_parse_u64(buf, &lo) || scxk_parse_u64(dash + 1, &hi) || !lo || lo > hi)
		return -EINVAL;
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

/* Column of the help text in --help (scxctl uses a narrower one). */
#define HELP_COLUMN 32

void scxk_cli_print_help_opt(FILE *f, int width, int short_opt, const char *name,
			     const char *metavar, const char *help, const char *dfl,
			     const char *const *choices)
{
	char lhs[64];
	int n;

	if (short_opt > 0 && short_opt < 0x100)
		n = snprintf(lhs, sizeof(lhs), "  -%c, --%s", short_opt, name);
	else
		n = snprintf(lhs, sizeof(lhs), "      --%s", name);
	if (metavar && n < (int)sizeof(lhs))
		snprintf(lhs + n, sizeof(lhs) - n, "=%s", metavar);
	fprintf(f, "%-*s %s", width, lhs, help);
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

static bool has_ignored(const struct scxk_cli *cli)
{
	for (const struct scxk_opt *o = cli->opts; o && o->name; o++)
		if (o->ignored)
			return true;
	return false;
}

static void usage(const struct scxk_cli *cli, const struct added *add, FILE *f)
{
	const struct scxk_opt *o;
	char buf[64];
	size_t i;

	fprintf(f, "Usage: %s [OPTIONS]%s%s\n\n%s\n\nOptions:\n", cli->prog,
		cli->positional && cli->args ? " " : "",
		cli->positional && cli->args ? cli->args : "", cli->summary);
	for (o = cli->opts; o && o->name; o++)
		if (o->type != SCXK_OPT_COMMON && !o->ignored)
			scxk_cli_print_help_opt(f, HELP_COLUMN, o->short_opt, o->name, o->metavar,
						o->help, opt_dfl(o, buf, sizeof(buf)), o->choices);
	if (has_ignored(cli))
		fputs("\nUpstream options accepted and ignored (see --help-upstream):\n", f);
	for (o = cli->opts; o && o->name; o++)
		if (o->ignored)
			scxk_cli_print_help_opt(f, HELP_COLUMN, o->short_opt, o->name, o->metavar,
						o->ignored, NULL, NULL);
	/* A tool's few added options close its own list. */
	if (add->sched)
		fputs("\nCommon options:\n", f);
	for (i = 0; i < add->nr; i++)
		scxk_cli_print_help_opt(f, HELP_COLUMN, add->opts[i].id, add->opts[i].name,
					add->opts[i].metavar, add->opts[i].help, add->opts[i].dfl,
					NULL);
	if (add->sched)
		fputs("\nEnvironment:\n"
		      "  SCX_TIMEOUT_MS     watchdog timeout the kernel enforces on the scheduler\n"
		      "  SCX_SYSFS_PREFIX   root under which sysfs is read (for tests)\n",
		      f);
	if (cli->examples)
		fprintf(f, "\nExamples:\n%s", cli->examples);
	if (add->sched)
		fputs("\nExit status: 0 clean detach, 1 failure or ejection by the kernel, 2 usage "
		      "error.\n",
		      f);
	else
		fputs("\nExit status: 0 success, 1 failure, 2 usage error.\n", f);
}

void scxk_cli_usage(const struct scxk_cli *cli, FILE *f)
{
	usage(cli, &sched_added, f);
}

void scxk_cli_print_man_opt(FILE *f, int short_opt, const char *name, const char *metavar,
			    const char *help, const char *dfl)
{
	size_t len = strlen(help);

	if (short_opt > 0 && short_opt < 0x100)
		fprintf(f, "*-%c*, ", short_opt);
	fprintf(f, "*--%s*", name);
	if (metavar)
		fprintf(f, "=_%s_", metavar);
	fprintf(f, "\n\t%s%s", help, len && help[len - 1] == '.' ? "" : ".");
	if (dfl)
		fprintf(f, " Default: %s.", dfl);
	fputs("\n\n", f);
}

/* scdoc text for the man page, generated from the same table as --help. */
static void print_man(const struct scxk_cli *cli, FILE *f)
{
	const struct scxk_opt *o;
	char buf[64];
	size_t i;

	for (o = cli->opts; o && o->name; o++) {
		char why[512];

		if (o->type == SCXK_OPT_COMMON)
			continue;
		if (o->ignored)
			snprintf(why, sizeof(why), "Upstream's; accepted and ignored: %s",
				 o->ignored);
		scxk_cli_print_man_opt(f, o->short_opt, o->name, o->metavar,
				       o->ignored ? why : o->help,
				       o->ignored ? NULL : opt_dfl(o, buf, sizeof(buf)));
	}
	for (i = 0; i < NR_COMMON; i++)
		scxk_cli_print_man_opt(f, common_opts[i].id, common_opts[i].name,
				       common_opts[i].metavar, common_opts[i].help,
				       common_opts[i].dfl);
}

static const char *type_name(enum scxk_opt_type type)
{
	switch (type) {
	case SCXK_OPT_FLAG:
		return "flag";
	case SCXK_OPT_U64:
		return "u64";
	case SCXK_OPT_DOUBLE:
		return "double";
	case SCXK_OPT_STRING:
		return "string";
	case SCXK_OPT_CHOICE:
		return "choice";
	case SCXK_OPT_CUSTOM:
		return "custom";
	case SCXK_OPT_COMMON:
		return "common";
	}
	return "?";
}

/*
 * --help-options: "NAME TYPE SHORT METAVAR MIN MAX CHOICES", '-' for what
 * an option lacks (MAX '-' means no limit; CHOICES joined by '|'), so
 * tests derive bad values from the same table the parser enforces.
 */
static void print_opt_line(FILE *f, const char *name, enum scxk_opt_type type, int short_opt,
			   const char *metavar, uint64_t min, uint64_t max,
			   const char *const *choices)
{
	bool ranged = type == SCXK_OPT_U64 || type == SCXK_OPT_DOUBLE;

	fprintf(f, "%s %s ", name, type_name(type));
	if (short_opt > 0 && short_opt < 0x100)
		fprintf(f, "%c ", short_opt);
	else
		fputs("- ", f);
	fprintf(f, "%s ", metavar ? metavar : "-");
	if (ranged)
		fprintf(f, "%" PRIu64 " ", min);
	else
		fputs("- ", f);
	if (ranged && max)
		fprintf(f, "%" PRIu64 " ", max);
	else
		fputs("- ", f);
	if (choices && choices[0]) {
		for (int i = 0; choices[i]; i++)
			fprintf(f, "%s%s", i ? "|" : "", choices[i]);
	} else {
		fputc('-', f);
	}
	fputc('\n', f);
}

static void print_options(const struct scxk_cli *cli, const struct added *add, FILE *f)
{
	const struct scxk_opt *o;
	size_t i;

	for (o = cli->opts; o && o->name; o++)
		if (o->type != SCXK_OPT_COMMON)
			print_opt_line(f, o->name, o->type, o->short_opt, o->metavar, o->min,
				       o->max, o->type == SCXK_OPT_CHOICE ? o->choices : NULL);
	for (i = 0; i < add->nr; i++)
		print_opt_line(f, add->opts[i].name, add->opts[i].type, add->opts[i].id,
			       add->opts[i].metavar, add->opts[i].min, add->opts[i].max, NULL);
}

int scxk_cli_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry '%s --help'\n", prog);
	return -EINVAL;
}

static int bad(const struct scxk_cli *cli, const char *fmt, const char *a, const char *b)
{
	return scxk_cli_error(cli->prog, fmt, a, b);
}

/* upstream's bools (clap's BoolishValueParser is stricter: true or false only) */
static int parse_bool(const char *arg, bool *out)
{
	if (!strcmp(arg, "true"))
		*out = true;
	else if (!strcmp(arg, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/*
 * Check @arg as @o's type says and store it, unless @o is an ignored
 * upstream option (no @dest). A FLAG's @arg is NULL, or its optional value.
 */
static int set_opt(const struct scxk_cli *cli, const struct scxk_opt *o, const char *arg)
{
	bool store = o->dest, b = true;
	uint64_t u;
	double d;
	int err;

	switch (o->type) {
	case SCXK_OPT_FLAG:
		if (arg && (o->parse ? o->parse(arg, o->dest) : parse_bool(arg, &b)))
			return bad(cli, "--%s: invalid value '%s'", o->name, arg);
		if (store && !o->parse)
			*(bool *)o->dest = b;
		return 0;
	case SCXK_OPT_U64:
		if ((err = scxk_parse_u64(arg, &u)))
			return bad(cli, "--%s: '%s' is not a non-negative integer", o->name, arg);
		if (u < o->min || (o->max && u > o->max)) {
			char range[64];

			snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, o->min, o->max);
			return bad(cli, "--%s: value out of range %s", o->name, range);
		}
		if (store)
			*(uint64_t *)o->dest = u;
		return 0;
	case SCXK_OPT_DOUBLE:
		if ((err = scxk_parse_double(arg, &d)))
			return bad(cli, "--%s: '%s' is not a non-negative number", o->name, arg);
		if (d < (double)o->min || (o->max && d > (double)o->max))
			return bad(cli, "--%s: '%s' is out of range", o->name, arg);
		if (store)
			*(double *)o->dest = d;
		return 0;
	case SCXK_OPT_STRING:
		if (!*arg)
			return bad(cli, "--%s: empty value%s", o->name, "");
		if (store)
			*(const char **)o->dest = arg;
		return 0;
	case SCXK_OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (!strcmp(arg, o->choices[i])) {
				if (store)
					*(const char **)o->dest = o->choices[i];
				return 0;
			}
		}
		return bad(cli, "--%s: unknown value '%s'", o->name, arg);
	case SCXK_OPT_CUSTOM:
		if ((err = o->parse(arg, o->dest)))
			return bad(cli, "--%s: invalid value '%s'", o->name, arg);
		return 0;
	case SCXK_OPT_COMMON:
		break;
	}
	return -EINVAL;
}

/*
 * upstream's --log-level takes a tracing EnvFilter: a comma-separated list
 * of "level" or "target=level" directives. scxkit has one log, so the most
 * verbose level named is its verbosity (error and warn print what info does:
 * errors and warnings always print).
 */
int scxk_parse_log_level(const char *arg, int *verbose)
{
	static const char *const names[] = {"off", "error", "warn", "info", "debug", "trace"};
	static const int verbosity[] = {0, 0, 0, 0, 1, 2};
	char buf[256], *save = NULL, *d;
	int best = -1;

	if (!arg || !*arg || strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	for (d = strtok_r(buf, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		const char *lvl = strrchr(d, '=') ? strrchr(d, '=') + 1 : d;
		size_t i;

		if (strrchr(d, '=') == d)
			return -EINVAL; /* "=debug": no target */
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcasecmp(lvl, names[i]))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		if (verbosity[i] > best)
			best = verbosity[i];
	}
	if (best < 0)
		return -EINVAL;
	*verbose = best;
	return 0;
}

/* "-L --slice-min-us" as "`-L`, `--slice-min-us`" */
static void print_spellings(FILE *f, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, " ");

		fprintf(f, "%s`%.*s`", p == list ? "" : ", ", (int)len, p);
		p += len;
		p += strspn(p, " ");
	}
}

/*
 * --help-upstream: the README's table, from the same declarations the
 * parser uses (tests/upstream/test_upstream_args.py checks every README
 * holds exactly these rows).
 */
static void print_upstream(const struct scxk_cli *cli, FILE *f)
{
	const struct scxk_opt *o;
	char own[128];

	fputs("| upstream | here |\n|---|---|\n", f);
	for (o = cli->opts; o && o->name; o++) {
		if (!o->upstream && !o->ignored)
			continue;
		fputs("| ", f);
		if (o->upstream) {
			print_spellings(f, o->upstream);
		} else {
			if (o->short_opt > 0 && o->short_opt < 0x100)
				fprintf(f, "`-%c`, ", o->short_opt);
			fprintf(f, "`--%s`", o->name);
		}
		if (o->ignored) {
			fprintf(f, " | accepted, ignored: %s |\n", o->ignored);
			continue;
		}
		if (o->short_opt > 0 && o->short_opt < 0x100 && o->type != SCXK_OPT_COMMON)
			snprintf(own, sizeof(own), "`-%c`, `--%s`", o->short_opt, o->name);
		else
			snprintf(own, sizeof(own), "`--%s`", o->name);
		fprintf(f, " | %s%s%s |\n", own, o->note ? "; " : "", o->note ? o->note : "");
	}
	fputs("| `--stats`, `--monitor`, `--help-stats`, `--exit-dump-len`, `-v`, `-V`, "
	      "`--log-level`, `--run-id`, `--relaxed-maps`, `--pin-root-path`, `--kconfig`, "
	      "`--btf-custom-path`, `--bpf-token-path` (where upstream has them) | the same "
	      "(common options); `--exit-dump-len 0` is the default length, `--log-level` sets "
	      "the verbosity |\n",
	      f);
}

static const char *flag_str(bool b)
{
	return b ? "true" : "false";
}

void scxk_cli_print_values(const struct scxk_cli *cli, const struct scxk_common_opts *c, FILE *f)
{
	const struct scxk_opt *o;
	char buf[128];
	const char *v;

	for (o = cli->opts; o && o->name; o++) {
		if (o->type == SCXK_OPT_COMMON || o->ignored || !o->dest)
			continue;
		switch (o->type) {
		case SCXK_OPT_FLAG:
			v = flag_str(*(bool *)o->dest);
			break;
		case SCXK_OPT_U64:
			snprintf(buf, sizeof(buf), "%" PRIu64, *(uint64_t *)o->dest);
			v = buf;
			break;
		case SCXK_OPT_DOUBLE:
			snprintf(buf, sizeof(buf), "%g", *(double *)o->dest);
			v = buf;
			break;
		case SCXK_OPT_CUSTOM:
			v = o->show ? o->show(o->dest, buf, sizeof(buf)) : NULL;
			break;
		default:
			v = *(const char **)o->dest;
			break;
		}
		fprintf(f, "%s=%s\n", o->name, v ? v : "-");
	}
	fprintf(f, "partial=%s\nexit-dump-len=%" PRIu64 "\nverbose=%d\n", flag_str(c->partial),
		c->exit_dump_len, c->verbose);
	fprintf(f, "stats=%g\nmonitor=%g\nstats-socket=%s\n", c->stats_interval,
		c->monitor_interval, c->stats_path);
	if (c->has_run_id)
		fprintf(f, "run-id=%" PRIu64 "\n", c->run_id);
	else
		fputs("run-id=-\n", f);
	fprintf(f, "relaxed-maps=%s\n", flag_str(c->relaxed_maps));
	fprintf(f, "pin-root-path=%s\nkconfig=%s\nbtf-custom-path=%s\nbpf-token-path=%s\n",
		c->pin_root_path ? c->pin_root_path : "-", c->kconfig ? c->kconfig : "-",
		c->btf_custom_path ? c->btf_custom_path : "-",
		c->bpf_token_path ? c->bpf_token_path : "-");
}

static int common_index(int id)
{
	for (size_t i = 0; i < NR_COMMON; i++)
		if (common_opts[i].id == id)
			return (int)i;
	return -1;
}

static int set_common(const struct scxk_cli *cli, int id, const char *arg,
		      struct scxk_common_opts *c)
{
	int idx = common_index(id);
	char why[160];
	double d = 0;
	uint64_t u = 0;

	if (idx < 0)
		return -EINVAL;
	switch (common_opts[idx].type) {
	case SCXK_OPT_DOUBLE:
		/* Intervals: 0 would mean "as fast as possible", never wanted. */
		if (scxk_parse_double(arg, &d) || d <= common_opts[idx].min ||
		    d > common_opts[idx].max) {
			snprintf(why, sizeof(why),
				 "'%.64s' is not an interval in seconds (0 < SEC <= %" PRIu64 ")",
				 arg, common_opts[idx].max);
			return bad(cli, "--%s: %s", common_opts[idx].name, why);
		}
		break;
	case SCXK_OPT_U64:
		if (scxk_parse_u64(arg, &u) || u < common_opts[idx].min ||
		    (common_opts[idx].max && u > common_opts[idx].max)) {
			if (common_opts[idx].max)
				snprintf(why, sizeof(why),
					 "'%.64s' is not an integer in %" PRIu64 "..%" PRIu64, arg,
					 common_opts[idx].min, common_opts[idx].max);
			else
				snprintf(why, sizeof(why), "'%.64s' is not a non-negative integer",
					 arg);
			return bad(cli, "--%s: %s", common_opts[idx].name, why);
		}
		break;
	default:
		break;
	}
	switch (id) {
	case OPT_STATS:
		c->stats_interval = d;
		return 0;
	case OPT_MONITOR:
		c->monitor_interval = d;
		return 0;
	case OPT_MONITOR_COUNT:
		c->monitor_count = u;
		return 0;
	case OPT_MONITOR_FORMAT:
		/* the values of enum scxk_stats_format, spelt out: this file stays libc-only */
		if (!strcmp(arg, "auto"))
			c->monitor_format = SCXK_STATS_FMT_AUTO;
		else if (!strcmp(arg, "kv"))
			c->monitor_format = SCXK_STATS_FMT_KV;
		else if (!strcmp(arg, "human"))
			c->monitor_format = SCXK_STATS_FMT_HUMAN;
		else
			return bad(cli, "--monitor-format: '%.64s' is not auto, kv or human%s", arg,
				   "");
		return 0;
	case OPT_EXIT_DUMP_LEN:
		c->exit_dump_len = u ? u : SCXK_UEI_DUMP_DFL_LEN;
		return 0;
	case OPT_LOG_LEVEL:
		return scxk_parse_log_level(arg, &c->verbose)
			       ? bad(cli,
				     "--log-level: '%.64s' is not a level (error, warn, info, "
				     "debug, "
				     "trace) or a list of [target=]level directives%s",
				     arg, "")
			       : 0;
	case OPT_RUN_ID:
		c->run_id = u;
		c->has_run_id = true;
		return 0;
	case OPT_RELAXED_MAPS:
		c->relaxed_maps = true;
		if (arg && parse_bool(arg, &c->relaxed_maps))
			return bad(cli, "--relaxed-maps: '%.64s' is not true or false%s", arg, "");
		return 0;
	case OPT_PIN_ROOT_PATH:
	case OPT_KCONFIG:
	case OPT_BTF_CUSTOM_PATH:
	case OPT_BPF_TOKEN_PATH:
		if (!*arg)
			return bad(cli, "--%s: empty value%s", common_opts[idx].name, "");
		*(id == OPT_PIN_ROOT_PATH     ? &c->pin_root_path
		  : id == OPT_KCONFIG	      ? &c->kconfig
		  : id == OPT_BTF_CUSTOM_PATH ? &c->btf_custom_path
					      : &c->bpf_token_path) = arg;
		return 0;
	case OPT_PARTIAL:
		c->partial = true;
		return 0;
	case OPT_STATS_SOCKET:
		if (!*arg || strlen(arg) >= 108 /* sun_path */)
			return bad(cli, "--stats-socket: '%s' is not a usable socket path%s", arg,
				   "");
		c->stats_path = arg;
		return 0;
	case OPT_HELP_STATS:
		c->help_stats = true;
		return 0;
	case OPT_CHECK_ARGS:
		c->check_args = true;
		return 0;
	case OPT_FEATURES:
		c->features = true;
		return 0;
	case OPT_FAULT_STARVE:
		c->fault_starve_tgid = u;
		return 0;
	}
	return -EINVAL;
}

/*
 * The getopt tables of one parse: the binary's options, the added set, and
 * the upstream spellings of the binary's options (aliases). @shorts maps a
 * short letter to the value parse() dispatches on.
 */
struct tables {
	struct option lopts[256];
	char sopts[160];
	int nr_long;
	size_t nr_short;
	int shorts[256];
	char names[4096]; /* the aliases' long names */
	size_t used;
};

static int own_val(const struct scxk_opt *o, int own)
{
	return o->short_opt ? o->short_opt : OPT_FIRST_OWN + own;
}

static int long_has_arg(bool flag, bool optval)
{
	if (optval)
		return optional_argument;
	return flag ? no_argument : required_argument;
}

static void add_long(struct tables *t, const char *name, int has_arg, int val)
{
	if (t->nr_long < (int)(sizeof(t->lopts) / sizeof(t->lopts[0])) - 1)
		t->lopts[t->nr_long++] = (struct option){name, has_arg, NULL, val};
}

static void add_short(struct tables *t, int c, bool has_arg, int val)
{
	if (c <= 0 || c >= 0x100 || t->shorts[c] || t->nr_short >= sizeof(t->sopts) - 3)
		return;
	t->sopts[t->nr_short++] = (char)c;
	if (has_arg)
		t->sopts[t->nr_short++] = ':';
	t->shorts[c] = val;
}

/* The aliases in @o->upstream ("-L --slice-min-us"); their storage is static. */
static void add_upstream(struct tables *t, const struct scxk_opt *o, int val, bool has_arg)
{
	const char *p = o->upstream;

	while (p && *p) {
		size_t len = strcspn(p, " ");

		if (len == 2 && p[0] == '-' && p[1] != '-') {
			add_short(t, (unsigned char)p[1], has_arg, val);
		} else if (len > 2 && !strncmp(p, "--", 2) &&
			   (strlen(o->name) != len - 2 || strncmp(p + 2, o->name, len - 2)) &&
			   t->used + len < sizeof(t->names)) {
			char *name = t->names + t->used;

			memcpy(name, p + 2, len - 2);
			name[len - 2] = '\0';
			add_long(t, name, long_has_arg(!has_arg, o->optval), val);
			t->used += len - 1;
		}
		p += len;
		p += strspn(p, " ");
	}
}

static void build_tables(const struct scxk_cli *cli, const struct added *add, struct tables *t)
{
	const struct scxk_opt *o;
	size_t i;
	int own = 0;

	memset(t, 0, sizeof(*t));
	t->sopts[t->nr_short++] = ':';
	add_short(t, 'h', false, 'h');
	add_short(t, 'V', false, 'V');
	if (add->sched)
		add_short(t, 'v', false, 'v');
	for (i = 0; i < add->nr; i++)
		add_long(t, add->opts[i].name,
			 long_has_arg(!add->opts[i].metavar, add->opts[i].optval), add->opts[i].id);
	for (o = cli->opts; o && o->name; o++, own++) {
		bool flag = o->type == SCXK_OPT_FLAG;

		if (o->type == SCXK_OPT_COMMON) {
			/* upstream's letter for a common option: dispatch as its id */
			for (i = 0; i < add->nr; i++)
				if (!strcmp(add->opts[i].name, o->name))
					add_short(t, o->short_opt, add->opts[i].metavar,
						  add->opts[i].id);
			continue;
		}
		add_long(t, o->name, long_has_arg(flag, o->optval), own_val(o, own));
		add_short(t, o->short_opt, !flag, own_val(o, own));
		add_upstream(t, o, own_val(o, own), !flag);
	}
	t->lopts[t->nr_long] = (struct option){0};
}

/*
 * A FLAG with an optional value also takes upstream's separate word
 * ("--relaxed-maps true"); a multi-value option the words up to the next
 * option. Moving optind over them is what getopt does for a value.
 */
static const char *next_word(int argc, char **argv, bool bool_only)
{
	const char *w = optind < argc ? argv[optind] : NULL;

	if (!w || w[0] == '-' || (bool_only && strcmp(w, "true") && strcmp(w, "false")))
		return NULL;
	optind++;
	return w;
}

static void notice_ignored(const struct scxk_cli *cli, const struct scxk_opt *o)
{
	fprintf(stderr, "%s: note: upstream's --%s is accepted and ignored: %s\n", cli->prog,
		o->name, o->ignored);
}

/* @common is NULL for the tool set (scxk_cli_parse_opts()), set for a scheduler's. */
/* --mode-flags MODE: the scheduler's declaration of MODE, one flag per line. */
static int print_mode_flags(const struct scxk_cli *cli, const char *arg, FILE *f)
{
	int m = scxk_mode_parse(arg);

	if (m < 0)
		return bad(cli, "--mode-flags: '%.64s' is not a mode (%s)", arg, SCXK_MODE_NAMES);
	for (const char *const *w = cli->modes[m]; w && *w; w++)
		fprintf(f, "%s\n", *w);
	return SCXK_CLI_DONE;
}

static int parse(const struct scxk_cli *cli, const struct added *add, int argc, char **argv,
		 struct scxk_common_opts *common)
{
	static struct tables t;
	const struct scxk_opt *o;
	const char *arg, *w;
	int own, c, err;

	if (common) {
		memset(common, 0, sizeof(*common));
		common->exit_dump_len = SCXK_UEI_DUMP_DFL_LEN;
		common->stats_path = SCXK_STATS_DEFAULT_PATH;
	}
	build_tables(cli, add, &t);

	/*
	 * 0, not 1: glibc then also forgets its position inside a previous
	 * argv's "-abc" cluster, which would otherwise point into memory a
	 * second caller (tests, fuzzing) may have freed.
	 */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, t.sopts, t.lopts, NULL)) != -1) {
		if (c == '?')
			return bad(cli, "unknown option '%s'%s", argv[optind - 1], "");
		if (c == ':')
			return bad(cli, "option '%s' needs a value%s", argv[optind - 1], "");
		if (c > 0 && c < 0x100 && t.shorts[c])
			c = t.shorts[c];
		if (c == 'h') {
			usage(cli, add, stdout);
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
		if (c == OPT_HELP_OPTIONS) {
			print_options(cli, add, stdout);
			return SCXK_CLI_DONE;
		}
		if (common && c == OPT_HELP_UPSTREAM) {
			print_upstream(cli, stdout);
			return SCXK_CLI_DONE;
		}
		if (common && c == OPT_MODE_FLAGS)
			return print_mode_flags(cli, optarg, stdout);
		if (common && c == 'v') {
			common->verbose++;
			continue;
		}
		if (common && c >= OPT_STATS && c < OPT_FIRST_OWN) {
			int idx = common_index(c);

			arg = optarg;
			if (idx >= 0 && common_opts[idx].optval && !arg)
				arg = next_word(argc, argv, true);
			if ((err = set_common(cli, c, arg, common)))
				return err;
			continue;
		}
		own = 0;
		for (o = cli->opts; o && o->name; o++, own++)
			if (o->type != SCXK_OPT_COMMON && c == own_val(o, own))
				break;
		if (!o || !o->name)
			return bad(cli, "unknown option '%s'%s", argv[optind - 1], "");
		arg = optarg;
		if (o->type == SCXK_OPT_FLAG && o->optval && !arg)
			arg = next_word(argc, argv, !o->parse);
		if ((err = set_opt(cli, o, arg)))
			return err;
		while (o->multi && (w = next_word(argc, argv, false)))
			if ((err = set_opt(cli, o, w)))
				return err;
		if (o->ignored)
			notice_ignored(cli, o);
	}
	for (; optind < argc && cli->positional; optind++)
		if (cli->positional(argv[optind]))
			return bad(cli, "invalid argument '%.200s'%s", argv[optind], "");
	if (optind < argc)
		return bad(cli, "unexpected argument '%s'%s", argv[optind], "");
	if (common && common->stats_interval && common->monitor_interval)
		return bad(cli, "--stats and --monitor exclude each other%s%s", "", "");
	scxk_log_setup(cli->prog, common ? common->verbose : 0);
	return 0;
}

int scxk_cli_parse(const struct scxk_cli *cli, int argc, char **argv,
		   struct scxk_common_opts *common)
{
	return parse(cli, &sched_added, argc, argv, common);
}

int scxk_cli_parse_opts(const struct scxk_cli *cli, int argc, char **argv)
{
	return parse(cli, &tool_added, argc, argv, NULL);
}
