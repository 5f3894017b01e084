// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxctl - list, inspect, start, switch and stop scxkit schedulers.
 *
 * One table of commands and one of options feed getopt_long, --help and
 * the man page (--help-man prints its scdoc source), so they cannot drift.
 * A scheduler runs through scx.service when systemd manages this machine
 * and the unit is installed, otherwise as a detached process; either way
 * success means the kernel reports the scheduler enabled, not merely that
 * a process was started.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <scxkit/cli.h>
#include <scxkit/exit.h>
#include <scxkit/log.h>
#include <scxkit/stats.h>

#include "scxctl.h"

#ifndef SCXK_VERSION
#define SCXK_VERSION "unknown"
#endif

#define DFL_TIMEOUT_S	 30 /* attach takes well under 1 s natively, ~10 s under TCG */
#define MAX_TIMEOUT_S	 3600
#define DFL_LOG_DIR	 "/run/scx"
#define STATS_TIMEOUT_MS 2000
#define STATS_TOP_REQ	 "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}"

struct cmd {
	const char *name;
	const char *args;
	const char *help;
	int (*run)(int argc, char **argv, const struct scxctl_opts *o);
	bool root; /* changes the system: needs root */
};

static int cmd_list(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_status(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_metrics(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_start(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_switch(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_stop(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_service_exec(int argc, char **argv, const struct scxctl_opts *o);
static int cmd_top(int argc, char **argv, const struct scxctl_opts *o);

static const struct cmd cmds[] = {
	{"list", NULL, "list the installed scxkit schedulers, one line each", cmd_list},
	{"status", NULL,
	 "show what sched_ext runs: state, scheduler, its process and start time, its stats",
	 cmd_status},
	{"metrics", "[SOCKET]",
	 "print the running scheduler's stats (or those served on SOCKET) as OpenMetrics text; "
	 "counters are the deltas over one second",
	 cmd_metrics},
	{"top", "[--once] [SOCKET]",
	 "watch the running scheduler: uptime, its stats as a table with per-second rates "
	 "(per layer, per domain), CPU utilisation bars; refreshed every second, q quits; "
	 "--once prints one snapshot (over one second) for scripts",
	 cmd_top},
	{"start", "NAME [--mode MODE] [-- ARGS...]",
	 "start scheduler NAME with the flags of MODE (auto, gaming, powersave, lowlatency, "
	 "server; default auto: none), then ARGS; fails if a scheduler already runs",
	 cmd_start, true},
	{"switch", "NAME [--mode MODE] [-- ARGS...]",
	 "replace the running scheduler (if any) with NAME; if NAME rejects ARGS nothing "
	 "changes, if it fails to start the previous one is started again",
	 cmd_switch, true},
	{"stop", NULL, "stop the running scheduler; the kernel's default scheduler takes over",
	 cmd_stop, true},
	{"service-exec", NULL,
	 "run the scheduler that scx.service's environment names (its ExecStart)",
	 cmd_service_exec},
	{0},
};

enum { OPT_LOG_DIR = 0x100, OPT_HELP_MAN, OPT_LOCAL };

static const struct {
	struct option o;
	const char *metavar, *help, *dfl;
} opts[] = {
	{{"direct", no_argument, NULL, 'd'},
	 NULL,
	 "run schedulers as plain processes even when scx.service is installed",
	 NULL},
	{{"local", no_argument, NULL, OPT_LOCAL},
	 NULL,
	 "start, switch and stop here even when the org.scx.Loader service (scxkit-loader) runs",
	 NULL},
	{{"timeout", required_argument, NULL, 't'},
	 "SEC",
	 "how long start, switch and stop wait for the kernel",
	 "30"},
	{{"log-dir", required_argument, NULL, OPT_LOG_DIR},
	 "DIR",
	 "where a directly started scheduler's output goes (scxctl-NAME.log)",
	 DFL_LOG_DIR},
	{{"verbose", no_argument, NULL, 'v'}, NULL, "more output", NULL},
	{{"version", no_argument, NULL, 'V'}, NULL, "print the version and exit", NULL},
	{{"help", no_argument, NULL, 'h'}, NULL, "print this help and exit", NULL},
	{{"help-man", no_argument, NULL, OPT_HELP_MAN},
	 NULL,
	 "print this program's man page source (scdoc) and exit",
	 NULL},
};
#define NR_OPTS (sizeof(opts) / sizeof(opts[0]))
/* Where --help starts the text after commands and options. */
#define HELP_COLUMN 28

static const char *const env_help[][2] = {
	{"SCXKIT_SCHED_DIR",
	 "directory of the installed schedulers' entries (default " SCXCTL_SCHED_DIR ")"},
	{"SCXKIT_BIN_DIR", "directory of the scx_NAME binaries (default " SCXCTL_BIN_DIR ")"},
	{"SCX_SYSFS_PREFIX", "root under which /sys/kernel/sched_ext is read (for tests)"},
	{"SCX_SCHEDULER, SCX_MODE, SCX_FLAGS",
	 "service-exec: the default scheduler, its mode (whose flags go before SCX_FLAGS) and "
	 "its flags, from /etc/default/scx"},
	{"SCX_SCHEDULER_OVERRIDE, SCX_FLAGS_OVERRIDE",
	 "service-exec: set by scxctl start/switch with systemctl set-environment; they win "
	 "over the defaults, and an override scheduler gets only the override flags"},
};

static const char examples[] = "  scxctl list\n"
			       "  scxctl start brisk -- -m performance\n"
			       "  scxctl switch cadence --mode gaming\n"
			       "  scxctl status\n"
			       "  scxctl metrics\n"
			       "  scxctl stop\n";

static void usage(FILE *f)
{
	size_t i;

	fputs("Usage: scxctl [OPTIONS] COMMAND [ARGS]\n\n"
	      "List, inspect, start, switch and stop sched_ext schedulers of scxkit.\n\n"
	      "Commands:\n",
	      f);
	for (const struct cmd *c = cmds; c->name; c++) {
		char lhs[64];

		snprintf(lhs, sizeof(lhs), "  %s %s", c->name, c->args ? c->args : "");
		fprintf(f, "%-*s %s\n", HELP_COLUMN, lhs, c->help);
	}
	fputs("\nOptions:\n", f);
	for (i = 0; i < NR_OPTS; i++)
		scxk_cli_print_help_opt(f, HELP_COLUMN, opts[i].o.val, opts[i].o.name,
					opts[i].metavar, opts[i].help, opts[i].dfl, NULL);
	fputs("\nEnvironment:\n", f);
	for (i = 0; i < sizeof(env_help) / sizeof(env_help[0]); i++)
		fprintf(f, "  %s\n      %s\n", env_help[i][0], env_help[i][1]);
	fprintf(f, "\nExamples:\n%s", examples);
	fputs("\nExit status: 0 done, 1 failure (no sched_ext, not root, the scheduler did not "
	      "attach), 2 usage error (unknown command or scheduler, arguments the scheduler "
	      "rejects).\n",
	      f);
}

static void man(FILE *f)
{
	size_t i;

	fputs("scxctl(8)\n\n# NAME\n\nscxctl - control the sched_ext schedulers of scxkit\n\n"
	      "# SYNOPSIS\n\n*scxctl* [_OPTIONS_] _COMMAND_ [_ARGS_]\n\n"
	      "# DESCRIPTION\n\n"
	      "*scxctl* lists the installed scxkit schedulers, shows what the kernel's sched_ext "
	      "runs, and starts, switches and stops schedulers without a reboot.\n\n"
	      "When systemd manages the machine and *scx.service* is installed, *start*, "
	      "*switch* and *stop* go through the service: the scheduler and its arguments are "
	      "passed with *systemctl set-environment* as *SCX_SCHEDULER_OVERRIDE* and "
	      "*SCX_FLAGS_OVERRIDE*, which last until *stop* or the next boot; "
	      "_/etc/default/scx_ names the scheduler used otherwise. Without systemd (or with "
	      "*--direct*) the scheduler runs as a detached process whose output goes to a log "
	      "file.\n\n"
	      "Only installed scxkit schedulers can be started: a name outside the set that "
	      "*list* prints is refused. Arguments are handed to the scheduler as its argv, "
	      "never through a shell, and the scheduler parses them (*--check-args*: options "
	      "only, no file read or written, at most 10 s) before anything is "
	      "stopped, so a *switch* with a bad flag leaves the running scheduler alone; "
	      "if the new scheduler still fails once started (a configuration file is only "
	      "read then), *switch* starts the previous one again with its old "
	      "arguments. A command succeeds only once the kernel reports the new state.\n\n"
	      "*--mode* _MODE_ (after NAME) selects one of the modes every scheduler declares "
	      "(*auto*, *gaming*, *powersave*, *lowlatency*, *server*, or their numbers 0-4; "
	      "*scx_NAME --mode-flags MODE* prints a mode's flags): its flags go before ARGS, "
	      "so an option in ARGS overrides the mode's. *SCX_MODE* in _/etc/default/scx_ does "
	      "the same for the default scheduler.\n\n"
	      "When the *org.scx.Loader* D-Bus service (*scxkit-loader*, what desktop tools "
	      "use) runs, *start*, *switch* and *stop* go through it, so that it knows the "
	      "mode, and a user whom polkit allows (action "
	      "*org.scx.loader.manage-schedulers*) needs no root; the service runs "
	      "*scxctl --local* for the work, so the result is the same. Without the service "
	      "(or with *--local* or *--direct*) scxctl does it itself and needs root.\n\n"
	      "# COMMANDS\n\n",
	      f);
	for (const struct cmd *c = cmds; c->name; c++)
		fprintf(f, "*%s*%s%s\n\t%s.%s\n\n", c->name, c->args ? " " : "",
			c->args ? c->args : "", c->help, c->root ? " Needs root." : "");
	fputs("# OPTIONS\n\n", f);
	for (i = 0; i < NR_OPTS; i++)
		scxk_cli_print_man_opt(f, opts[i].o.val, opts[i].o.name, opts[i].metavar,
				       opts[i].help, opts[i].dfl);
	fputs("# ENVIRONMENT\n\n", f);
	for (i = 0; i < sizeof(env_help) / sizeof(env_help[0]); i++)
		fprintf(f, "*%s*\n\t%s.\n\n", env_help[i][0], env_help[i][1]);
	fputs("# FILES\n\n"
	      "_/etc/default/scx_\n\tthe scheduler scx.service runs and its flags.\n\n"
	      "_" SCXCTL_SCHED_DIR "/NAME_\n\tone entry per installed scheduler.\n\n"
	      "_" DFL_LOG_DIR "/scxctl-NAME.log_\n\toutput of a directly started scheduler.\n\n"
	      "_/usr/share/dbus-1/system.d/org.scx.Loader.conf_, "
	      "_/usr/share/polkit-1/actions/org.scx.Loader.policy_\n\twho may call the "
	      "org.scx.Loader service, and polkit's default for its action.\n\n"
	      "# EXIT STATUS\n\n"
	      "*0* done; *1* failure: no sched_ext in this kernel, not root, the scheduler did "
	      "not attach or detach in time; *2* usage error: unknown command or option, a "
	      "scheduler that is not installed, arguments the scheduler rejects, or a "
	      "configuration *service-exec* cannot use, a mode that does not exist.\n\n"
	      "# EXAMPLES\n\n```\n",
	      f);
	fputs(examples, f);
	fputs("```\n\n# SEE ALSO\n\n*systemctl*(1), *systemd.exec*(5), *scxkit-loader*(8), "
	      "*scx_brisk*(8) and the "
	      "other *scx_NAME*(8) pages\n",
	      f);
}

static int need_root(const char *what)
{
	if (geteuid() == 0)
		return 0;
	scxk_log(SCXK_LOG_ERROR,
		 "%s needs root (it loads or unloads a BPF scheduler); run it "
		 "with sudo",
		 what);
	return SCXK_EXIT_FAIL;
}

static int need_sched_ext(void)
{
	struct scxctl_kstate ks;

	scxctl_kstate_read(&ks);
	if (ks.present)
		return 0;
	scxk_log(SCXK_LOG_ERROR,
		 "this kernel has no sched_ext (%s is missing): it needs "
		 "CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or newer)",
		 scxctl_sysfs());
	return SCXK_EXIT_FAIL;
}

static int no_args(const char *cmd, int argc, char **argv)
{
	if (argc <= 1)
		return 0;
	scxk_log(SCXK_LOG_ERROR, "%s takes no arguments, got '%s'", cmd, argv[1]);
	return SCXK_EXIT_USAGE;
}

static int cmd_list(int argc, char **argv, const struct scxctl_opts *o)
{
	struct scxctl_sched *v;
	struct scxctl_kstate ks;
	int n, i, rc;

	if ((rc = no_args("list", argc, argv)))
		return rc;
	n = scxctl_list(&v);
	if (n < 0) {
		scxk_err(n, "cannot read %s", scxctl_sched_dir());
		return SCXK_EXIT_FAIL;
	}
	if (!n) {
		scxk_warn("no scxkit scheduler is installed (nothing in %s)", scxctl_sched_dir());
		return SCXK_EXIT_OK;
	}
	scxctl_kstate_read(&ks);
	for (i = 0; i < n; i++) {
		bool running = !strcmp(ks.state, "enabled") && scxctl_ops_is(ks.ops, v[i].name);

		printf("%-12s %s%s\n", v[i].name, v[i].desc, running ? " [running]" : "");
		if (o->verbose)
			printf("%-12s binary %s\n", "", v[i].binary);
	}
	free(v);
	return SCXK_EXIT_OK;
}

static void print_since(long long start)
{
	time_t t = (time_t)start;
	long long ago = (long long)time(NULL) - start;
	char when[64];
	struct tm tm;

	if (!start || !localtime_r(&t, &tm))
		return;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	if (ago < 120)
		printf("since:      %s (%lld s ago)\n", when, ago);
	else if (ago < 7200)
		printf("since:      %s (%lld min ago)\n", when, ago / 60);
	else
		printf("since:      %s (%lld h ago)\n", when, ago / 3600);
}

static void print_stats(const char *path)
{
	json_t *resp = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int err;

	err = scxk_stats_request(path, STATS_TOP_REQ, &resp, STATS_TIMEOUT_MS);
	if (err) {
		printf("stats:      unavailable on %s (%s%s)\n", path, strerror(-err),
		       err == -EACCES ? "; run as root" : "");
		return;
	}
	mem = open_memstream(&buf, &len);
	if (mem) {
		scxk_stats_print_line(resp, mem);
		fclose(mem);
		printf("stats:      %s", buf ? buf : "\n");
		free(buf);
	}
	json_decref(resp);
}

/* How long metrics waits between its two reads: counters are deltas over it. */
#define METRICS_WINDOW_MS 1000

/*
 * metrics [SOCKET]: stats_meta, then two reads on one connection so the
 * per-connection deltas cover METRICS_WINDOW_MS, converted by the meta.
 */
static int cmd_metrics(int argc, char **argv, const struct scxctl_opts *o)
{
	const char *path = argc > 1 ? argv[1] : SCXK_STATS_DEFAULT_PATH;
	struct scxk_stats_client *c = NULL;
	json_t *meta = NULL, *stats = NULL;
	struct scxctl_kstate ks;
	struct scxctl_loader l;
	int err;

	(void)o;
	if (argc > 2) {
		scxk_log(SCXK_LOG_ERROR, "metrics takes at most one argument (a socket), got '%s'",
			 argv[2]);
		return SCXK_EXIT_USAGE;
	}
	/* without SOCKET: where the running scheduler serves (its --stats-socket) */
	if (argc <= 1) {
		scxctl_kstate_read(&ks);
		if (!strcmp(ks.state, "enabled") && !scxctl_find_loader(ks.ops, &l))
			path = l.stats_path;
	}
	err = scxk_stats_client_open(&c, path, STATS_TIMEOUT_MS);
	if (!err)
		err = scxk_stats_client_request(c, "{\"req\":\"stats_meta\"}", &meta);
	if (!err)
		err = scxk_stats_client_request(c, STATS_TOP_REQ, &stats);
	if (!err) {
		json_decref(stats);
		stats = NULL;
		usleep(METRICS_WINDOW_MS * 1000);
		err = scxk_stats_client_request(c, STATS_TOP_REQ, &stats);
	}
	scxk_stats_client_close(c);
	if (err) {
		scxk_log(SCXK_LOG_ERROR, "no stats on %s: %s%s", path, strerror(-err),
			 err == -EACCES ? " (run as root)" : "");
		json_decref(meta);
		return SCXK_EXIT_FAIL;
	}
	err = scxk_stats_openmetrics(meta, stats, "scx_", stdout);
	json_decref(meta);
	json_decref(stats);
	if (err) {
		scxk_log(SCXK_LOG_ERROR,
			 "the stats on %s are not all expressible as OpenMetrics "
			 "(no top struct, or two fields with one metric name)",
			 path);
		return SCXK_EXIT_FAIL;
	}
	return SCXK_EXIT_OK;
}

/* top: scxctl/top.c */
static int cmd_top(int argc, char **argv, const struct scxctl_opts *o)
{
	(void)o;
	return scxctl_top(argc, argv);
}

static int cmd_status(int argc, char **argv, const struct scxctl_opts *o)
{
	struct scxctl_kstate ks;
	struct scxctl_loader l;
	struct scxctl_sched s;
	int rc;

	if ((rc = no_args("status", argc, argv)) || (rc = need_sched_ext()))
		return rc;
	scxctl_kstate_read(&ks);
	printf("sched_ext:  %s\n", ks.state[0] ? ks.state : "unknown");
	if (!strcmp(ks.state, "enabled") || !strcmp(ks.state, "enabling")) {
		bool found = !scxctl_find_loader(ks.ops, &l);

		printf("scheduler:  %s", ks.ops);
		if (found)
			printf(" (scx_%s, pid %d%s)", l.name, l.pid,
			       scxctl_lookup(l.name, &s) ? ", not installed" : "");
		printf("\nscope:      %s\n", !strcmp(ks.switch_all, "1")
						     ? "all tasks"
						     : "only SCHED_EXT tasks (--partial)");
		if (found) {
			print_since(l.start_time);
			printf("command:    %s\n", l.cmdline);
		}
		if (!o->direct && scxctl_service_usable())
			printf("service:    scx.service %s\n",
			       scxctl_service_active() ? "active" : "inactive");
		if (found)
			print_stats(l.stats_path);
		else
			printf("loader:     no scxkit process found for it\n");
	} else {
		printf("scheduler:  none (the kernel's default scheduler runs every task)\n");
	}
	if (o->verbose)
		printf("enable_seq: %s\nrejected:   %s\n", ks.enable_seq, ks.nr_rejected);
	return SCXK_EXIT_OK;
}

/*
 * NAME [--mode MODE] [-- ARGS...]: resolve NAME, point @args at ARGS and
 * @all at the mode's flags followed by ARGS (what the scheduler gets).
 */
static int sched_args(const char *cmd, int argc, char **argv, struct scxctl_sched *s, char ***args,
		      int *nargs, int *mode, struct scxctl_argv *all)
{
	int err;

	if (argc < 2) {
		scxk_log(SCXK_LOG_ERROR, "%s needs a scheduler name (see 'scxctl list')", cmd);
		return SCXK_EXIT_USAGE;
	}
	err = scxctl_lookup(argv[1], s);
	if (err) {
		scxk_log(SCXK_LOG_ERROR, "'%s' is %s; see 'scxctl list'", argv[1],
			 err == -EINVAL ? "not a scheduler name" : "not an installed scheduler");
		return SCXK_EXIT_USAGE;
	}
	*args = argv + 2;
	*nargs = argc - 2;
	if (scxctl_take_mode(nargs, args, mode))
		return SCXK_EXIT_USAGE;
	if (*nargs && !strcmp((*args)[0], "--")) {
		(*args)++;
		(*nargs)--;
	}
	if ((err = scxctl_mode_argv(s, *mode, *args, *nargs, all)))
		return err == -E2BIG ? SCXK_EXIT_USAGE : SCXK_EXIT_FAIL;
	err = scxctl_check_args(s, all->argv, all->argc);
	if (err == -EINVAL) {
		scxk_log(SCXK_LOG_ERROR, "scx_%s rejected the arguments; nothing was changed",
			 s->name);
		return SCXK_EXIT_USAGE;
	}
	return err ? SCXK_EXIT_FAIL : 0;
}

#define MAX_PREV_ARGS 256

/*
 * Stop what runs, start @s; if @s does not come up (some schedulers only
 * find a configuration error once they start), start the previous
 * scheduler again with its old arguments, so a failed switch does not
 * leave the machine on a different scheduler than before.
 */
static int direct_switch(const struct scxctl_sched *s, char **args, int nargs, bool running,
			 const struct scxctl_opts *o)
{
	char *prev_args[MAX_PREV_ARGS];
	struct scxctl_sched prev_sched;
	struct scxctl_loader prev;
	struct scxctl_kstate ks;
	bool have_prev = false;
	int rc, n = 0;

	if (running) {
		scxctl_kstate_read(&ks);
		if (!scxctl_find_loader(ks.ops, &prev) && !scxctl_lookup(prev.name, &prev_sched)) {
			n = scxctl_loader_args(&prev, prev_args, MAX_PREV_ARGS);
			have_prev = n > 0 || prev.argv_len;
		}
		if ((rc = scxctl_direct_stop(o)) < 0 && rc != -ESRCH)
			return rc;
	}
	rc = scxctl_direct_start(s, args, nargs, o);
	if (!rc || !have_prev)
		return rc;
	scxk_warn("scx_%s did not start; starting scx_%s again", s->name, prev_sched.name);
	if (scxctl_direct_start(&prev_sched, prev_args, n, o))
		scxk_log(SCXK_LOG_ERROR,
			 "scx_%s did not come back either; the kernel's default "
			 "scheduler runs",
			 prev_sched.name);
	return rc;
}

static int exit_of(int err)
{
	return !err ? SCXK_EXIT_OK : err == -EINVAL ? SCXK_EXIT_USAGE : SCXK_EXIT_FAIL;
}

/*
 * Through org.scx.Loader (bus.c): a mode alone, or arguments alone, map
 * to its methods as they are; both together go as arguments (the mode's
 * flags first), as the interface has no method taking both.
 */
static int bus_start(const struct scxctl_sched *s, bool sw, int mode, int nargs,
		     const struct scxctl_argv *all, const struct scxctl_opts *o)
{
	bool with_args = nargs > 0;
	const char *method = sw ? (with_args ? "SwitchSchedulerWithArgs" : "SwitchScheduler")
				: (with_args ? "StartSchedulerWithArgs" : "StartScheduler");

	return exit_of(scxctl_bus_run(method, s->name, mode, all->argv, all->argc, o->timeout_s));
}

static int start_or_switch(int argc, char **argv, const struct scxctl_opts *o, bool sw)
{
	const char *cmd = sw ? "switch" : "start";
	static struct scxctl_argv all;
	struct scxctl_kstate ks;
	struct scxctl_sched s;
	bool service, running, bus;
	int nargs, rc, mode;
	char **args;

	if ((rc = sched_args(cmd, argc, argv, &s, &args, &nargs, &mode, &all)))
		return rc;
	bus = !o->direct && !o->local && scxctl_bus_loader_running();
	if ((!bus && (rc = need_root(cmd))) || (rc = need_sched_ext()))
		return rc;
	scxctl_kstate_read(&ks);
	running = strcmp(ks.state, "disabled") != 0;
	if (running && !sw) {
		scxk_log(SCXK_LOG_ERROR, "sched_ext already runs \"%s\"; use 'scxctl switch %s'",
			 ks.ops, s.name);
		return SCXK_EXIT_FAIL;
	}
	if (bus)
		return bus_start(&s, sw, mode, nargs, &all, o);
	args = all.argv;
	nargs = all.argc;
	service = !o->direct && scxctl_service_usable();
	if (service) {
		bool active = scxctl_service_active();

		/* A scheduler started outside the service would make its start fail. */
		if (running && !active && scxctl_direct_stop(o) < 0)
			return SCXK_EXIT_FAIL;
		rc = scxctl_service_run(&s, args, nargs, active, o);
	} else {
		rc = direct_switch(&s, args, nargs, running, o);
	}
	if (rc == -EINVAL)
		return SCXK_EXIT_USAGE;
	return rc ? SCXK_EXIT_FAIL : SCXK_EXIT_OK;
}

static int cmd_start(int argc, char **argv, const struct scxctl_opts *o)
{
	return start_or_switch(argc, argv, o, false);
}

static int cmd_switch(int argc, char **argv, const struct scxctl_opts *o)
{
	return start_or_switch(argc, argv, o, true);
}

static int cmd_stop(int argc, char **argv, const struct scxctl_opts *o)
{
	struct scxctl_kstate ks;
	int rc;

	if ((rc = no_args("stop", argc, argv)))
		return rc;
	if (!o->direct && !o->local && scxctl_bus_loader_running())
		return exit_of(scxctl_bus_run("StopScheduler", NULL, 0, NULL, 0, o->timeout_s));
	if ((rc = need_root("stop")) || (rc = need_sched_ext()))
		return rc;
	if (!o->direct && scxctl_service_usable() && scxctl_service_active() &&
	    scxctl_service_stop(o))
		return SCXK_EXIT_FAIL;
	scxctl_kstate_read(&ks);
	if (!strcmp(ks.state, "disabled")) {
		if (o->verbose)
			printf("sched_ext is disabled: nothing to stop\n");
		return SCXK_EXIT_OK;
	}
	rc = scxctl_direct_stop(o);
	if (rc == -ESRCH) {
		printf("sched_ext is %s: nothing to stop\n", ks.state);
		return SCXK_EXIT_OK;
	}
	return rc ? SCXK_EXIT_FAIL : SCXK_EXIT_OK;
}

static int cmd_service_exec(int argc, char **argv, const struct scxctl_opts *o)
{
	int rc;

	if ((rc = no_args("service-exec", argc, argv)))
		return rc;
	return scxctl_service_exec();
}

/* A usage error, in the format of the option engine's (and the schedulers'). */
static int bad_usage(const char *fmt, const char *arg)
{
	scxk_cli_error("scxctl", fmt, arg);
	return SCXK_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct scxctl_opts o = {.timeout_s = DFL_TIMEOUT_S, .log_dir = DFL_LOG_DIR};
	struct option lopts[NR_OPTS + 1];
	const struct cmd *c;
	unsigned long v;
	char *end;
	size_t i;
	int ch;

	for (i = 0; i < NR_OPTS; i++)
		lopts[i] = opts[i].o;
	lopts[NR_OPTS] = (struct option){0};
	scxk_log_setup("scxctl", 0);
	opterr = 0;
	/* '+': stop at the command, so the scheduler's own flags stay untouched. */
	while ((ch = getopt_long(argc, argv, "+:dt:vVh", lopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o.direct = true;
			break;
		case 't':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || v < 1 ||
			    v > MAX_TIMEOUT_S)
				return bad_usage("--timeout: '%s' is not a number of seconds in "
						 "1..3600",
						 optarg);
			o.timeout_s = (unsigned int)v;
			break;
		case OPT_LOG_DIR:
			if (optarg[0] != '/')
				return bad_usage("--log-dir: '%s' is not an absolute path", optarg);
			o.log_dir = optarg;
			break;
		case OPT_LOCAL:
			o.local = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'V':
			printf("scxctl %s\n", SCXK_VERSION);
			return SCXK_EXIT_OK;
		case 'h':
			usage(stdout);
			return SCXK_EXIT_OK;
		case OPT_HELP_MAN:
			man(stdout);
			return SCXK_EXIT_OK;
		case ':':
			return bad_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	scxk_log_setup("scxctl", o.verbose);
	if (optind >= argc)
		return bad_usage("no command given%s", "");
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[optind]))
			return c->run(argc - optind, argv + optind, &o);
	return bad_usage("unknown command '%s'", argv[optind]);
}
