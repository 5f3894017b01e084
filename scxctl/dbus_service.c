// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxkit-loader - the org.scx.Loader D-Bus service on the system bus, as
 * upstream's scx_loader defines it (configs/org.scx.Loader.xml), so that
 * GUIs written for it (CachyOS Kernel Manager, scx-manager) drive scxkit.
 *
 * It does not start schedulers itself: every mutating method runs
 * "scxctl --local start|switch|stop" (argv, never a shell), the very code
 * path of the command line, so both check the name against the installed
 * set, let the scheduler judge its arguments first, go through
 * scx.service when it is installed (same sandbox, same environment) and
 * succeed only once the kernel runs the scheduler, falling back to the
 * previous one if the new one fails. The service adds what D-Bus needs:
 * name and mode checks with their own error names, polkit, and the state
 * (mode, arguments) of what it started.
 *
 * Calls are handled one at a time: a switch takes seconds, and a second
 * switch must not start while the first still runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include <scxkit/log.h>
#include <scxkit/mode.h>

#include "dbus_names.h"
#include "scxctl.h"

#ifndef SCXCTL_PATH
#define SCXCTL_PATH SCXCTL_BIN_DIR "/scxctl"
#endif
#ifndef SCXL_DEFAULTS
#define SCXL_DEFAULTS "/etc/default/scx"
#endif

/* scxctl's own wait for the kernel is 30 s; a switch may wait twice (fallback) */
#define SCXCTL_TIMEOUT_S 120
#define MAX_ARGS	 SCXCTL_ARGV_MAX

/* What this service last started: how it reports the mode and arguments. */
static struct {
	char name[SCXCTL_NAME_MAX + 1];
	unsigned int mode;
	bool with_args;
	char *args[MAX_ARGS + 1]; /* the scheduler's argv[1..]: mode flags, then the caller's */
	int nargs;
} cur;

static void cur_clear(void)
{
	for (int i = 0; i < cur.nargs; i++)
		free(cur.args[i]);
	memset(&cur, 0, sizeof(cur));
}

static const char *scxctl_path(void)
{
	const char *p = getenv("SCXKIT_SCXCTL");

	return p && *p ? p : SCXCTL_PATH;
}

/* ---- reading the state ---- */

/*
 * The running scheduler's loader, and whether it is the one this service
 * started (same name, same argv): only then are its mode and arguments
 * known. Return: true if a scheduler runs.
 */
static bool running(struct scxctl_loader *l, bool *ours)
{
	char *args[MAX_ARGS];
	struct scxctl_kstate ks;
	int n, i;

	*ours = false;
	scxctl_kstate_read(&ks);
	if (strcmp(ks.state, "enabled") || scxctl_find_loader(ks.ops, l)) {
		if (!strcmp(ks.state, "enabled")) {
			/* not an scxkit loader: report the kernel's ops name */
			size_t len = strnlen(ks.ops, sizeof(l->name) - 1);

			memset(l, 0, sizeof(*l));
			memcpy(l->name, ks.ops, len);
			return true;
		}
		return false;
	}
	if (!cur.name[0] || strcmp(cur.name, l->name))
		return true;
	n = scxctl_loader_args(l, args, MAX_ARGS);
	if (n != cur.nargs)
		return true;
	for (i = 0; i < n && !strcmp(args[i], cur.args[i]); i++)
		;
	*ours = i == n;
	return true;
}

static int prop_current(sd_bus *bus, const char *path, const char *iface, const char *prop,
			sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	struct scxctl_loader l;
	char name[SCXCTL_NAME_MAX + 8];
	bool ours;

	if (!running(&l, &ours))
		return sd_bus_message_append(reply, "s", "unknown");
	snprintf(name, sizeof(name), "scx_%s", l.name);
	return sd_bus_message_append(reply, "s", name);
}

static int prop_mode(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	struct scxctl_loader l;
	bool ours;

	running(&l, &ours);
	return sd_bus_message_append(reply, "u", ours ? cur.mode : SCXK_MODE_AUTO);
}

