/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tunable.h - global kernel tunables a loader changes while it runs
 * (vm.compact_unevictable_allowed, a CPU's PM QoS), kept restorable across
 * an unclean exit.
 *
 * The kernel does not undo a sysctl or sysfs write when the process that
 * made it dies, so a loader killed by SIGKILL leaves its value behind, and
 * a loader that then saved the current value as "original" would make the
 * leak permanent. The original is therefore written once to a file under
 * the run directory ($SCXK_RUN_DIR, default /run/scx, a tmpfs cleared at
 * boot) before the first change, together with the owner's pid and start
 * time; a clean exit restores it and removes the file, and the next start
 * restores whatever a dead loader left.
 */
#ifndef __SCXKIT_TUNABLE_H
#define __SCXKIT_TUNABLE_H

/* Overrides SCXK_RUN_DIR_DEFAULT; the unit tests point it at a temp dir. */
#define SCXK_RUN_DIR_ENV     "SCXK_RUN_DIR"
#define SCXK_RUN_DIR_DEFAULT "/run/scx"
/* Saved originals live in this subdirectory of the run directory. */
#define SCXK_TUNABLE_SUBDIR "tunables"

/**
 * scxk_tunable_set - write @value to @path, keeping the true original
 * @key: a file name for the saved original, unique per tunable
 *       ("vm.compact_unevictable_allowed", "cpu3.pm_qos_resume_latency_us");
 *       no '/'
 * @path: the sysctl or sysfs file
 * @value: what to write
 *
 * The current content of @path is saved under @key only if nothing is
 * saved yet: a save of this process is kept (a restart in-process changes
 * the value again), a save of a dead loader is restored first.
 *
 * Return: 0; -EBUSY when a live process owns the saved original; another
 * negative errno when @path cannot be read or written or the original
 * cannot be saved (then @path is left unchanged).
 */
int scxk_tunable_set(const char *key, const char *path, const char *value);

/**
 * scxk_tunable_restore - write back the original saved under @key and
 *                        remove the saved file
 *
 * Return: 0, also when nothing was saved; a negative errno when the
 * original cannot be written (the saved file is kept for the next start).
 */
int scxk_tunable_restore(const char *key);

/**
 * scxk_tunable_recover - restore every original saved by a loader that is
 *                        no longer running
 *
 * Called once at start, before anything is changed.
 * Return: the number of tunables restored, or a negative errno when one
 * could not be (logged).
 */
int scxk_tunable_recover(void);

#endif /* __SCXKIT_TUNABLE_H */
