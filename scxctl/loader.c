// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the kernel runs and which process runs it, and the direct way of
 * starting and stopping a scheduler (no systemd): a detached child whose
 * output goes to a log file, and a signal to the loader for a clean detach.
 *
 * The kernel only knows the ops name. The loader is found through /proc:
 * the process named scx_<ops> that holds a struct_ops BPF link. A --monitor
 * client of the same binary holds none, so it is never mistaken for it.
 */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <scxkit/fileio.h>
#include <scxkit/log.h>
#include <scxkit/stats.h>

#include "scxctl.h"

#define POLL_MS	     100 /* sysfs polling period while waiting for the kernel */
#define KILL_GRACE_S 5	 /* after SIGKILL, the kernel detaches within this */
#define LOG_TAIL     12	 /* lines of a failed scheduler's log shown */
#define MAX_ARGS     256 /* scheduler arguments accepted, plus our own few */
/* Parsing options takes milliseconds; anything longer is stuck, not slow. */
#define CHECK_TIMEOUT_S 10

const char *scxctl_sysfs(void)
{
	static char path[SCXCTL_PATH_MAX];
	const char *prefix = getenv("SCX_SYSFS_PREFIX");

	if (!path[0])
		snprintf(path, sizeof(path), "%s/sys/kernel/sched_ext", prefix ? prefix : "");
	return path;
}

static void read_line(const char *dir, const char *file, char *out, size_t len)
{
	char path[SCXCTL_PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (scxk_read_line(path, out, len))
		out[0] = '\0';
}

void scxctl_kstate_read(struct scxctl_kstate *ks)
{
	const char *d = scxctl_sysfs();
	struct stat st;

	memset(ks, 0, sizeof(*ks));
	ks->present = !stat(d, &st) && S_ISDIR(st.st_mode);
	if (!ks->present)
		return;
	read_line(d, "state", ks->state, sizeof(ks->state));
	read_line(d, "root/ops", ks->ops, sizeof(ks->ops));
	read_line(d, "switch_all", ks->switch_all, sizeof(ks->switch_all));
	read_line(d, "enable_seq", ks->enable_seq, sizeof(ks->enable_seq));
	read_line(d, "nr_rejected", ks->nr_rejected, sizeof(ks->nr_rejected));
}

bool scxctl_ops_is(const char *ops, const char *name)
{
	size_t len = strlen(name);

	/* Some loaders append a version to the ops name ("name_1.2.3"). */
	return !strncmp(ops, name, len) && (ops[len] == '\0' || ops[len] == '_');
}

bool scxctl_wait_state(const char *want, const char *ops, unsigned int timeout_s)
{
	struct timespec ts = {0, POLL_MS * 1000000L};
	long left = (long)timeout_s * 1000 / POLL_MS;
	struct scxctl_kstate ks;

	for (;;) {
		scxctl_kstate_read(&ks);
		if (!strcmp(ks.state, want) && (!ops || scxctl_ops_is(ks.ops, ops)))
			return true;
		if (left-- <= 0)
			return false;
		nanosleep(&ts, NULL);
	}
}

/* ---- /proc ---- */

static long long boot_time(void)
{
	char line[256];
	long long bt = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "btime ", 6)) {
			bt = strtoll(line + 6, NULL, 10);
			break;
		}
	}
	fclose(f);
	return bt;
}

/* Process state letter and start time (Unix seconds); 0 if gone. */
static char proc_state(pid_t pid, long long *start)
{
	char path[64], buf[1024], *p, *tok, *save = NULL;
	unsigned long long ticks = 0;
	char st = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (scxk_read_line(path, buf, sizeof(buf)))
		return 0;
	/* comm may hold spaces and parentheses: fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* Field 3 (state) is token 0 here, field 22 (starttime) token 19; see proc(5). */
	for (i = 0, tok = strtok_r(p + 1, " ", &save); tok && i <= 19;
	     i++, tok = strtok_r(NULL, " ", &save)) {
		if (i == 0)
			st = tok[0];
		else if (i == 19)
			ticks = strtoull(tok, NULL, 10);
	}
	if (start)
		*start =
			boot_time() + (long long)(ticks / (unsigned long long)sysconf(_SC_CLK_TCK));
	return st;
}

