// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx.service: scxctl drives it through systemctl (never a shell), and its
 * ExecStart is "scxctl service-exec", which picks the scheduler and flags
 * from the environment the unit sets up:
 *
 *   SCX_SCHEDULER, SCX_MODE, SCX_FLAGS  from /etc/default/scx
 *   SCX_SCHEDULER_OVERRIDE,             from "systemctl set-environment"
 *   SCX_FLAGS_OVERRIDE                  (what scxctl start/switch set)
 *
 * An override scheduler takes the override flags only: the default flags
 * (and SCX_MODE) belong to the default scheduler and may mean nothing to
 * another one; scxctl puts a mode's flags into SCX_FLAGS_OVERRIDE itself.
 * Flags are split at blanks, without quoting or expansion, exactly as
 * systemd splits $VAR on an ExecStart line, so a flag with a blank in it
 * cannot pass through the service (scxctl refuses it; --direct can).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <scxkit/exit.h>
#include <scxkit/log.h>
#include <scxkit/mode.h>

#include "scxctl.h"

#define UNIT	       "scx.service"
#define MAX_FLAGS      256
#define SYSTEMD_RUNDIR "/run/systemd/system" /* exists iff systemd is PID 1 (sd_booted) */

static int systemctl(const char *a, const char *b, const char *c, const char *d, char *out,
		     size_t out_len)
{
	char *argv[] = {"systemctl", (char *)a, (char *)b, (char *)c, (char *)d, NULL};

	return scxctl_run(argv, out, out_len, 0 /* no limit */);
}