static int append_strv(sd_bus_message *m, char *const *v, int n)
{
	int r = sd_bus_message_open_container(m, 'a', "s");

	for (int i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(m, "s", v[i]);
	return r < 0 ? r : sd_bus_message_close_container(m);
}

/* Empty when started with a mode (as upstream); else the scheduler's arguments. */
static int prop_args(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	char *args[MAX_ARGS];
	struct scxctl_loader l;
	bool ours;
	int n = 0;

	if (running(&l, &ours) && l.pid && (!ours || cur.with_args))
		n = scxctl_loader_args(&l, args, MAX_ARGS);
	return append_strv(reply, args, n);
}

static int prop_supported(sd_bus *bus, const char *path, const char *iface, const char *prop,
			  sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	struct scxctl_sched *v;
	int n, r;

	n = scxctl_list(&v);
	if (n < 0)
		return sd_bus_error_set_errnof(err, -n, "cannot read %s", scxctl_sched_dir());
	r = sd_bus_message_open_container(reply, 'a', "s");
	for (int i = 0; r >= 0 && i < n; i++) {
		char name[SCXCTL_NAME_MAX + 8];

		snprintf(name, sizeof(name), "scx_%s", v[i].name);
		r = sd_bus_message_append(reply, "s", name);
	}
	free(v);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/*
 * /etc/default/scx as systemd's EnvironmentFile= reads the simple lines
 * this project writes: KEY=VALUE, optionally in double or single quotes.
 */
static bool defaults_get(const char *key, char *out, size_t len)
{
	char line[4096];
	size_t klen = strlen(key), vlen;
	bool found = false;
	FILE *f = fopen(SCXL_DEFAULTS, "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *v = line;

		while (*v == ' ' || *v == '\t')
			v++;
		if (strncmp(v, key, klen) || v[klen] != '=')
			continue;
		v += klen + 1;
		v[strcspn(v, "\r\n")] = '\0';
		vlen = strlen(v);
		if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
			v[vlen - 1] = '\0';
			v++;
		}
		snprintf(out, len, "%s", v);
		found = true; /* the last assignment wins, as in the unit */
	}
	fclose(f);
	return found;
}

static int default_mode(void)
{
	char v[64];
	int m;

	if (!defaults_get("SCX_MODE", v, sizeof(v)) || !v[0])
		return SCXK_MODE_AUTO;
	m = scxk_mode_parse(v);
	return m < 0 ? -EINVAL : m;
}

static int prop_default_sched(sd_bus *bus, const char *path, const char *iface, const char *prop,
			      sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	char v[SCXCTL_NAME_MAX + 8], name[sizeof(v) + 4];

	if (!defaults_get("SCX_SCHEDULER", v, sizeof(v)) || !v[0])
		return sd_bus_message_append(reply, "s", "unknown");
	snprintf(name, sizeof(name), "%s%s", strncmp(v, "scx_", 4) ? "scx_" : "", v);
	return sd_bus_message_append(reply, "s", name);
}

static int prop_default_mode(sd_bus *bus, const char *path, const char *iface, const char *prop,
			     sd_bus_message *reply, void *ud, sd_bus_error *err)
{
	int m = default_mode();

	return sd_bus_message_append(reply, "u", m < 0 ? SCXK_MODE_AUTO : (unsigned int)m);
}

/* ---- authorisation ---- */

/*
 * Root may always; anyone else needs polkit's yes for SCXL_POLKIT_ACTION.
 * Without polkit only root may: refusing is the safe default.
 */
static int authorize(sd_bus_message *m, sd_bus_error *err)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	sd_bus_creds *creds = NULL;
	int authorized = 0, challenge = 0, r;
	uid_t uid = (uid_t)-1;

	r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT, &creds);
	if (r >= 0)
		r = sd_bus_creds_get_euid(creds, &uid);
	sd_bus_creds_unref(creds);
	if (r < 0)
		return sd_bus_error_set_errnof(err, -r, "cannot tell who is calling");
	if (uid == 0)
		return 0;
	r = sd_bus_call_method(sd_bus_message_get_bus(m), "org.freedesktop.PolicyKit1",
			       "/org/freedesktop/PolicyKit1/Authority",
			       "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization", &e,
			       &reply, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s",
			       sd_bus_message_get_sender(m), SCXL_POLKIT_ACTION, 0,
			       1 /* AllowUserInteraction */, "");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
	if (r >= 0)
		r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
	sd_bus_message_unref(reply);
	if (r < 0) {
		scxk_warn("polkit check for uid %u failed: %s", (unsigned int)uid,
			  e.message ? e.message : strerror(-r));
		sd_bus_error_free(&e);
		return sd_bus_error_setf(err, SD_BUS_ERROR_ACCESS_DENIED,
					 "uid %u may not manage schedulers: polkit is not "
					 "available to authorize %s, so only root may",
					 (unsigned int)uid, SCXL_POLKIT_ACTION);
	}
	if (authorized)
		return 0;
	return sd_bus_error_setf(err, SD_BUS_ERROR_ACCESS_DENIED,
				 "uid %u is not authorized to manage schedulers (polkit action "
				 "%s%s)",
				 (unsigned int)uid, SCXL_POLKIT_ACTION,
				 challenge ? ", needs authentication" : "");
}

