// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-shares: how the running scheduler divides CPU time by cgroup
 * cpu.weight and by nice, against the ideal the weights give.
 *
 * Every group is one process of --count CPU-bound threads (default: one
 * per online CPU), so each group alone could fill the machine and the
 * split between groups is the scheduler's choice alone. After --warm
 * seconds, the CPU time each group gets over --window seconds is read
 * from the kernel (cgroup cpu.stat usage_usec; for nice, the threads'
 * /proc/PID/task/TID/schedstat), and the ratio of two groups is compared
 * with the ideal. The cases, in one run and in this order:
 *
 *   weights   siblings at cpu.weight 300 and 100              ideal 3
 *   reweight  the same two set to 100 and 400 while running   ideal 4
 *   churn     the 400 group's process moved into a new cgroup
 *             (weight 300, as the other becomes) and its old
 *             cgroup removed                                   ideal 1
 *   hier      sys (100) beside usr (100), usr split into u1 (300, its
 *             tasks one level further down) and u2 (100):
 *             sys/u1 = (1/2)/(3/8)                            ideal 4/3
 *             u1/u2  = (3/8)/(1/8)                            ideal 3
 *   nice      nice 0 beside nice 5, in one cgroup             ideal 1024/335
 *
 * The cgroups live under --cgroup-root (default /sys/fs/cgroup) in
 * scxk-shares/, with the cpu controller enabled on the way; all of them
 * are removed at the end. Needs root and cgroup2 with the cpu controller.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

#define PROG "scxk-shares"

#define MAX_GROUPS  8
#define MAX_THREADS 1024
#define PATH_LEN    512
/* Defaults: 2 s to settle, then 5 s measured, per case. */
#define DEF_WARM_S   2
#define DEF_WINDOW_S 5
#define MAX_WARM_S   3600

static char top[PATH_LEN]; /* <cgroup-root>/scxk-shares */
static pid_t groups[MAX_GROUPS];
static unsigned int nr_groups;

/* The cgroups this run creates, children after parents (removed in reverse). */
static const char *const cg_dirs[] = {
	"", "a", "b", "c", "sys", "usr", "usr/u1", "usr/u1/app", "usr/u2", "nice",
};
#define NR_CG_DIRS (sizeof(cg_dirs) / sizeof(cg_dirs[0]))

static void cg_path(char *buf, const char *dir, const char *file)
{
	/* A cut path names nothing: the open or mkdir on it fails and says so. */
	if (snprintf(buf, PATH_LEN, "%s%s%s%s%s", top, *dir ? "/" : "", dir, file ? "/" : "",
		     file ? file : "") >= PATH_LEN)
		buf[0] = '\0';
}

static int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static int cg_write(const char *dir, const char *file, const char *val)
{
	char p[PATH_LEN];
	int err;

	cg_path(p, dir, file);
	err = write_file(p, val);
	if (err)
		fprintf(stderr, PROG ": cannot write '%s' to %s: %s\n", val, p, strerror(-err));
	return err;
}

/* mkdir @dir (below top) with cpu.weight @weight; with @parent_of, +cpu below it. */
static int cg_make(const char *dir, unsigned int weight, bool parent_of)
{
	char p[PATH_LEN], w[16];

	cg_path(p, dir, NULL);
	if (mkdir(p, 0755) && errno != EEXIST) {
		fprintf(stderr, PROG ": cannot create %s: %s\n", p, strerror(errno));
		return -1;
	}
	snprintf(w, sizeof(w), "%u", weight);
	if (*dir && cg_write(dir, "cpu.weight", w))
		return -1;
	return parent_of ? cg_write(dir, "cgroup.subtree_control", "+cpu") : 0;
}

/* Stop every group and remove every cgroup this run made. */
static void cleanup(void)
{
	char p[PATH_LEN];
	unsigned int i;

	for (i = 0; i < nr_groups; i++)
		if (groups[i] > 0)
			kill(groups[i], SIGKILL);
	for (i = 0; i < nr_groups; i++)
		if (groups[i] > 0)
			waitpid(groups[i], NULL, 0);
	nr_groups = 0;
	for (i = NR_CG_DIRS; i-- > 0;) {
		cg_path(p, cg_dirs[i], NULL);
		rmdir(p);
	}
}

/* SIGINT/SIGTERM end the run early, through the normal cleanup. */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void *spin(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	for (;;)
		wl_consume(x = x * 6364136223846793005ULL + 1);
	return NULL;
}

/*
 * A group: a process in cgroup @dir at @nice with @n spinning threads (the
 * process's own among them). Returns its pid.
 */
