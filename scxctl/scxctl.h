/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scxctl.h - the parts of scxctl: the set of installed schedulers
 * (registry.c), the kernel's view and the loader processes (loader.c), and
 * scx.service (service.c). main.c parses the command line and runs the
 * commands (status, the switch with its fallback to the previous scheduler).
 */
#ifndef __SCXCTL_H
#define __SCXCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <scxkit/sched_name.h>

/* Longest scheduler name; scx_<name> must fit the kernel's 16-byte comm. */
#define SCXCTL_NAME_MAX SCXK_SCHED_NAME_MAX
#define SCXCTL_DESC_MAX 256
#define SCXCTL_PATH_MAX 4096

/* Where meson installs them; the environment can point elsewhere. */
#ifndef SCXCTL_SCHED_DIR
#define SCXCTL_SCHED_DIR "/usr/share/scxkit/schedulers"
#endif
#ifndef SCXCTL_BIN_DIR
#define SCXCTL_BIN_DIR "/usr/bin"
#endif

struct scxctl_sched {
	char name[SCXCTL_NAME_MAX + 1]; /* "brisk" */
	char desc[SCXCTL_DESC_MAX];	/* one line from the registry entry */
	char binary[SCXCTL_PATH_MAX];	/* <bindir>/scx_<name> */
};

struct scxctl_opts {
	bool direct;		/* never go through scx.service */
	bool local;		/* never go through the org.scx.Loader service */
	unsigned int timeout_s; /* how long start/stop wait for the kernel */
	const char *log_dir;	/* direct mode: where schedulers' output goes */
	int verbose;
};

/* ---- registry.c: the installed set ---- */

/** scxctl_sched_dir - directory of registry entries (one file per scheduler) */
const char *scxctl_sched_dir(void);

/** scxctl_bin_dir - directory holding the scx_<name> binaries */
const char *scxctl_bin_dir(void);

/**
 * scxctl_name_valid - @name is a well-formed scheduler name: 1 to
 *                     SCXCTL_NAME_MAX of [a-z0-9_], starting with a letter
 */
bool scxctl_name_valid(const char *name);

/**
 * scxctl_list - every installed scheduler, sorted by name
 * @out: set to a malloc'd array (caller frees)
 *
 * A scheduler is installed when its registry entry exists and its binary
 * is an executable regular file. Return: the count, or a negative errno.
 */
int scxctl_list(struct scxctl_sched **out);

/**
 * scxctl_lookup - find @name ("brisk" or "scx_brisk") in the installed set
 * Return: 0, -EINVAL for a malformed name, -ENOENT if not installed.
 */
int scxctl_lookup(const char *name, struct scxctl_sched *out);

/* ---- loader.c: sched_ext and the loader processes ---- */

struct scxctl_kstate {
	bool present;	/* /sys/kernel/sched_ext exists */
	char state[32]; /* "enabled", "disabled", "enabling", ... */
	char ops[128];	/* root/ops: the running scheduler's ops name */
	char switch_all[8];
	char enable_seq[32];
	char nr_rejected[32];
};

struct scxctl_loader {
	pid_t pid;
	char name[SCXCTL_NAME_MAX + 1]; /* scheduler name from the binary */
	char cmdline[1024];		/* argv joined by spaces, for display */
	char argv_buf[4096];		/* argv as the kernel keeps it: NUL-separated */
	size_t argv_len;
	char stats_path[108]; /* --stats-socket, or the default */
	long long start_time; /* Unix time the process started */
	bool holds_link;      /* owns a struct_ops BPF link (needs root to see) */
};

/** scxctl_sysfs - the sched_ext directory, under $SCX_SYSFS_PREFIX if set */
const char *scxctl_sysfs(void);

/** scxctl_kstate_read - fill @ks from sysfs; never fails (fields stay empty) */
void scxctl_kstate_read(struct scxctl_kstate *ks);

/** scxctl_ops_is - the kernel's ops name @ops belongs to scheduler @name */
bool scxctl_ops_is(const char *ops, const char *name);

/**
 * scxctl_find_loader - the scxkit process that runs the enabled scheduler
 * @ops: the kernel's ops name
 * @out: filled on success
 *
 * Prefers the process holding a struct_ops link; without root (fdinfo is
 * unreadable) falls back to a process named scx_<ops> that is not a
 * --monitor client. Return: 0 or -ESRCH.
 */
int scxctl_find_loader(const char *ops, struct scxctl_loader *out);

/**
 * scxctl_check_args - let the scheduler itself judge @argv without loading
 * anything: it parses them after --check-args, which stops before the
 * scheduler's own validation (that may read or write files), within a
 * time limit. Prints the scheduler's complaint.
 * Return: 0, -EINVAL if it rejected them, other negative errno on failure.
 */
int scxctl_check_args(const struct scxctl_sched *s, char *const *argv, int argc);

/**
 * scxctl_direct_start - run @s with @argv as a detached process and wait
 *                       until the kernel reports it enabled
 * Return: 0, or a negative errno after logging what happened.
 */