/* ---- running scxctl ---- */

/* A scheduler name as GUIs pass it ("scx_brisk"; "brisk" too), resolved. */
static int resolve(const char *name, struct scxctl_sched *s, sd_bus_error *err)
{
	int r = scxctl_lookup(name, s);

	if (r)
		return sd_bus_error_setf(
			err, SCXL_ERR_UNKNOWN_SCHED,
			"'%s' is %s; SupportedSchedulers lists the installed ones", name,
			r == -EINVAL ? "not a scheduler name" : "not an installed scheduler");
	return 0;
}

static int check_mode(unsigned int mode, sd_bus_error *err)
{
	if (mode < SCXK_NR_MODES)
		return 0;
	return sd_bus_error_setf(err, SCXL_ERR_INVALID_MODE,
				 "mode %u is not one of 0 Auto, 1 Gaming, 2 PowerSave, "
				 "3 LowLatency, 4 Server",
				 mode);
}

/*
 * scxctl --local CMD [NAME --mode M | NAME -- ARGS...]; its exit status 2
 * is a refusal of the input (the scheduler rejected the arguments).
 */
static int run_scxctl(const char *cmd, const struct scxctl_sched *s, int mode, char *const *args,
		      int nargs, sd_bus_error *err)
{
	char *argv[MAX_ARGS + 10], modebuf[16], out[4096];
	int n = 0, rc, i;

	if (nargs > MAX_ARGS)
		return sd_bus_error_setf(err, SCXL_ERR_INVALID_ARGS,
					 "%d arguments, at most %d are accepted", nargs, MAX_ARGS);
	argv[n++] = (char *)scxctl_path();
	argv[n++] = "--local";
	argv[n++] = (char *)cmd;
	if (s) {
		argv[n++] = (char *)s->name;
		if (mode > 0) {
			snprintf(modebuf, sizeof(modebuf), "%d", mode);
			argv[n++] = "--mode";
			argv[n++] = modebuf;
		}
		argv[n++] = "--";
		for (i = 0; i < nargs; i++)
			argv[n++] = args[i];
	}
	argv[n] = NULL;
	rc = scxctl_run(argv, out, sizeof(out), SCXCTL_TIMEOUT_S);
	/* one message for the caller: scxctl's output, without the trailing newline */
	for (size_t len = strlen(out); len && out[len - 1] == '\n'; len--)
		out[len - 1] = '\0';
	if (rc == 0) {
		scxk_info("%s", out);
		return 0;
	}
	scxk_warn("scxctl %s%s%s failed (%d): %s", cmd, s ? " " : "", s ? s->name : "", rc, out);
	if (rc == 2)
		return sd_bus_error_setf(err, SCXL_ERR_INVALID_ARGS, "%s", out);
	return sd_bus_error_setf(err, SCXL_ERR_FAILED, "%s",
				 rc == -ETIMEDOUT ? "scxctl did not finish in time" : out);
}