static pid_t group_start(const char *dir, int nice, unsigned int n)
{
	char pid[16];
	pthread_t t;
	pid_t child;
	unsigned int i;

	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (child) {
		groups[nr_groups++] = child;
		return child;
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	snprintf(pid, sizeof(pid), "%d", getpid());
	/* Before the threads: they inherit the cgroup and the nice value. */
	if (cg_write(dir, "cgroup.procs", pid))
		_exit(1);
	if (nice && setpriority(PRIO_PROCESS, 0, nice)) {
		fprintf(stderr, PROG ": cannot set nice %d: %s\n", nice, strerror(errno));
		_exit(1);
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&t, NULL, spin, (void *)(uintptr_t)i)) {
			fprintf(stderr, PROG ": pthread_create failed\n");
			_exit(1);
		}
	spin(NULL);
	_exit(0);
}

static int64_t cg_usage_us(const char *dir)
{
	char p[PATH_LEN], key[64];
	long long v;
	FILE *f;

	cg_path(p, dir, "cpu.stat");
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, "usage_usec")) {
			fclose(f);
			return v;
		}
	fclose(f);
	return -1;
}

/* CPU time of all threads of @pid, in us (schedstat: ns on CPU first). */
static int64_t proc_cpu_us(pid_t pid)
{
	char p[PATH_LEN];
	unsigned long long ns, sum = 0;
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/task", pid);
	dir = opendir(p);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/%d/task/%s/schedstat", pid, d->d_name);
		f = fopen(p, "r");
		if (f && fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		if (f)
			fclose(f);
	}
	closedir(dir);
	return (int64_t)(sum / 1000);
}

struct measure {
	const char *dir; /* a cgroup below top, or NULL for pid */
	pid_t pid;
	int64_t v0, us;
};

/* The options (the table is above main()). */
static struct {
	uint64_t count;
	double warm_s, window_s;
	const char *root;
} o = {
	.warm_s = DEF_WARM_S,
	.window_s = DEF_WINDOW_S,
	.root = "/sys/fs/cgroup",
};

static int64_t sample(const struct measure *m)
{
	return m->dir ? cg_usage_us(m->dir) : proc_cpu_us(m->pid);
}