static void show(const char *prop, char *out, size_t len)
{
	char arg[64];

	snprintf(arg, sizeof(arg), "--property=%s", prop);
	if (systemctl("show", arg, "--value", UNIT, out, len))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

bool scxctl_service_usable(void)
{
	char load[64];
	struct stat st;

	if (stat(SYSTEMD_RUNDIR, &st) || !S_ISDIR(st.st_mode))
		return false;
	show("LoadState", load, sizeof(load));
	return !strcmp(load, "loaded");
}

bool scxctl_service_active(void)
{
	char state[64];

	show("ActiveState", state, sizeof(state));
	return !strcmp(state, "active") || !strcmp(state, "activating") ||
	       !strcmp(state, "reloading");
}

/* "SCX_FLAGS_OVERRIDE=a b c", refusing words that the split would change. */
static int join_flags(char *const *argv, int argc, char *out, size_t len)
{
	size_t off = snprintf(out, len, "SCX_FLAGS_OVERRIDE=");
	int i;

	for (i = 0; i < argc; i++) {
		if (!*argv[i] || strpbrk(argv[i], " \t\n\r\v\f"))
			return scxk_err(-EINVAL,
					"argument '%s' is empty or has blanks, which scx.service "
					"cannot pass (it splits flags at blanks); use --direct",
					argv[i]);
		off += snprintf(out + off, len > off ? len - off : 0, "%s%s", i ? " " : "",
				argv[i]);
	}
	if (off >= len)
		return scxk_err(-E2BIG, "the scheduler's arguments are too long for scx.service");
	return 0;
}

static int must(int rc, const char *what)
{
	if (rc < 0)
		return scxk_err(rc, "cannot run systemctl %s", what);
	if (rc)
		return scxk_err(-EIO, "systemctl %s failed (status %d); see 'journalctl -u %s'",
				what, rc, UNIT);
	return 0;
}

/*
 * What the scheduler printed in the unit's last run: a scheduler that
 * exits at once (exit 2: a bad configuration) says why there, and the
 * user of scxctl should not have to go and look it up.
 */
static void show_unit_output(const struct scxctl_sched *s)
{
	char id[64], match[96], out[4096];
	char *argv[] = {"journalctl", "--no-pager", "-q", "-o", "cat", "-n", "8", match, NULL};

	show("InvocationID", id, sizeof(id));
	if (!id[0])
		return;
	snprintf(match, sizeof(match), "_SYSTEMD_INVOCATION_ID=%s", id);
	if (scxctl_run(argv, out, sizeof(out), 10 /* s */) || !out[0])
		return;
	fprintf(stderr, "scxctl: the last lines scx_%s logged in %s:\n%s", s->name, UNIT, out);
}

/* Wait for the kernel to run @s, giving up early if the unit failed. */
static int wait_enabled(const struct scxctl_sched *s, unsigned int timeout_s)
{
	char state[64], result[64];
	unsigned int waited;

	for (waited = 0; waited < timeout_s; waited++) {
		if (scxctl_wait_state("enabled", s->name, 1))
			return 0;
		show("ActiveState", state, sizeof(state));
		if (!strcmp(state, "failed") || !strcmp(state, "inactive")) {
			show("Result", result, sizeof(result));
			show_unit_output(s);
			/* RestartPreventExitStatus=2: the scheduler rejected its configuration. */
			return scxk_err(!strcmp(result, "exit-code") ? -EINVAL : -EIO,
					"%s is %s (%s): scx_%s did not start; see 'journalctl -u "
					"%s'",
					UNIT, state, result[0] ? result : "?", s->name, UNIT);
		}
	}
	return scxk_err(-ETIMEDOUT,
			"%s started but sched_ext does not run %s after %u s; see 'systemctl "
			"status %s'",
			UNIT, s->name, timeout_s, UNIT);
}

/*
 * Where the unit cannot see a file that scxctl can: scxctl runs outside
 * the sandbox, so an argument naming a file there would pass here and
 * fail in the unit, as a bare "scx.service failed" (issue 25). The
 * settings are read from the unit itself (systemctl show), so a drop-in
 * that changes them changes this check too. InaccessiblePaths= entries
 * may carry systemd's "-" (ignore if missing) prefix.
 */
struct hidden {
	const char *dir;
	const char *why;
};

static int hidden_dirs(struct hidden *h, int max, char *inacc, size_t inacc_len)
{
	static const char *const home[] = {"/home", "/root", "/run/user"};
	static const char *const tmp[] = {"/tmp", "/var/tmp"};
	char v[64], *save = NULL, *w;
	unsigned int i;
	int n = 0;

	show("ProtectHome", v, sizeof(v));
	if (!strcmp(v, "yes") || !strcmp(v, "tmpfs"))
		for (i = 0; i < 3 && n < max; i++)
			h[n++] = (struct hidden){home[i], !strcmp(v, "yes") ? "ProtectHome=yes"
									    : "ProtectHome=tmpfs"};
	show("PrivateTmp", v, sizeof(v));
	if (!strcmp(v, "yes"))
		for (i = 0; i < 2 && n < max; i++)
			h[n++] = (struct hidden){tmp[i], "PrivateTmp=yes: its own, empty /tmp"};
	show("InaccessiblePaths", inacc, inacc_len);
	for (w = strtok_r(inacc, " ", &save); w && n < max; w = strtok_r(NULL, " ", &save))
		h[n++] = (struct hidden){w + (*w == '-'), "InaccessiblePaths="};
	return n;
}

/* @path is @dir or below it, compared as text ("/tmpx" is not below "/tmp"). */
static bool below(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	while (len > 1 && dir[len - 1] == '/')
		len--;
	return !strncmp(path, dir, len) && (path[len] == '\0' || path[len] == '/');
}

/*
 * Every absolute path in the arguments: a word that starts with "/", or
 * the part after "=" (--config=/x) or ":" (scx_strata's f:/x).
 */
static int check_paths(const struct scxctl_sched *s, char *const *argv, int argc)
{
	struct hidden h[16];
	char inacc[1024];
	const char *p;
	int i, j, n = -1;

	for (i = 0; i < argc; i++) {
		/* p: the word's start, then each "=" or ":" in it */
		for (p = argv[i]; p; p = strpbrk(p + 1, "=:")) {
			const char *path = p == argv[i] ? p : p + 1;

			if (*path != '/')
				continue;
			if (n < 0)
				n = hidden_dirs(h, 16, inacc, sizeof(inacc));
			for (j = 0; j < n; j++)
				if (below(path, h[j].dir))
					return scxk_err(
						-EINVAL,
						"scx_%s would not find %s: %s hides %s from it "
						"(%s); put the file under /etc (e.g. /etc/scx), or "
						"run it outside the service with --direct",
						s->name, path, UNIT, h[j].dir, h[j].why);
		}
	}
	return 0;
}

/* The next plain start, or boot, uses /etc/default/scx again. */
static void drop_overrides(void)
{
	systemctl("unset-environment", "SCX_SCHEDULER_OVERRIDE", "SCX_FLAGS_OVERRIDE", NULL, NULL,
		  0);
}

int scxctl_service_run(const struct scxctl_sched *s, char *const *argv, int argc, bool restart,
		       const struct scxctl_opts *o)
{
	char sched[64], flags[4096], out[4096];
	int err;

	if ((err = join_flags(argv, argc, flags, sizeof(flags))) ||
	    (err = check_paths(s, argv, argc)))
		return err;
	snprintf(sched, sizeof(sched), "SCX_SCHEDULER_OVERRIDE=scx_%s", s->name);
	if ((err = must(systemctl("set-environment", sched, flags, NULL, out, sizeof(out)),
			"set-environment")))
		return err;
	/* A unit that hit its start limit earlier refuses to start until reset. */
	systemctl("reset-failed", UNIT, NULL, NULL, NULL, 0);
	if ((err = must(
		     systemctl(restart ? "restart" : "start", UNIT, NULL, NULL, out, sizeof(out)),
		     restart ? "restart " UNIT : "start " UNIT))) {
		fputs(out, stderr);
		drop_overrides();
		return err;
	}
	if ((err = wait_enabled(s, o->timeout_s))) {
		/*
		 * Else the manager keeps them and the next "systemctl start
		 * scx" runs the scheduler that just failed, not the one of
		 * /etc/default/scx (seen in distro-scx-control).
		 */
		drop_overrides();
		return err;
	}
	printf("%s scx_%s through %s\n", restart ? "switched to" : "started", s->name, UNIT);
	return 0;
}

int scxctl_service_stop(const struct scxctl_opts *o)
{
	char out[4096];
	int err;

	err = must(systemctl("stop", UNIT, NULL, NULL, out, sizeof(out)), "stop " UNIT);
	drop_overrides();
	if (err) {
		fputs(out, stderr);
		return err;
	}
	if (!scxctl_wait_state("disabled", NULL, o->timeout_s))
		return scxk_err(-ETIMEDOUT, "%s stopped but sched_ext is not disabled after %u s",
				UNIT, o->timeout_s);
	printf("stopped %s\n", UNIT);
	return 0;
}

int scxctl_split_flags(char *flags, char **argv, int max)
{
	const char *blanks = " \t\n\r\v\f";
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(flags, blanks, &save); w; w = strtok_r(NULL, blanks, &save)) {
		if (n == max)
			return -E2BIG;
		argv[n++] = w;
	}
	return n;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int scxctl_service_exec(void)
{
	const char *sched = env("SCX_SCHEDULER_OVERRIDE"), *flags_env, *mode_env = NULL;
	char *argv[MAX_FLAGS + 2], *flags, mode_buf[4096];
	struct scxctl_sched s;
	int n, err, m = 0, mode = -1;

	if (sched) {
		flags_env = env("SCX_FLAGS_OVERRIDE");
	} else {
		sched = env("SCX_SCHEDULER");
		mode_env = env("SCX_MODE");
		flags_env =
			env("SCX_FLAGS_OVERRIDE") ? env("SCX_FLAGS_OVERRIDE") : env("SCX_FLAGS");
	}
	if (!sched) {
		scxk_log(SCXK_LOG_ERROR, "no scheduler configured: set SCX_SCHEDULER in "
					 "/etc/default/scx (see 'scxctl list')");
		return SCXK_EXIT_USAGE;
	}
	err = scxctl_lookup(sched, &s);
	if (err) {
		scxk_log(SCXK_LOG_ERROR, "SCX_SCHEDULER%s=%s is %s; installed: see 'scxctl list'",
			 env("SCX_SCHEDULER_OVERRIDE") ? "_OVERRIDE" : "", sched,
			 err == -EINVAL ? "not a scheduler name" : "not an installed scheduler");
		return SCXK_EXIT_USAGE;
	}
	if (mode_env && (mode = scxk_mode_parse(mode_env)) < 0) {
		scxk_log(SCXK_LOG_ERROR, "SCX_MODE=%s is not a mode (%s)", mode_env,
			 SCXK_MODE_NAMES);
		return SCXK_EXIT_USAGE;
	}
	/* the mode's flags first: SCX_FLAGS may override one of them */
	if (mode > 0 &&
	    (m = scxctl_mode_flags(&s, mode, mode_buf, sizeof(mode_buf), argv + 1, MAX_FLAGS)) < 0)
		return SCXK_EXIT_FAIL;
	flags = strdup(flags_env ? flags_env : "");
	if (!flags)
		return SCXK_EXIT_FAIL;
	argv[0] = s.binary;
	n = scxctl_split_flags(flags, argv + 1 + m, MAX_FLAGS - m);
	if (n >= 0)
		n += m;
	if (n < 0) {
		scxk_log(SCXK_LOG_ERROR, "more than %d words in the scheduler's flags", MAX_FLAGS);
		free(flags);
		return SCXK_EXIT_USAGE;
	}
	argv[n + 1] = NULL;
	{
		char line[4096];
		size_t off = 0;

		line[0] = '\0';
		for (int i = 1; i <= n && off < sizeof(line); i++)
			off += snprintf(line + off, sizeof(line) - off, " %s", argv[i]);
		scxk_info("running %s%s%s%s%s", s.binary, line, mode > 0 ? " (mode " : "",
			  mode > 0 ? scxk_mode_name((unsigned)mode) : "", mode > 0 ? ")" : "");
	}
	execv(s.binary, argv);
	scxk_err(-errno, "cannot run %s", s.binary);
	free(flags);
	return SCXK_EXIT_FAIL;
}