static void remember(const struct scxctl_sched *s, unsigned int mode, bool with_args,
		     char *const *args, int nargs)
{
	char buf[4096], *flags[MAX_ARGS];
	int n = 0;

	cur_clear();
	if (!with_args && mode > 0)
		n = scxctl_mode_flags(s, (int)mode, buf, sizeof(buf), flags, MAX_ARGS);
	if (n < 0)
		return;
	snprintf(cur.name, sizeof(cur.name), "%s", s->name);
	cur.mode = with_args ? SCXK_MODE_AUTO : mode;
	cur.with_args = with_args;
	for (int i = 0; i < n; i++)
		cur.args[cur.nargs++] = strdup(flags[i]);
	for (int i = 0; with_args && i < nargs && cur.nargs < MAX_ARGS; i++)
		cur.args[cur.nargs++] = strdup(args[i]);
}

static void changed(sd_bus *bus)
{
	sd_bus_emit_properties_changed(bus, SCXL_OBJECT_PATH, SCXL_INTERFACE, "CurrentScheduler",
				       "SchedulerMode", "CurrentSchedulerArgs", NULL);
}

/*
 * Start and Switch both replace what runs, as upstream's scx_loader does
 * (its Start stops a running scheduler first); through "scxctl switch",
 * which falls back to the previous scheduler if the new one fails.
 */
static int do_switch(sd_bus_message *m, const char *name, unsigned int mode, bool with_args,
		     char **args, int nargs, sd_bus_error *err)
{
	struct scxctl_sched s;
	int r;

	if ((r = resolve(name, &s, err)) || (!with_args && (r = check_mode(mode, err))) ||
	    (r = authorize(m, err)))
		return r;
	if ((r = run_scxctl("switch", &s, with_args ? -1 : (int)mode, args, nargs, err)))
		return r;
	remember(&s, mode, with_args, args, nargs);
	changed(sd_bus_message_get_bus(m));
	return sd_bus_reply_method_return(m, NULL);
}

static int method_mode(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	const char *name;
	unsigned int mode;
	int r = sd_bus_message_read(m, "su", &name, &mode);

	if (r < 0)
		return r;
	return do_switch(m, name, mode, false, NULL, 0, err);
}

static int method_args(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	const char *name;
	char **args = NULL;
	int r, n;

	r = sd_bus_message_read(m, "s", &name);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &args);
	if (r < 0)
		return r;
	for (n = 0; args && args[n]; n++)
		;
	r = do_switch(m, name, 0, true, args, n, err);
	for (int i = 0; i < n; i++)
		free(args[i]);
	free(args);
	return r;
}

static int method_stop(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	int r;

	if ((r = authorize(m, err)) || (r = run_scxctl("stop", NULL, -1, NULL, 0, err)))
		return r;
	cur_clear();
	changed(sd_bus_message_get_bus(m));
	return sd_bus_reply_method_return(m, NULL);
}

/* The running scheduler again, with the mode or arguments it has now. */
static int method_restart(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	char *args[MAX_ARGS], name[SCXCTL_NAME_MAX + 1];
	struct scxctl_loader l;
	struct scxctl_sched s;
	unsigned int mode;
	bool ours;
	int n, r;

	if ((r = authorize(m, err)))
		return r;
	if (!running(&l, &ours) || !l.pid)
		return sd_bus_error_setf(err, SCXL_ERR_NOT_RUNNING,
					 "no scxkit scheduler runs, so none can be restarted");
	if ((r = resolve(l.name, &s, err)))
		return r;
	snprintf(name, sizeof(name), "%s", l.name);
	if (ours && !cur.with_args) {
		mode = cur.mode;
		return do_switch(m, name, mode, false, NULL, 0, err);
	}
	n = scxctl_loader_args(&l, args, MAX_ARGS);
	return do_switch(m, name, 0, true, args, n, err);
}