static void sleep_s(double s)
{
	struct timespec ts = wl_ns_to_ts((uint64_t)(s * WL_NS_PER_SEC));

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Warm up, then the CPU time of each of @m over the window. */
static int window(struct measure *m, unsigned int n)
{
	unsigned int i;

	sleep_s(o.warm_s);
	for (i = 0; i < n; i++)
		m[i].v0 = sample(&m[i]);
	sleep_s(o.window_s);
	if (stop) {
		fprintf(stderr, PROG ": interrupted\n");
		return -1;
	}
	for (i = 0; i < n; i++) {
		int64_t v = sample(&m[i]);

		if (m[i].v0 < 0 || v < 0) {
			fprintf(stderr, PROG ": cannot read the CPU time of %s\n",
				m[i].dir ? m[i].dir : "a group");
			return -1;
		}
		m[i].us = v - m[i].v0;
	}
	return 0;
}

struct result {
	const char *name;
	double a_ms, b_ms, ratio, ideal, err_pct;
};

static struct result results[8];
static unsigned int nr_results;

static void record(const char *name, const struct measure *a, const struct measure *b, double ideal)
{
	struct result *r = &results[nr_results++];

	r->name = name;
	r->a_ms = a->us / 1000.0;
	r->b_ms = b->us / 1000.0;
	r->ratio = b->us > 0 ? (double)a->us / b->us : INFINITY;
	r->ideal = ideal;
	r->err_pct = isfinite(r->ratio) ? 100.0 * fabs(r->ratio - ideal) / ideal : 1e9;
}

static void stop_groups(void)
{
	unsigned int i;

	for (i = 0; i < nr_groups; i++) {
		kill(groups[i], SIGKILL);
		waitpid(groups[i], NULL, 0);
	}
	nr_groups = 0;
}

static int run(unsigned int n)
{
	struct measure m[3] = {{0}};
	char pid[16];
	pid_t b;

	/* weights, reweight, churn */
	if (cg_make("a", 300, false) || cg_make("b", 100, false))
		return -1;
	if (group_start("a", 0, n) < 0 || (b = group_start("b", 0, n)) < 0)
		return -1;
	m[0].dir = "a", m[1].dir = "b";
	if (window(m, 2))
		return -1;
	record("weights", &m[0], &m[1], 3.0);
	if (cg_write("a", "cpu.weight", "100") || cg_write("b", "cpu.weight", "400"))
		return -1;
	if (window(m, 2))
		return -1;
	record("reweight", &m[1], &m[0], 4.0);
	snprintf(pid, sizeof(pid), "%d", b);
	if (cg_make("c", 300, false) || cg_write("a", "cpu.weight", "300") ||
	    cg_write("c", "cgroup.procs", pid))
		return -1;
	{
		char p[PATH_LEN];

		cg_path(p, "b", NULL);
		if (rmdir(p)) {
			fprintf(stderr, PROG ": cannot remove %s: %s\n", p, strerror(errno));
			return -1;
		}
	}
	m[1].dir = "c";
	if (window(m, 2))
		return -1;
	record("churn", &m[0], &m[1], 1.0);
	stop_groups();

	/* hier */
	if (cg_make("sys", 100, false) || cg_make("usr", 100, true) ||
	    cg_make("usr/u1", 300, true) || cg_make("usr/u1/app", 100, false) ||
	    cg_make("usr/u2", 100, false))
		return -1;
	if (group_start("sys", 0, n) < 0 || group_start("usr/u1/app", 0, n) < 0 ||
	    group_start("usr/u2", 0, n) < 0)
		return -1;
	m[0].dir = "sys", m[1].dir = "usr/u1", m[2].dir = "usr/u2";
	if (window(m, 3))
		return -1;
	record("hier_sys_u1", &m[0], &m[1], 4.0 / 3.0);
	record("hier_u1_u2", &m[1], &m[2], 3.0);
	stop_groups();

	/* nice: the kernel's weights 1024 and 335 */
	if (cg_make("nice", 100, false))
		return -1;
	m[0].dir = m[1].dir = NULL;
	if ((m[0].pid = group_start("nice", 0, n)) < 0 ||
	    (m[1].pid = group_start("nice", 5, n)) < 0)
		return -1;
	if (window(m, 2))
		return -1;
	record("nice", &m[0], &m[1], 1024.0 / 335.0);
	stop_groups();
	return 0;
}

static struct scxk_opt opts[] = {
	{"count", 'n', "N", SCXK_OPT_U64, &o.count, "threads per group", .min = 1,
	 .max = MAX_THREADS, .dfl = "online CPUs"},
	{"warm", 0, "SEC", SCXK_OPT_DOUBLE, &o.warm_s, "settling time before each window",
	 .max = MAX_WARM_S},
	{"window", 'd', "SEC", SCXK_OPT_CUSTOM, &o.window_s,
	 "measured time per case (0 < SEC <= " WL_STR(WL_MAX_DURATION_S) ")",
	 .parse = wl_parse_seconds, .dfl = WL_STR(DEF_WINDOW_S)},
	/* the name every other workload gives -d */
	{"duration", 0, "SEC", SCXK_OPT_CUSTOM, &o.window_s, "the same as --window",
	 .parse = wl_parse_seconds},
	{"cgroup-root", 0, "DIR", SCXK_OPT_STRING, &o.root, "cgroup2 directory to work under"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "CPU shares by cgroup cpu.weight (flat, reweighted, moved, three levels)\n"
		   "and by nice, as ratios against the ideal. Prints one JSON object.\n"
		   "Needs root and cgroup2 with the cpu controller.",
	.opts = opts,
};

int main(int argc, char **argv)
{
	double max_err = 0;
	char p[PATH_LEN];
	unsigned int i;

	o.count = wl_online_cpus();
	wl_parse_args(&cli, argc, argv);

	snprintf(p, sizeof(p), "%s/cgroup.controllers", o.root);
	{
		char buf[256] = "";
		FILE *f = fopen(p, "r");

		if (!f || !fgets(buf, sizeof(buf), f) || !strstr(buf, "cpu")) {
			fprintf(stderr, PROG ": %s: no cgroup2 with the cpu controller\n", o.root);
			if (f)
				fclose(f);
			return 1;
		}
		fclose(f);
	}
	snprintf(top, sizeof(top), "%s/scxk-shares", o.root);
	{
		struct sigaction sa = {.sa_handler = on_signal};

		/* No SA_RESTART: a signal must cut a sleep short. */
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	snprintf(p, sizeof(p), "%s/cgroup.subtree_control", o.root);
	if (write_file(p, "+cpu")) {
		fprintf(stderr, PROG ": cannot enable the cpu controller in %s\n", o.root);
		return 1;
	}
	if (cg_make("", 100, true) || run((unsigned int)o.count)) {
		cleanup();
		return 1;
	}
	cleanup();

	printf("{\"workload\":\"shares\",\"params\":{\"count\":%llu,\"warm_s\":%g,\"window_s\":%g,"
	       "\"online_cpus\":%u},\"results\":{\"cases\":[",
	       (unsigned long long)o.count, o.warm_s, o.window_s, wl_online_cpus());
	for (i = 0; i < nr_results; i++) {
		const struct result *r = &results[i];

		printf("%s{\"name\":\"%s\",\"a_ms\":%.1f,\"b_ms\":%.1f,\"ratio\":%.4f,"
		       "\"ideal\":%.4f,\"err_pct\":%.2f}",
		       i ? "," : "", r->name, r->a_ms, r->b_ms, r->ratio, r->ideal, r->err_pct);
		if (r->err_pct > max_err)
			max_err = r->err_pct;
	}
	printf("]");
	for (i = 0; i < nr_results; i++)
		printf(",\"err_%s_pct\":%.2f", results[i].name, results[i].err_pct);
	printf(",\"max_err_pct\":%.2f}}\n", max_err);
	return 0;
}
