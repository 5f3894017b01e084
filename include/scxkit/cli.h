/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli.h - one option table per binary feeds getopt_long, --help, range
 * checks and the man page's OPTIONS section (--help-man), so the four can
 * never disagree. libscxkit appends the options every scheduler shares;
 * binaries that are not schedulers (the bench workloads) use the same
 * table through scxk_cli_parse_opts(), without them.
 */
#ifndef __SCXKIT_CLI_H
#define __SCXKIT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scxkit/mode.h>

enum scxk_opt_type {
	SCXK_OPT_FLAG,	 /* bool, set to true when given */
	SCXK_OPT_U64,	 /* uint64_t in [min, max] */
	SCXK_OPT_DOUBLE, /* double in [min, max] (as integers) */
	SCXK_OPT_STRING, /* const char *, argv's storage */
	SCXK_OPT_CHOICE, /* const char *, one of choices[] */
	SCXK_OPT_CUSTOM, /* parse(arg, dest) validates and stores */
	/*
	 * Not an option of its own: upstream's short spelling of a common
	 * option (name is the common option's, short_opt upstream's letter),
	 * e.g. {"partial", 'p', .type = SCXK_OPT_COMMON} for scx_rusty's -p.
	 */
	SCXK_OPT_COMMON,
};

struct scxk_opt {
	const char *name; /* long name, kebab-case */
	int short_opt;	  /* 0 for none */
	const char *metavar;
	enum scxk_opt_type type;
	void *dest;
	const char *help;
	uint64_t min, max;			   /* for U64 and DOUBLE; max 0 means no limit */
	const char *const *choices;		   /* NULL-terminated, for CHOICE */
	int (*parse)(const char *arg, void *dest); /* for CUSTOM: 0 or -errno */
	const char *dfl; /* default shown in --help; derived from *dest if NULL */
	/*
	 * Upstream compatibility (issue 26, docs/upstream-compat.md). @upstream:
	 * how the upstream counterpart spells this option, space-separated
	 * ("-L --slice-min-us"); spellings that differ from @name and
	 * @short_opt are accepted as aliases. @note: how upstream's values map
	 * ("-1 (disabled) is off"), for the README table.
	 */
	const char *upstream;
	const char *note;
	/*
	 * An upstream option that means nothing here: accepted, its value
	 * checked as @type says, nothing stored (@dest NULL), and one notice
	 * "... accepted and ignored: @ignored" printed to stderr.
	 */
	const char *ignored;
	/* One or more values: the arguments after it up to the next option (-C m1 m2). */
	bool multi;
	/*
	 * The value is optional (upstream's require_equals / Option<bool>): only
	 * --name=VALUE; a FLAG also takes a following "true" or "false" word.
	 * A FLAG's value is checked by @parse when set, else it must be a bool.
	 */
	bool optval;
	/* CUSTOM: the stored value as text, for --check-args' listing (optional) */
	const char *(*show)(const void *dest, char *buf, size_t len);
};

/* Options every scheduler has, filled by scxk_cli_parse(). */
struct scxk_common_opts {
	int verbose;
	bool partial;		 /* SCX_OPS_SWITCH_PARTIAL: only SCHED_EXT tasks */
	uint64_t exit_dump_len;	 /* bytes of debug dump kept on error exits */
	double stats_interval;	 /* --stats: run and print every N s (0 = off) */
	double monitor_interval; /* --monitor: print a running scheduler's stats */
	const char *stats_path;	 /* stats socket */
	bool help_stats;
	/*
	 * --check-args: stop after parsing, before the scheduler's validate(),
	 * which may read config files or act on options (scxctl's pre-check).
	 */
	bool check_args;
	bool features;	 /* --features: list the kernel features found, load nothing */
	uint64_t run_id; /* --run-id (upstream's tag for a run), logged at start */
	bool has_run_id;
	/* libbpf's object-open options (bpf_object_open_opts), NULL: its default */
	bool relaxed_maps; /* --relaxed-maps[=BOOL] */
	const char *pin_root_path;
	const char *kconfig;
	const char *btf_custom_path;
	const char *bpf_token_path;
	uint64_t monitor_count; /* --monitor-count: stop after N prints (tests) */
	int monitor_format;	/* --monitor-format: an enum scxk_stats_format */
	/*
	 * --fault-starve-tgid, only in -Dfault_injection builds: the process
	 * whose tasks the BPF side loses on purpose (include/scxkit/fault.bpf.h).
	 */
	uint64_t fault_starve_tgid;
};