static int method_restore(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	char sched[SCXCTL_NAME_MAX + 8];
	int mode = default_mode();

	if (!defaults_get("SCX_SCHEDULER", sched, sizeof(sched)) || !sched[0])
		return sd_bus_error_setf(err, SCXL_ERR_NO_DEFAULT,
					 "no default scheduler: SCX_SCHEDULER is not set in %s",
					 SCXL_DEFAULTS);
	if (mode < 0)
		return sd_bus_error_setf(err, SCXL_ERR_INVALID_MODE,
					 "SCX_MODE in %s is not a mode (%s)", SCXL_DEFAULTS,
					 SCXK_MODE_NAMES);
	return do_switch(m, sched, (unsigned int)mode, false, NULL, 0, err);
}

/* ---- power profiles ---- */

/*
 * SCX_POWER_PROFILE_MODES in /etc/default/scx, e.g. "power-saver=powersave
 * balanced=auto performance=gaming": when power-profiles-daemon's
 * ActiveProfile changes, the running scxkit scheduler is switched to the
 * mapped mode (nothing starts when none runs). Return: the mode, or -1
 * when the profile is not mapped (or the mapping is bad: logged).
 */
static int profile_mode(const char *profile)
{
	char map[1024], *save = NULL, *w;
	int mode = -1;

	if (!defaults_get("SCX_POWER_PROFILE_MODES", map, sizeof(map)))
		return -1;
	for (w = strtok_r(map, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '=');

		if (!eq) {
			scxk_warn("SCX_POWER_PROFILE_MODES: '%s' is not PROFILE=MODE", w);
			continue;
		}
		*eq = '\0';
		if (strcmp(w, profile))
			continue;
		mode = scxk_mode_parse(eq + 1);
		if (mode < 0)
			scxk_warn("SCX_POWER_PROFILE_MODES: '%s' is not a mode (%s)", eq + 1,
				  SCXK_MODE_NAMES);
	}
	return mode;
}

static void apply_profile(sd_bus *bus, const char *profile)
{
	sd_bus_error err = SD_BUS_ERROR_NULL;
	struct scxctl_loader l;
	struct scxctl_sched s;
	int mode = profile_mode(profile);
	bool ours;

	if (mode < 0)
		return;
	if (!running(&l, &ours) || !l.pid || scxctl_lookup(l.name, &s)) {
		scxk_info("power profile %s: no scxkit scheduler runs, nothing to switch", profile);
		return;
	}
	if (ours && !cur.with_args && cur.mode == (unsigned int)mode)
		return;
	scxk_info("power profile %s: switching scx_%s to mode %s", profile, s.name,
		  scxk_mode_name((unsigned int)mode));
	if (run_scxctl("switch", &s, mode, NULL, 0, &err)) {
		scxk_warn("power profile %s: %s", profile, err.message);
		sd_bus_error_free(&err);
		return;
	}
	remember(&s, (unsigned int)mode, false, NULL, 0);
	changed(bus);
}

/* PropertiesChanged of power-profiles-daemon: (s interface, a{sv} changed, as invalidated) */
static int on_profile(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	const char *iface, *key, *profile;
	int r;

	r = sd_bus_message_read(m, "s", &iface);
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
		r = sd_bus_message_read(m, "s", &key);
		if (r >= 0 && !strcmp(key, "ActiveProfile")) {
			r = sd_bus_message_read(m, "v", "s", &profile);
			if (r >= 0)
				apply_profile(sd_bus_message_get_bus(m), profile);
		} else if (r >= 0) {
			r = sd_bus_message_skip(m, "v");
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
	}
	if (r < 0)
		scxk_warn("cannot read a power profile change: %s", strerror(-r));
	return 0;
}