static bool proc_gone(pid_t pid)
{
	char st = proc_state(pid, NULL);

	return !st || st == 'Z' || st == 'X';
}

/* 1 if @pid holds a struct_ops link, 0 if not, -EACCES if we cannot tell. */
static int holds_struct_ops(pid_t pid)
{
	char path[64], file[64 + 256], buf[512];
	struct dirent *de;
	int found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	if (!d)
		return -EACCES;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		if (scxk_read_file(file, buf, sizeof(buf)) <= 0)
			continue;
		found = strstr(buf, "link_type:\tstruct_ops") != NULL;
	}
	closedir(d);
	return found;
}

/* argv of @pid joined by spaces; also picks --stats-socket out of it. */
static void read_cmdline(pid_t pid, struct scxctl_loader *l, bool *monitor)
{
	char path[64], buf[4096];
	size_t off = 0, len;
	ssize_t n;

	*monitor = false;
	snprintf(l->stats_path, sizeof(l->stats_path), "%s", SCXK_STATS_DEFAULT_PATH);
	l->cmdline[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	n = scxk_read_file(path, buf, sizeof(buf));
	if (n <= 0)
		return;
	/* A full buffer may have cut argv: then it is shown, never reused. */
	if ((size_t)n < sizeof(buf) - 1 && (size_t)n <= sizeof(l->argv_buf)) {
		memcpy(l->argv_buf, buf, (size_t)n);
		l->argv_len = (size_t)n;
	}
	for (char *a = buf; a < buf + n; a += len + 1) {
		len = strlen(a);
		if (!strcmp(a, "--monitor") || !strncmp(a, "--monitor=", 10))
			*monitor = true;
		if (!strncmp(a, "--stats-socket=", 15))
			snprintf(l->stats_path, sizeof(l->stats_path), "%s", a + 15);
		else if (!strcmp(a, "--stats-socket") && a + len + 1 < buf + n)
			snprintf(l->stats_path, sizeof(l->stats_path), "%s", a + len + 1);
		off += snprintf(l->cmdline + off, sizeof(l->cmdline) - off, "%s%s", off ? " " : "",
				a);
		if (off >= sizeof(l->cmdline))
			break;
	}
}

int scxctl_loader_args(struct scxctl_loader *l, char **args, int max)
{
	char *a = l->argv_buf, *end = l->argv_buf + l->argv_len;
	int n = 0;

	if (!l->argv_len || end[-1] != '\0')
		return 0;
	for (a += strlen(a) + 1; a < end; a += strlen(a) + 1) {
		if (n == max)
			return 0;
		args[n++] = a;
	}
	return n;
}

int scxctl_find_loader(const char *ops, struct scxctl_loader *out)
{
	struct scxctl_loader best = {0}, cur;
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return -ESRCH;
	while ((de = readdir(d))) {
		char path[64], comm[32];
		bool monitor;
		int link;

		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		read_line(path, "comm", comm, sizeof(comm));
		if (strncmp(comm, "scx_", 4) || !scxctl_name_valid(comm + 4) ||
		    !scxctl_ops_is(ops, comm + 4) || proc_gone(pid))
			continue;
		memset(&cur, 0, sizeof(cur));
		cur.pid = pid;
		snprintf(cur.name, sizeof(cur.name), "%s", comm + 4);
		read_cmdline(pid, &cur, &monitor);
		proc_state(pid, &cur.start_time);
		link = holds_struct_ops(pid);
		if (link == 1) {
			cur.holds_link = true;
			best = cur;
			break;
		}
		if (link == -EACCES && !monitor && !best.pid)
			best = cur;
	}
	closedir(d);
	if (!best.pid)
		return -ESRCH;
	*out = best;
	return 0;
}

/* ---- running binaries ---- */

/* Milliseconds left until @deadline, at least 0; -1 (no limit) without one. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	if (!deadline)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

int scxctl_run(char *const *argv, char *out, size_t out_len, unsigned int timeout_s)
{
	struct timespec deadline;
	bool timed_out = false;
	size_t used = 0;
	int pfd[2], st;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_s;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		/*
		 * Under a time limit, a group of its own, so the kill reaches
		 * what it started too; else it stays in ours, in reach of ^C.
		 */
		if (timeout_s)
			setpgid(0, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (timeout_s)
		setpgid(pid, pid); /* also here: the child may not have run yet */
	close(pfd[1]);
	for (;;) {
		struct pollfd p = {pfd[0], POLLIN, 0};
		char sink[512];
		char *dst = out && used + 1 < out_len ? out + used : sink;
		size_t room = out && used + 1 < out_len ? out_len - used - 1 : sizeof(sink);
		int ready = poll(&p, 1, ms_left(timeout_s ? &deadline : NULL));
		ssize_t n;

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready == 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		n = read(pfd[0], dst, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (dst != sink)
			used += (size_t)n;
	}
	close(pfd[0]);
	if (out && out_len)
		out[used] = '\0';
	/* Output closed early: the child may still hang without writing. */
	while (!timed_out) {
		pid_t w = waitpid(pid, &st, timeout_s ? WNOHANG : 0);
		struct timespec ts = {0, POLL_MS * 1000000L};

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (w == 0 && !ms_left(&deadline)) {
			timed_out = true;
			kill(-pid, SIGKILL);
			break;
		}
		if (w == 0)
			nanosleep(&ts, NULL);
	}
	if (timed_out) {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -ETIMEDOUT;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * argv for execv: scx_<name>, @first (may be NULL), @args..., NULL. @first
 * goes before the arguments: after them, a "--" among them would turn it
 * into a positional argument.
 */
static char **build_argv(const struct scxctl_sched *s, char *const *args, int argc,
			 const char *first)
{
	char **v;
	int i, n = 0;

	if (argc > MAX_ARGS)
		return NULL;
	v = calloc((size_t)argc + 3, sizeof(*v));
	if (!v)
		return NULL;
	v[n++] = (char *)s->binary;
	if (first)
		v[n++] = (char *)first;
	for (i = 0; i < argc; i++)
		v[n++] = args[i];
	return v;
}

int scxctl_check_args(const struct scxctl_sched *s, char *const *argv, int argc)
{
	char out[4096];
	char **v = build_argv(s, argv, argc, "--check-args");
	int rc;

	if (!v)
		return scxk_err(-E2BIG, "too many arguments for scx_%s (at most %d)", s->name,
				MAX_ARGS);
	rc = scxctl_run(v, out, sizeof(out), CHECK_TIMEOUT_S);
	free(v);
	if (rc == -ETIMEDOUT)
		return scxk_err(rc,
				"%s did not finish checking its arguments within %d s; "
				"nothing was started",
				s->binary, CHECK_TIMEOUT_S);
	if (rc < 0)
		return scxk_err(rc, "cannot run %s", s->binary);
	if (rc == 0)
		return 0;
	fputs(out, stderr);
	if (rc == 2)
		return -EINVAL;
	return scxk_err(-EIO, "%s exited with status %d while checking its arguments", s->binary,
			rc);
}

static void show_log_tail(const char *path)
{
	char line[512], *ring[LOG_TAIL] = {0};
	unsigned int n = 0, i;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		free(ring[n % LOG_TAIL]);
		ring[n % LOG_TAIL] = strdup(line);
		n++;
	}
	fclose(f);
	for (i = n > LOG_TAIL ? n - LOG_TAIL : 0; i < n; i++) {
		if (ring[i % LOG_TAIL])
			fprintf(stderr, "  | %s", ring[i % LOG_TAIL]);
	}
	for (i = 0; i < LOG_TAIL; i++)
		free(ring[i]);
}

static pid_t spawn_detached(char **argv, const char *log_path)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	/* A session of its own: the scheduler outlives this scxctl and its terminal. */
	setsid();
	int null = open("/dev/null", O_RDONLY);
	int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (null < 0 || log < 0) {
		fprintf(stderr, "scxctl: cannot open %s: %s\n", log_path, strerror(errno));
		_exit(1);
	}
	dup2(null, 0);
	dup2(log, 1);
	dup2(log, 2);
	execv(argv[0], argv);
	fprintf(stderr, "scxctl: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int scxctl_direct_start(const struct scxctl_sched *s, char *const *args, int argc,
			const struct scxctl_opts *o)
{
	struct timespec ts = {0, POLL_MS * 1000000L};
	long left = (long)o->timeout_s * 1000 / POLL_MS;
	char log_path[SCXCTL_PATH_MAX];
	struct scxctl_kstate ks;
	char **v;
	pid_t pid;
	int st;

	if (mkdir(o->log_dir, 0755) && errno != EEXIST)
		return scxk_err(-errno, "cannot create the log directory %s", o->log_dir);
	snprintf(log_path, sizeof(log_path), "%s/scxctl-%s.log", o->log_dir, s->name);
	v = build_argv(s, args, argc, NULL);
	if (!v)
		return scxk_err(-ENOMEM, "cannot start scx_%s", s->name);
	pid = spawn_detached(v, log_path);
	free(v);
	if (pid < 0)
		return scxk_err(-errno, "cannot fork");
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid) {
			scxk_log(SCXK_LOG_ERROR,
				 "scx_%s exited with %s %d before it was enabled; "
				 "its log (%s):",
				 s->name, WIFEXITED(st) ? "status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), log_path);
			show_log_tail(log_path);
			/* Its own exit 2: it rejected its configuration, a usage error. */
			return WIFEXITED(st) && WEXITSTATUS(st) == 2 ? -EINVAL : -EIO;
		}
		scxctl_kstate_read(&ks);
		if (!strcmp(ks.state, "enabled") && scxctl_ops_is(ks.ops, s->name)) {
			printf("started scx_%s (pid %d), output in %s\n", s->name, pid, log_path);
			return 0;
		}
		if (left-- <= 0)
			break;
		nanosleep(&ts, NULL);
	}
	return scxk_err(-ETIMEDOUT,
			"scx_%s (pid %d) is not enabled after %u s (sched_ext state \"%s\"); it "
			"keeps trying, see %s",
			s->name, pid, o->timeout_s, ks.state, log_path);
}

/* Wait until @pid is gone and sched_ext is disabled: true on success. */
static bool wait_detached(pid_t pid, unsigned int timeout_s)
{
	struct timespec ts = {0, POLL_MS * 1000000L};
	long left = (long)timeout_s * 1000 / POLL_MS;
	struct scxctl_kstate ks;

	for (;;) {
		/* Our own child (start then stop in one scxctl run) must be reaped. */
		waitpid(pid, NULL, WNOHANG);
		scxctl_kstate_read(&ks);
		if (proc_gone(pid) && strcmp(ks.state, "enabled") && strcmp(ks.state, "enabling") &&
		    strcmp(ks.state, "disabling"))
			return true;
		if (left-- <= 0)
			return false;
		nanosleep(&ts, NULL);
	}
}

int scxctl_direct_stop(const struct scxctl_opts *o)
{
	struct scxctl_loader l;
	struct scxctl_kstate ks;

	scxctl_kstate_read(&ks);
	if (strcmp(ks.state, "enabled") && strcmp(ks.state, "enabling"))
		return -ESRCH;
	if (scxctl_find_loader(ks.ops, &l))
		return scxk_err(-ESRCH,
				"sched_ext runs \"%s\" but no scxkit loader process for it was "
				"found; stop it with the tool that started it",
				ks.ops);
	/* SIGINT is the loaders' clean path: detach, report, exit 0. */
	if (kill(l.pid, SIGINT))
		return scxk_err(-errno, "cannot signal scx_%s (pid %d)", l.name, l.pid);
	if (wait_detached(l.pid, o->timeout_s)) {
		printf("stopped scx_%s (pid %d)\n", l.name, l.pid);
		return 0;
	}
	scxk_warn("scx_%s (pid %d) did not detach within %u s; killing it", l.name, l.pid,
		  o->timeout_s);
	kill(l.pid, SIGKILL);
	if (wait_detached(l.pid, KILL_GRACE_S)) {
		printf("stopped scx_%s (pid %d) with SIGKILL\n", l.name, l.pid);
		return 0;
	}
	return scxk_err(-ETIMEDOUT, "sched_ext is still %s after killing scx_%s", ks.state, l.name);
}
