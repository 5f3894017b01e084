/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dbus_names.h - the names of the org.scx.Loader service, shared by the
 * service (dbus_service.c) and its client in scxctl (bus.c). The bus name,
 * object path and interface are upstream scx_loader's (its
 * configs/org.scx.Loader.xml), so its GUIs work unchanged; the error names
 * are ours (upstream sends org.freedesktop.DBus.Error.Failed for all).
 */
#ifndef __SCXCTL_DBUS_NAMES_H
#define __SCXCTL_DBUS_NAMES_H

#define SCXL_BUS_NAME	 "org.scx.Loader"
#define SCXL_OBJECT_PATH "/org/scx/Loader"
#define SCXL_INTERFACE	 "org.scx.Loader"
/* upstream's action id, so polkit rules written for scx_loader apply here too */
#define SCXL_POLKIT_ACTION "org.scx.loader.manage-schedulers"

#define SCXL_ERR_UNKNOWN_SCHED "org.scx.Loader.Error.UnknownScheduler"
#define SCXL_ERR_INVALID_MODE  "org.scx.Loader.Error.InvalidMode"
#define SCXL_ERR_INVALID_ARGS  "org.scx.Loader.Error.InvalidArguments"
#define SCXL_ERR_NOT_RUNNING   "org.scx.Loader.Error.NotRunning"
#define SCXL_ERR_NO_DEFAULT    "org.scx.Loader.Error.NoDefault"
#define SCXL_ERR_FAILED	       "org.scx.Loader.Error.Failed"

#endif /* __SCXCTL_DBUS_NAMES_H */