/* Both names power-profiles-daemon has used (0.20 added the UPower one). */
static void watch_profiles(sd_bus *bus)
{
	static const char *const paths[][2] = {
		{"/net/hadess/PowerProfiles", "net.hadess.PowerProfiles"},
		{"/org/freedesktop/UPower/PowerProfiles", "org.freedesktop.UPower.PowerProfiles"},
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char match[256];
		int r;

		snprintf(match, sizeof(match),
			 "type='signal',interface='org.freedesktop.DBus.Properties',"
			 "member='PropertiesChanged',path='%s',arg0='%s'",
			 paths[i][0], paths[i][1]);
		r = sd_bus_add_match(bus, NULL, match, on_profile, NULL);
		if (r < 0)
			scxk_warn("cannot watch %s: %s", paths[i][1], strerror(-r));
	}
}

static const sd_bus_vtable vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("CurrentScheduler", "s", prop_current, 0, 0),
	SD_BUS_PROPERTY("SchedulerMode", "u", prop_mode, 0, 0),
	SD_BUS_PROPERTY("CurrentSchedulerArgs", "as", prop_args, 0, 0),
	SD_BUS_PROPERTY("SupportedSchedulers", "as", prop_supported, 0, 0),
	SD_BUS_PROPERTY("DefaultScheduler", "s", prop_default_sched, 0, 0),
	SD_BUS_PROPERTY("DefaultMode", "u", prop_default_mode, 0, 0),
	SD_BUS_METHOD_WITH_ARGS("StartScheduler", SD_BUS_ARGS("s", scx_name, "u", sched_mode),
				SD_BUS_NO_RESULT, method_mode, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("StartSchedulerWithArgs",
				SD_BUS_ARGS("s", scx_name, "as", scx_args), SD_BUS_NO_RESULT,
				method_args, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SwitchScheduler", SD_BUS_ARGS("s", scx_name, "u", sched_mode),
				SD_BUS_NO_RESULT, method_mode, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SwitchSchedulerWithArgs",
				SD_BUS_ARGS("s", scx_name, "as", scx_args), SD_BUS_NO_RESULT,
				method_args, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("StopScheduler", "", "", method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("RestartScheduler", "", "", method_restart, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("RestoreDefault", "", "", method_restore, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

int main(int argc, char **argv)
{
	sd_bus_slot *slot = NULL;
	sd_bus *bus = NULL;
	int r;

	scxk_log_setup("scxkit-loader", argc > 1 && !strcmp(argv[1], "-v"));
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: scxkit-loader [-v]\n\nThe org.scx.Loader D-Bus service on the "
		       "system bus (see scxctl(8)); started by D-Bus activation.\n");
		return 0;
	}
	/* scxctl's children are reaped by scxctl_run(); a stray one must not linger */
	signal(SIGPIPE, SIG_IGN);
	r = sd_bus_open_system(&bus);
	if (r < 0)
		return scxk_err(r, "cannot connect to the system bus"), 1;
	r = sd_bus_add_object_vtable(bus, &slot, SCXL_OBJECT_PATH, SCXL_INTERFACE, vtable, NULL);
	if (r < 0)
		return scxk_err(r, "cannot register %s", SCXL_OBJECT_PATH), 1;
	r = sd_bus_request_name(bus, SCXL_BUS_NAME, 0);
	if (r < 0)
		return scxk_err(r,
				"cannot own %s (another loader, e.g. upstream's scx_loader, "
				"may run)",
				SCXL_BUS_NAME),
		       1;
	watch_profiles(bus);
	for (;;) {
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			return scxk_err(r, "D-Bus processing failed"), 1;
		if (r > 0)
			continue;
		r = sd_bus_wait(bus, UINT64_MAX);
		if (r < 0 && r != -EINTR)
			return scxk_err(r, "D-Bus wait failed"), 1;
	}
}