struct scxk_cli {
	const char *prog;      /* "scx_minimal" */
	const char *summary;   /* one line for --help and the man page NAME */
	const char *examples;  /* lines for the Examples: block, may be NULL */
	struct scxk_opt *opts; /* terminated by an entry with name == NULL */
	/*
	 * Positional arguments (optional). Without @positional they are
	 * refused; with it each one is handed to positional(), in order, and
	 * @args names them in --help ("SPEC...").
	 */
	int (*positional)(const char *arg); /* 0 or -EINVAL (then exit 2) */
	const char *args;		    /* metavar in the usage line */
	/*
	 * The flags of each mode (include/scxkit/mode.h), NULL-terminated;
	 * NULL for no flags (Auto: the defaults). --mode-flags MODE prints
	 * them, one per line, which is how scxctl and the D-Bus loader get
	 * them: this table is their only declaration.
	 */
	const char *const *modes[SCXK_NR_MODES];
};

/* Return values of scxk_cli_parse() besides 0 */
#define SCXK_CLI_DONE 1 /* --help/--version/--help-man printed: exit 0 */

/**
 * scxk_parse_log_level - upstream's --log-level (a level, or tracing
 *                        directives "target=level,...") as a -v count
 * Return: 0, or -EINVAL for anything else.
 */
int scxk_parse_log_level(const char *arg, int *verbose);

/**
 * scxk_cli_parse - parse @argv against @cli's table plus the common options
 * @cli: the binary's description and option table
 * @argc, @argv: from main()
 * @common: receives the common options (initialised with defaults here)
 *
 * Return: 0 to go on, SCXK_CLI_DONE when the request was answered (help,
 * version), or -EINVAL after printing one line and a hint to stderr; the
 * caller then exits with SCXK_EXIT_USAGE.
 */
int scxk_cli_parse(const struct scxk_cli *cli, int argc, char **argv,
		   struct scxk_common_opts *common);

/**
 * scxk_cli_parse_opts - parse @argv against @cli's table alone
 * @cli: the binary's description and option table
 * @argc, @argv: from main()
 *
 * For binaries that are not schedulers: the table gets only -h/--help,
 * -V/--version and --help-options, not the scheduler options of
 * scxk_cli_parse(), and --help leaves out the scheduler's environment and
 * exit codes (its summary may span lines: there is no man page to name).
 * Values, ranges and errors are checked and reported as by scxk_cli_parse().
 *
 * Return: 0 to go on, SCXK_CLI_DONE after help or version (exit 0), or
 * -EINVAL after one line and a hint on stderr (exit SCXK_EXIT_USAGE).
 */
int scxk_cli_parse_opts(const struct scxk_cli *cli, int argc, char **argv);

/**
 * scxk_cli_error - report a bad command line as the parser does
 * @prog: the program's name
 * @fmt: printf format of the one line, naming the option or argument
 *
 * For checks the table cannot express (two options that exclude each
 * other, an unknown command): prints "PROG: message" and "try 'PROG
 * --help'" to stderr.
 *
 * Return: -EINVAL; the caller exits with SCXK_EXIT_USAGE.
 */
int scxk_cli_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * scxk_cli_print_values - the parsed options as "name=value" lines
 * @cli: the binary's description and option table
 * @common: the common options as parsed
 * @f: where to print
 *
 * What --check-args prints after a successful parse, so that tests see how
 * an upstream spelling was mapped without loading anything. Ignored
 * upstream options are not listed (nothing is stored for them).
 */
void scxk_cli_print_values(const struct scxk_cli *cli, const struct scxk_common_opts *common,
			   FILE *f);

/** scxk_cli_usage - print a scheduler's --help to @f */
void scxk_cli_usage(const struct scxk_cli *cli, FILE *f);

/**
 * scxk_cli_print_help_opt - one option as a line of --help
 * @f: where to print
 * @width: column where @help starts (scxk_cli_usage() uses 32)
 * @short_opt: the short option, or a value >= 0x100 (or 0) for none
 * @name: the long option
 * @metavar: its value's name, or NULL for a flag
 * @help: one phrase
 * @dfl: the default shown, or NULL
 * @choices: NULL-terminated values listed after @help, or NULL
 *
 * For binaries with their own option table (scxctl), so that every
 * --help of the project has one layout.
 */
void scxk_cli_print_help_opt(FILE *f, int width, int short_opt, const char *name,
			     const char *metavar, const char *help, const char *dfl,
			     const char *const *choices);

/**
 * scxk_cli_print_man_opt - the same option as a man page entry (scdoc)
 *
 * @help ends in a full stop (one is added if missing), then the default.
 */
void scxk_cli_print_man_opt(FILE *f, int short_opt, const char *name, const char *metavar,
			    const char *help, const char *dfl);

/**
 * scxk_parse_virt_llc - upstream's --virt-llc=MIN-MAX (cores per virtual
 *                       LLC, 0 < MIN <= MAX), checked for its ignored entry
 * Return: 0, or -EINVAL.
 */
int scxk_parse_virt_llc(const char *arg, void *dest);

/** scxk_parse_u64 - strict decimal (or 0x hex) u64: no sign, no junk, no overflow */
int scxk_parse_u64(const char *s, uint64_t *out);

/** scxk_parse_double - strict finite non-negative double */
int scxk_parse_double(const char *s, double *out);

#endif /* __SCXKIT_CLI_H */
