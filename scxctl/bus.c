// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxctl as a client of the org.scx.Loader service (scxkit-loader): when
 * the service runs, start, switch and stop go through it, so that what it
 * reports (CurrentScheduler, SchedulerMode) stays true and a user whom
 * polkit allows needs no sudo. The service runs the same scxctl code path
 * (scxctl --local), so the result is the same either way. It is never
 * activated from here: when it does not run, scxctl does the work itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include <scxkit/log.h>

#include "scxctl.h"
#include "dbus_names.h"

bool scxctl_bus_loader_running(void)
{
	sd_bus_message *reply = NULL;
	sd_bus *bus = NULL;
	int has = 0;

	if (sd_bus_open_system(&bus) < 0)
		return false;
	if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", NULL, &reply, "s",
			       SCXL_BUS_NAME) >= 0)
		sd_bus_message_read(reply, "b", &has);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return has;
}

static int append_args(sd_bus_message *m, char *const *args, int nargs)
{
	int r = sd_bus_message_open_container(m, 'a', "s");

	for (int i = 0; r >= 0 && i < nargs; i++)
		r = sd_bus_message_append(m, "s", args[i]);
	return r < 0 ? r : sd_bus_message_close_container(m);
}

static int map_error(const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED))
		return -EACCES;
	if (sd_bus_error_has_name(e, SCXL_ERR_UNKNOWN_SCHED) ||
	    sd_bus_error_has_name(e, SCXL_ERR_INVALID_MODE) ||
	    sd_bus_error_has_name(e, SCXL_ERR_INVALID_ARGS))
		return -EINVAL;
	return r < 0 ? r : -EIO;
}

int scxctl_bus_run(const char *method, const char *name, int mode, char *const *args, int nargs,
		   unsigned int timeout_s)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	char sched[SCXCTL_NAME_MAX + 8];
	sd_bus *bus = NULL;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		return scxk_err(r, "cannot connect to the system bus");
	r = sd_bus_message_new_method_call(bus, &m, SCXL_BUS_NAME, SCXL_OBJECT_PATH, SCXL_INTERFACE,
					   method);
	if (r >= 0 && name) {
		snprintf(sched, sizeof(sched), "scx_%s", name);
		r = sd_bus_message_append(m, "s", sched);
		if (r >= 0 && strstr(method, "WithArgs"))
			r = append_args(m, args, nargs);
		else if (r >= 0)
			r = sd_bus_message_append(m, "u", (unsigned int)(mode < 0 ? 0 : mode));
	}
	if (r < 0) {
		scxk_err(r, "cannot build the %s call", method);
		goto out;
	}
	/* The service waits for the kernel (and may fall back): allow for both. */
	r = sd_bus_call(bus, m, (uint64_t)(2 * timeout_s + 30) * 1000000ULL, &e, &reply);
	if (r < 0) {
		scxk_log(SCXK_LOG_ERROR, "%s: %s (%s)", SCXL_BUS_NAME,
			 e.message ? e.message : strerror(-r), e.name ? e.name : "no error name");
		r = map_error(&e, r);
		goto out;
	}
	if (name)
		printf("%s scx_%s through %s\n",
		       strncmp(method, "Switch", 6) ? "started" : "switched to", name,
		       SCXL_BUS_NAME);
	else
		printf("stopped the scheduler through %s\n", SCXL_BUS_NAME);
	r = 0;
out:
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r;
}
