// SPDX-License-Identifier: GPL-2.0-only
/*
 * Modes for start/switch (--mode): the scheduler declares each mode's
 * flags in its own option table and prints them with --mode-flags, so
 * scxctl, service-exec (SCX_MODE) and the org.scx.Loader service never
 * hold a copy. The mode's flags go first and the user's arguments after
 * them, so an explicit option overrides the mode's choice of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/log.h>
#include <scxkit/mode.h>

#include "scxctl.h"

/* Printing a few words takes milliseconds; longer is stuck, not slow. */
#define MODE_FLAGS_TIMEOUT_S 10

int scxctl_mode_flags(const struct scxctl_sched *s, int mode, char *buf, size_t len, char **argv,
		      int max)
{
	char *run[] = {(char *)s->binary, "--mode-flags", (char *)scxk_mode_name((unsigned)mode),
		       NULL};
	char *save = NULL, *w;
	int rc, n = 0;

	if (!run[2])
		return scxk_err(-EINVAL, "mode %d is not one of 0..%d", mode, SCXK_NR_MODES - 1);
	rc = scxctl_run(run, buf, len, MODE_FLAGS_TIMEOUT_S);
	if (rc)
		return scxk_err(rc < 0 ? rc : -EIO,
				"%s --mode-flags %s failed (%s %d); is it an scxkit scheduler of "
				"this version?",
				s->binary, run[2], rc < 0 ? "error" : "status", rc);
	/* one flag per line, exactly as declared: a flag may hold blanks */
	for (w = strtok_r(buf, "\n", &save); w; w = strtok_r(NULL, "\n", &save)) {
		if (n == max)
			return scxk_err(-E2BIG, "scx_%s declares too many flags for mode %s",
					s->name, run[2]);
		argv[n++] = w;
	}
	return n;
}

int scxctl_take_mode(int *argc, char ***argv, int *mode)
{
	const char *val = NULL;
	int used = 0;

	*mode = -1;
	if (*argc >= 1 && !strncmp((*argv)[0], "--mode=", 7)) {
		val = (*argv)[0] + 7;
		used = 1;
	} else if (*argc >= 1 && !strcmp((*argv)[0], "--mode")) {
		if (*argc < 2) {
			scxk_log(SCXK_LOG_ERROR, "--mode needs a value (%s)", SCXK_MODE_NAMES);
			return -EINVAL;
		}
		val = (*argv)[1];
		used = 2;
	}
	if (!used)
		return 0;
	*mode = scxk_mode_parse(val);
	if (*mode < 0) {
		scxk_log(SCXK_LOG_ERROR, "--mode: '%s' is not a mode (%s, or 0-4)", val,
			 SCXK_MODE_NAMES);
		return -EINVAL;
	}
	*argc -= used;
	*argv += used;
	return 0;
}

int scxctl_mode_argv(const struct scxctl_sched *s, int mode, char *const *args, int nargs,
		     struct scxctl_argv *out)
{
	int n = 0, i;

	out->argc = 0;
	if (mode > 0) {
		n = scxctl_mode_flags(s, mode, out->buf, sizeof(out->buf), out->argv,
				      SCXCTL_ARGV_MAX);
		if (n < 0)
			return n;
	}
	if (n + nargs > SCXCTL_ARGV_MAX)
		return scxk_err(-E2BIG, "too many arguments for scx_%s (at most %d)", s->name,
				SCXCTL_ARGV_MAX);
	for (i = 0; i < nargs; i++)
		out->argv[n + i] = args[i];
	out->argc = n + nargs;
	out->argv[out->argc] = NULL;
	return 0;
}