int scxctl_direct_start(const struct scxctl_sched *s, char *const *argv, int argc,
			const struct scxctl_opts *o);

/**
 * scxctl_direct_stop - signal the running loader and wait until sched_ext
 *                      is disabled; SIGKILL after the timeout
 * Return: 0, -ESRCH if no scheduler runs, or another negative errno.
 */
int scxctl_direct_stop(const struct scxctl_opts *o);

/**
 * scxctl_loader_args - the arguments @l was started with (argv[1..]), for
 *                      starting it again
 * @args: receives pointers into @l->argv_buf; room for @max
 * Return: their count (0 if argv was too long to keep whole).
 */
int scxctl_loader_args(struct scxctl_loader *l, char **args, int max);

/** scxctl_wait_state - poll sysfs until @want (or, if @ops, that ops) or @timeout_s */
bool scxctl_wait_state(const char *want, const char *ops, unsigned int timeout_s);

/* ---- mode.c: scheduler modes (include/scxkit/mode.h) ---- */

#define SCXCTL_ARGV_MAX 256

/* A scheduler's arguments: a mode's flags (in @buf) then the user's. */
struct scxctl_argv {
	char *argv[SCXCTL_ARGV_MAX + 1]; /* NULL-terminated */
	int argc;
	char buf[4096];
};

/**
 * scxctl_mode_flags - the flags scheduler @s declares for @mode, from its
 *                     --mode-flags output
 * @buf, @len: holds the words @argv points into
 * Return: their count, or a negative errno after logging.
 */
int scxctl_mode_flags(const struct scxctl_sched *s, int mode, char *buf, size_t len, char **argv,
		      int max);

/**
 * scxctl_take_mode - take a leading "--mode M" or "--mode=M" off @argv
 * @mode: set to the mode, or -1 when there is none
 * Return: 0, or -EINVAL (logged) for a missing or unknown mode.
 */
int scxctl_take_mode(int *argc, char ***argv, int *mode);

/**
 * scxctl_mode_argv - @mode's flags (none for Auto or @mode < 0) followed
 *                    by @args, so an explicit option wins over the mode's
 * Return: 0 or a negative errno after logging.
 */
int scxctl_mode_argv(const struct scxctl_sched *s, int mode, char *const *args, int nargs,
		     struct scxctl_argv *out);

/* ---- bus.c: the org.scx.Loader service, as a client ---- */

/** scxctl_bus_loader_running - org.scx.Loader has an owner (never activates it) */
bool scxctl_bus_loader_running(void);

/**
 * scxctl_bus_run - start, switch or stop through org.scx.Loader
 * @method: "SwitchScheduler", "StopScheduler", ...
 * @name: the scheduler ("brisk"), NULL for StopScheduler
 * @mode: for the methods without args; @args: for the *WithArgs ones
 * Return: 0, -EINVAL for a refusal of the input, -EACCES when polkit
 * refused, other negative errno; the service's message is printed.
 */
int scxctl_bus_run(const char *method, const char *name, int mode, char *const *args, int nargs,
		   unsigned int timeout_s);

/* ---- service.c: scx.service ---- */

/** scxctl_service_usable - systemd runs and scx.service is installed */
bool scxctl_service_usable(void);

/** scxctl_service_active - scx.service is active, activating or reloading */
bool scxctl_service_active(void);

/**
 * scxctl_service_run - start (@restart false) or restart the service with
 *                      @s and @argv as the override, then wait for the kernel
 */
int scxctl_service_run(const struct scxctl_sched *s, char *const *argv, int argc, bool restart,
		       const struct scxctl_opts *o);

/** scxctl_service_stop - stop the service and drop the overrides */
int scxctl_service_stop(const struct scxctl_opts *o);

/**
 * scxctl_service_exec - scx.service's ExecStart: resolve the scheduler and
 * flags from the environment and exec it. Returns only on failure, with an
 * exit status (2 for bad configuration, 1 otherwise).
 */
int scxctl_service_exec(void);

/**
 * scxctl_split_flags - split @flags at blanks into @argv (no quoting, no
 *                      expansion: what systemd does with $SCX_FLAGS)
 * @flags: modified in place
 * Return: number of words, or -E2BIG if more than @max.
 */
int scxctl_split_flags(char *flags, char **argv, int max);

/**
 * scxctl_run - run @argv (no shell) and wait, keeping its output in @out
 * @timeout_s: 0 for no limit; else the child's process group is killed
 *             after that long
 * Return: exit status, -ETIMEDOUT, or another -errno
 */
int scxctl_run(char *const *argv, char *out, size_t out_len, unsigned int timeout_s);

/* ---- top.c: the live view ---- */

/**
 * scxctl_top - the top command: @argv is "top [--once] [SOCKET]"
 * Return: an exit status (1 when no scheduler runs or its stats are unreadable).
 */
int scxctl_top(int argc, char **argv);

#endif /* __SCXCTL_H */
