// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_balance's loader: options, domains, and the two periodic jobs that
 * make this scheduler what it is. The tuner (every --tune-interval) reads
 * per-CPU busy time and sets the slice and the greedy domain sets; the
 * load balancer (every --interval) reads the BPF side's rings of active
 * tasks, asks lb.c for moves and writes them back. The scheduling hot
 * paths are all in balance.bpf.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include <scxkit/cpumask.h>
#include <scxkit/log.h>
#include <scxkit/sched.h>
#include <scxkit/stats.h>
#include <scxkit/topo.h>

#include "domains.h"
#include "intf.h"
#include "lb.h"
#include "balance.skel.h"

/* The life-cycle loop polls every 50 ms (common/sched/sched.c): the finest tick. */
#define MIN_TUNE_INTERVAL 0.05
/*
 * rusty calls the machine saturated at 99.999% average utilisation: then
 * slices shrink so that waiting tasks get a turn sooner.
 */
#define SATURATED_UTIL 0.99999
/*
 * Over a whole balancing interval, the load balancer weighs tasks once the
 * machine was this busy; below, weights do not decide who runs.
 */
#define LB_SATURATED_UTIL 0.98
/* Moves per balancing round; the lb_moves map holds 1024. */
#define LB_MAX_MOVES 256

static struct {
	uint64_t slice_us_underutil, slice_us_overutil;
	double interval, tune_interval, load_half_life;
	uint64_t greedy_threshold, greedy_threshold_x_numa, perf;
	double direct_greedy_under, kick_greedy_under, node_threshold, dom_threshold;
	bool no_load_balance, no_preempt, kthreads_local, balanced_kworkers, fifo,
		direct_greedy_numa;
	const char *cpumasks[BALANCE_MAX_DOMS + 1];
	int nr_cpumasks;
} cfg = {
	.slice_us_underutil = 20000,
	.slice_us_overutil = 1000,
	.interval = 2.0,
	.tune_interval = 0.1,
	.load_half_life = 1.0,
	.greedy_threshold = 1,
	/* see balance.bpf.c: an idle node should not wait for the balancer */
	.greedy_threshold_x_numa = 1,
	.direct_greedy_under = 90.0,
	.kick_greedy_under = 100.0,
	.node_threshold = LB_NODE_THRESHOLD_DFL * 100,
	.dom_threshold = LB_DOM_THRESHOLD_DFL * 100,
};

/* --cpumasks may be given once per domain; the checks need the topology (validate). */
static int parse_cpumask(const char *arg, void *dest)
{
	struct scxk_cpumask m;

	(void)dest;
	if (cfg.nr_cpumasks > BALANCE_MAX_DOMS || scxk_cpumask_parse(arg, &m, SCXK_MAX_CPUS) ||
	    scxk_cpumask_empty(&m))
		return -EINVAL;
	cfg.cpumasks[cfg.nr_cpumasks++] = arg;
	return 0;
}

/* --check-args: the domains given, space-separated */
static const char *show_cpumasks(const void *dest, char *buf, size_t len)
{
	size_t n = 0;

	(void)dest;
	buf[0] = '\0';
	for (int i = 0; i < cfg.nr_cpumasks && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "", cfg.cpumasks[i]);
	return cfg.nr_cpumasks ? buf : "-";
}

static struct scxk_opt opts[] = {
	{"slice-us-underutil", 'u', "US", SCXK_OPT_U64, &cfg.slice_us_underutil,
	 "slice while the machine is not saturated", .min = 100, .max = 1000000,
	 .upstream = "-u --slice-us-underutil"},
	{"slice-us-overutil", 'o', "US", SCXK_OPT_U64, &cfg.slice_us_overutil,
	 "slice while every CPU is busy", .min = 100, .max = 1000000,
	 .upstream = "-o --slice-us-overutil"},
	{"interval", 'i', "SEC", SCXK_OPT_DOUBLE, &cfg.interval, "load balancing interval",
	 .max = 3600, .upstream = "-i --interval"},
	{"tune-interval", 'I', "SEC", SCXK_OPT_DOUBLE, &cfg.tune_interval,
	 "tuner interval (slice and greedy sets; at least 0.05)", .max = 3600,
	 .upstream = "-I --tune-interval"},
	{"load-half-life", 'l', "SEC", SCXK_OPT_DOUBLE, &cfg.load_half_life,
	 "half-life of the task load (duty cycle) average", .max = 3600,
	 .upstream = "-l --load-half-life"},
	{"cpumasks", 'C', "MASK", SCXK_OPT_CUSTOM, &cfg.nr_cpumasks,
	 "one domain per value (cpu list or 0x mask), as -C M1 M2 or -C M1 -C M2; they must "
	 "cover every online CPU",
	 .parse = parse_cpumask, .show = show_cpumasks, .dfl = "one domain per LLC",
	 .upstream = "-C --cpumasks", .multi = true},
	{"greedy-threshold", 'g', "N", SCXK_OPT_U64, &cfg.greedy_threshold,
	 "an idle CPU steals from a domain of its node holding at least N queued tasks "
	 "(0 = never)",
	 .max = 1000000, .upstream = "-g --greedy-threshold"},
	{"greedy-threshold-x-numa", 0, "N", SCXK_OPT_U64, &cfg.greedy_threshold_x_numa,
	 "the same across NUMA nodes (0 = never)", .max = 1000000,
	 .upstream = "--greedy-threshold-x-numa"},
	{"direct-greedy-under", 'D', "PCT", SCXK_OPT_DOUBLE, &cfg.direct_greedy_under,
	 "idle CPUs of domains busy less than PCT% take waking tasks of full domains", .max = 100,
	 .upstream = "-D --direct-greedy-under"},
	{"kick-greedy-under", 'K', "PCT", SCXK_OPT_DOUBLE, &cfg.kick_greedy_under,
	 "idle CPUs of domains busy less than PCT% are woken to steal (100 = any)", .max = 100,
	 .upstream = "-K --kick-greedy-under"},
	{"node-threshold", 0, "PCT", SCXK_OPT_DOUBLE, &cfg.node_threshold,
	 "NUMA nodes more than PCT% over their share of the load push tasks to other nodes",
	 .max = 100},
	{"dom-threshold", 0, "PCT", SCXK_OPT_DOUBLE, &cfg.dom_threshold,
	 "domains more than PCT% over their node's average push tasks to its other domains",
	 .max = 100},
	{"direct-greedy-numa", 'r', NULL, SCXK_OPT_FLAG, &cfg.direct_greedy_numa,
	 "let direct greedy pushes cross NUMA nodes", .upstream = "-r --direct-greedy-numa"},
	{"no-load-balance", 0, NULL, SCXK_OPT_FLAG, &cfg.no_load_balance,
	 "measure load but never move tasks between domains", .upstream = "--no-load-balance"},
	{"kthreads-local", 'k', NULL, SCXK_OPT_FLAG, &cfg.kthreads_local,
	 "send per-CPU kthreads straight to their CPU's local queue",
	 .upstream = "-k --kthreads-local"},
	{"balanced-kworkers", 'b', NULL, SCXK_OPT_FLAG, &cfg.balanced_kworkers,
	 "never move workqueue workers between domains", .upstream = "-b --balanced-kworkers"},
	{"fifo-sched", 'f', NULL, SCXK_OPT_FLAG, &cfg.fifo,
	 "first-come first-served domain queues instead of deadlines",
	 .upstream = "-f --fifo-sched"},
	{"no-preempt", 0, NULL, SCXK_OPT_FLAG, &cfg.no_preempt,
	 "never preempt a CPU hog for a waking short-running task"},
	{"perf", 0, "LEVEL", SCXK_OPT_U64, &cfg.perf,
	 "cpufreq performance target 1..1024 for every CPU (0 = leave the governor alone)",
	 .max = 1024, .upstream = "--perf"},
	/* scx_rusty's -p: the common --partial */
	{"partial", 'p', NULL, SCXK_OPT_COMMON, .upstream = "-p --partial"},
	/* scx_rusty's options that mean nothing here (docs/upstream-compat.md) */
	{"cache-level", 'c', "LEVEL", SCXK_OPT_U64, NULL, NULL,
	 .ignored = "domains are the LLCs, or --cpumasks"},
	{"mempolicy-affinity", 0, NULL, SCXK_OPT_FLAG, NULL, NULL,
	 .ignored = "tasks are not placed by their NUMA memory policy"},
	{0},
};

static const struct scxk_cli cli = {
	.prog = "scx_balance",
	.summary = "Multi-domain scheduler: per-LLC queues in BPF, load balancing and tuning "
		   "in user space (rusty-like).",
	.examples =
		"  scx_balance                       one domain per LLC, balance every 2 s\n"
		"  scx_balance -i 0.5 -l 0.5         react faster to load changes\n"
		"  scx_balance -C 0-3 -C 4-7         two domains given by hand\n"
		"  scx_balance --greedy-threshold-x-numa 0       never steal across nodes (rusty)\n"
		"  scx_balance -r                    also push waking tasks across nodes\n",
	.opts = opts,
	/*
	 * Modes (scxctl --mode, org.scx.Loader); upstream declares none for
	 * scx_rusty. Shorter slices for latency, kthreads kept local for games,
	 * half as many balancing rounds (fewer wakeups) to save power, longer
	 * slices under saturation for throughput. Auto is the defaults.
	 */
	.modes =
		{
			[SCXK_MODE_GAMING] = (const char *const[]){"--slice-us-underutil", "10000",
								   "--kthreads-local", NULL},
			[SCXK_MODE_POWERSAVE] = (const char *const[]){"--interval", "4", NULL},
			[SCXK_MODE_LOWLATENCY] =
				(const char *const[]){"--slice-us-underutil", "5000",
						      "--slice-us-overutil", "500", NULL},
			[SCXK_MODE_SERVER] =
				(const char *const[]){"--slice-us-overutil", "5000", NULL},
		},
};

/* ---- state shared by the tick (main thread) and the stats thread ---- */

struct snapshot {
	uint64_t slice_ns;
	double util[BALANCE_MAX_DOMS], cpu_busy;
	uint64_t direct_doms, kick_doms;
	struct lb_result lb;
	unsigned int lb_cpus[BALANCE_MAX_DOMS]; /* online CPUs per domain in that round */
	bool lb_valid;
	unsigned int lb_moves;
	double lb_us;
	uint64_t lb_rounds;
};

static struct balance_doms doms;
static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct snapshot snap;

struct loader {
	struct balance_active *ring; /* mmapped active_ring */
	size_t ring_len;
	uint64_t *prev_busy, *prev_total; /* per CPU, from /proc/stat */
	int nr_cpu_ids;
	double lb_busy, lb_total; /* tuner sums since the last balancing round */
	struct timespec last_lb;
	struct lb_task *tasks;
	struct lb_move moves[LB_MAX_MOVES];
	int prog_fd;
};
static struct loader ld;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- tuner ---- */

/*
 * Busy and total jiffies of every CPU; 0 on success. The file stays open and
 * is read again from offset 0 (seq_file regenerates it), and parsed in
 * place: at ten reads a second, opening it and stdio's buffering were most
 * of the loader's own CPU time.
 */
static int read_proc_stat(uint64_t *busy, uint64_t *total, int nr)
{
	static int fd = -1;
	static char buf[128 * 1024];
	char *line, *end;
	ssize_t n;

	if (fd < 0 && (fd = open("/proc/stat", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) < 0)
		return -errno;
	buf[n] = '\0';
	memset(busy, 0, sizeof(*busy) * nr);
	memset(total, 0, sizeof(*total) * nr);
	for (line = buf; line < buf + n; line = end + 1) {
		unsigned long long v[8] = {0};
		int cpu;

		if (!(end = strchr(line, '\n')))
			end = buf + n;
		/* The per-CPU lines come first, right after "cpu "; stop after them. */
		if (strncmp(line, "cpu", 3))
			break;
		if (line[3] < '0' || line[3] > '9')
			continue;
		/* NOLINTNEXTLINE(cert-err34-c): kernel-written; a short count is refused below */
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 5 ||
		    cpu < 0 || cpu >= nr)
			continue;
		/* user nice system idle iowait irq softirq steal: idle and iowait are not busy */
		total[cpu] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
		busy[cpu] = total[cpu] - v[3] - v[4];
	}
	return 0;
}

static int run_apply_tune(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);
	int err = bpf_prog_test_run_opts(ld.prog_fd, &o);

	return err ? -errno : (int)o.retval;
}

static int tune(struct scx_balance *skel)
{
	uint64_t busy[SCXK_MAX_CPUS], total[SCXK_MAX_CPUS];
	double db[BALANCE_MAX_DOMS] = {0}, dt[BALANCE_MAX_DOMS] = {0}, sb = 0, st = 0;
	uint64_t direct = 0, kick = 0, slice;
	double util[BALANCE_MAX_DOMS] = {0}, avg;
	int cpu, d, err;

	if ((err = read_proc_stat(busy, total, ld.nr_cpu_ids)))
		return err;
	for (cpu = 0; cpu < ld.nr_cpu_ids; cpu++) {
		int dom = doms.cpu_dom[cpu];
		uint64_t b = busy[cpu] - ld.prev_busy[cpu], t = total[cpu] - ld.prev_total[cpu];

		/* Counters restart when a CPU comes back online: skip that sample. */
		if (dom < 0 || total[cpu] < ld.prev_total[cpu] || busy[cpu] < ld.prev_busy[cpu] ||
		    b > t)
			b = t = 0;
		if (dom >= 0) {
			db[dom] += b;
			dt[dom] += t;
		}
		ld.prev_busy[cpu] = busy[cpu];
		ld.prev_total[cpu] = total[cpu];
	}
	for (d = 0; d < doms.nr; d++) {
		util[d] = dt[d] ? db[d] / dt[d] : 0;
		sb += db[d];
		st += dt[d];
		if (util[d] * 100 < cfg.direct_greedy_under)
			direct |= 1ULL << d;
		if (cfg.kick_greedy_under >= 100 || util[d] * 100 < cfg.kick_greedy_under)
			kick |= 1ULL << d;
	}
	avg = st ? sb / st : 0;
	ld.lb_busy += sb;
	ld.lb_total += st;
	slice = (avg >= SATURATED_UTIL ? cfg.slice_us_overutil : cfg.slice_us_underutil) * 1000;
	skel->data->slice_ns = slice;
	if (direct != skel->bss->direct_greedy_doms || kick != skel->bss->kick_greedy_doms) {
		skel->bss->direct_greedy_doms = direct;
		skel->bss->kick_greedy_doms = kick;
		if ((err = run_apply_tune()))
			return scxk_err(err, "cannot apply the greedy domain sets");
	}
	pthread_mutex_lock(&snap_lock);
	snap.slice_ns = slice;
	memcpy(snap.util, util, sizeof(util));
	snap.cpu_busy = avg;
	snap.direct_doms = direct;
	snap.kick_doms = kick;
	pthread_mutex_unlock(&snap_lock);
	return 0;
}

/* ---- load balancer ---- */

static int cmp_pid_last(const void *a, const void *b)
{
	const struct balance_active *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->dcyc.last < y->dcyc.last ? 1 : x->dcyc.last > y->dcyc.last ? -1 : 0;
}

/* The tasks active in this generation, one entry each (the freshest). */
static int collect_tasks(uint32_t gen, uint64_t now, uint64_t half_life)
{
	size_t i, n = 0;
	struct balance_active *e = malloc(ld.ring_len * sizeof(*e));
	int nt = 0;

	if (!e)
		return -ENOMEM;
	for (i = 0; i < ld.ring_len; i++) {
		struct balance_active a = ((volatile struct balance_active *)ld.ring)[i];

		if (a.pid && a.gen == gen && a.dom < (uint32_t)doms.nr)
			e[n++] = a;
	}
	qsort(e, n, sizeof(*e), cmp_pid_last);
	for (i = 0; i < n; i++) {
		struct lb_task *t;

		if (i && e[i].pid == e[i - 1].pid)
			continue;
		t = &ld.tasks[nt++];
		*t = (struct lb_task){
			.pid = e[i].pid,
			.dom = (int)e[i].dom,
			.dom_mask = e[i].dom_mask,
			.weight = e[i].weight,
			.dcycle = (double)balance_ravg_read(&e[i].dcyc, now, half_life) /
				  BALANCE_RAVG_ONE,
			.kworker = e[i].flags & BALANCE_ACT_KWORKER,
			.pinned = e[i].flags & BALANCE_ACT_PINNED,
		};
	}
	free(e);
	return nt;
}

static int write_moves(struct scx_balance *skel, int nr)
{
	int fd = bpf_map__fd(skel->maps.lb_moves), err;
	uint32_t key, next, to;

	/* Moves of the previous round that no enqueue took are stale now. */
	while (!bpf_map_get_next_key(fd, NULL, &next))
		if (bpf_map_delete_elem(fd, &next))
			break;
	for (int i = 0; i < nr; i++) {
		key = ld.moves[i].pid;
		to = (uint32_t)ld.moves[i].to;
		if (bpf_map_update_elem(fd, &key, &to, BPF_ANY)) {
			err = -errno;
			return scxk_err(err, "cannot write the balancer's move of pid %u", key);
		}
	}
	skel->bss->lb_nr_moves = nr;
	return 0;
}

static int load_balance(struct scx_balance *skel)
{
	uint64_t t0 = mono_ns(), half_life = cfg.load_half_life * 1e9;
	struct lb_dom ldoms[BALANCE_MAX_DOMS];
	struct lb_params p = {
		.node_threshold = cfg.node_threshold / 100,
		.dom_threshold = cfg.dom_threshold / 100,
		.balanced_kworkers = cfg.balanced_kworkers,
		.saturated = ld.lb_total && ld.lb_busy / ld.lb_total >= LB_SATURATED_UTIL,
	};
	struct lb_result res;
	uint32_t gen = skel->bss->lb_gen;
	int nt, nr, err = 0;

	/*
	 * Shares follow the CPUs online now (the BPF side counts them at each
	 * hotplug): a domain whose CPUs are all offline is given no load.
	 */
	for (int d = 0; d < doms.nr; d++)
		ldoms[d] = (struct lb_dom){
			.node = doms.dom[d].node,
			.nr_cpus = ((volatile uint32_t *)skel->bss->dom_nr_online)[d],
		};
	ld.lb_busy = ld.lb_total = 0;
	if ((nt = collect_tasks(gen, t0, half_life)) < 0)
		return nt;
	scxk_dbg("balancing round %u: %d active tasks, %s", gen, nt,
		 p.saturated ? "saturated (weighted)" : "not saturated");
	nr = lb_balance(&p, ldoms, doms.nr, ld.tasks, nt, ld.moves,
			cfg.no_load_balance ? 0 : LB_MAX_MOVES, &res);
	if (nr < 0)
		return scxk_err(nr, "load balancing failed");
	for (int i = 0; i < nt && scxk_log_verbosity() >= 2; i++)
		if (ld.tasks[i].load >= 0.05)
			scxk_dbg("  pid %u dom %d weight %u dcycle %.2f load %.2f%s%s",
				 ld.tasks[i].pid, ld.tasks[i].dom, ld.tasks[i].weight,
				 ld.tasks[i].dcycle, ld.tasks[i].load,
				 ld.tasks[i].pinned ? " pinned" : "",
				 ld.tasks[i].kworker ? " kworker" : "");
	if (!cfg.no_load_balance)
		err = write_moves(skel, nr);
	/* Published last: tasks look up their move once per generation. */
	skel->bss->lb_gen = gen + 1;
	for (int i = 0; i < nr && scxk_log_verbosity() >= 1; i++)
		scxk_dbg("move pid %u dom %d -> %d (load %.2f%s)", ld.moves[i].pid,
			 ld.moves[i].from, ld.moves[i].to, ld.moves[i].load,
			 ld.moves[i].xnuma ? ", across nodes" : "");

	pthread_mutex_lock(&snap_lock);
	snap.lb = res;
	for (int d = 0; d < doms.nr; d++)
		snap.lb_cpus[d] = ldoms[d].nr_cpus;
	snap.lb_valid = true;
	snap.lb_moves = nr;
	snap.lb_us = (mono_ns() - t0) / 1e3;
	snap.lb_rounds++;
	pthread_mutex_unlock(&snap_lock);
	return err;
}

static double since_s(const struct timespec *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - a->tv_sec) + (now.tv_nsec - a->tv_nsec) / 1e9;
}

static int balance_tick(struct scxk_run *run)
{
	struct scx_balance *skel = run->skel;
	int err = tune(skel);

	if (since_s(&ld.last_lb) >= cfg.interval) {
		clock_gettime(CLOCK_MONOTONIC, &ld.last_lb);
		int lerr = load_balance(skel);

		if (!err)
			err = lerr;
	}
	return err;
}

/* ---- stats ---- */

static const struct scxk_stat_desc stat_fields[] = {BALANCE_STATS(SCXK_STAT_DESC)};

/* "v0,v1,..." of @n values, each scaled and printed with one decimal. */
static json_t *join(const double *v, int n, double scale)
{
	char buf[BALANCE_MAX_DOMS * 16] = "";
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%.1f", i ? "," : "", v[i] * scale);
	return json_string(buf);
}

/* "v0,v1,..." of @n counts. */
static json_t *join_uint(const unsigned int *v, int n)
{
	char buf[BALANCE_MAX_DOMS * 12] = "";
	size_t len = 0;

	for (int i = 0; i < n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "," : "", v[i]);
	return json_string(buf);
}

static json_t *doms_string(void)
{
	char buf[8192] = "", list[SCXK_CPULIST_BUF_LEN];
	size_t len = 0;

	for (int d = 0; d < doms.nr && len < sizeof(buf); d++) {
		scxk_cpumask_format_list(&doms.dom[d].cpus, list, sizeof(list));
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s@%d", d ? ";" : "", list,
				doms.dom[d].node);
	}
	return json_string(buf);
}

static json_t *dom_set_cpus(uint64_t set)
{
	struct scxk_cpumask m = {0};
	char buf[SCXK_CPULIST_BUF_LEN];

	for (int d = 0; d < doms.nr; d++)
		if (set & (1ULL << d))
			scxk_cpumask_or(&m, &m, &doms.dom[d].cpus);
	scxk_cpumask_format_list(&m, buf, sizeof(buf));
	return json_string(buf);
}

/* The struct of "domains": what domains_json() sends for each domain, for stats_meta. */
#define DOM_FIELD(name, type, unit, help)                                                          \
	{                                                                                          \
		name, SCXK_STAT_##type, help, unit, SCXK_STAT_KIND_VAL, 0                          \
	}
static const struct scxk_stat_desc dom_fields[] = {
	DOM_FIELD("cpus", STRING, "", "the domain's CPUs, as a list"),
	DOM_FIELD("node", U64, "", "its NUMA node"),
	DOM_FIELD("online_cpus", U64, "", "its online CPUs at the last round"),
	DOM_FIELD("load", FLOAT, "nice-0 tasks", "its load at the last round"),
	DOM_FIELD("imbal_pct", FLOAT, "%", "its imbalance at the last round, signed"),
	DOM_FIELD("util_pct", FLOAT, "%", "its utilisation over the last tuner interval"),
};

static const struct scxk_stats_struct dom_struct = {
	.name = "DomainStats",
	.desc = "one scheduling domain (an LLC, or a --cpumasks value)",
	.fields = dom_fields,
	.nr_fields = sizeof(dom_fields) / sizeof(dom_fields[0]),
	.om_prefix = "domain_",
	.om_label = "domain",
};

/* "domains": the per-domain strings above as one object per domain, keyed by id */
static json_t *domains_json(const struct snapshot *s, const double *dimb)
{
	char list[SCXK_CPULIST_BUF_LEN], id[16];
	json_t *all = json_object();

	for (int d = 0; all && d < doms.nr; d++) {
		scxk_cpumask_format_list(&doms.dom[d].cpus, list, sizeof(list));
		snprintf(id, sizeof(id), "%d", d);
		json_object_set_new(all, id,
				    json_pack("{s:s,s:I,s:I,s:f,s:f,s:f}", "cpus", list, "node",
					      (json_int_t)doms.dom[d].node, "online_cpus",
					      (json_int_t)s->lb_cpus[d], "load",
					      round(s->lb.dom_load[d] * 10) / 10, "imbal_pct",
					      round(dimb[d] * 1000) / 10, "util_pct",
					      round(s->util[d] * 1000) / 10));
	}
	return all;
}

static int stats_collect(struct scxk_run *run, struct scxk_stats_read *r)
{
	double dimb[BALANCE_MAX_DOMS], nimb[LB_MAX_NODES], fair;
	const uint64_t *d = r->delta;
	uint64_t total = 0;
	struct snapshot s;
	unsigned int all = 0;
	int i;

	(void)run;
	for (i = BALANCE_FIRST_PLACEMENT; i <= BALANCE_LAST_PLACEMENT; i++)
		total += d[i];
	pthread_mutex_lock(&snap_lock);
	s = snap;
	pthread_mutex_unlock(&snap_lock);

	scxk_stats_set_u64(r, BALANCE_SLICE_US, s.slice_ns / 1000);
	scxk_stats_set_real(r, BALANCE_CPU_BUSY, s.cpu_busy * 100);
	scxk_stats_set_real(r, BALANCE_LOAD, s.lb.total_load);
	scxk_stats_set_real(r, BALANCE_IMBAL_PCT, s.lb.dom_imbal * 100);
	scxk_stats_set_real(r, BALANCE_IMBAL_AFTER_PCT, s.lb.dom_imbal_after * 100);
	scxk_stats_set_real(r, BALANCE_NODE_IMBAL_PCT, s.lb.node_imbal * 100);
	scxk_stats_set_u64(r, BALANCE_LB_MOVES, s.lb_moves);
	scxk_stats_set_u64(r, BALANCE_LB_ROUNDS, s.lb_rounds);
	scxk_stats_set_real(r, BALANCE_LB_US, s.lb_us);
	scxk_stats_set_u64(r, BALANCE_TOTAL, total);
	for (i = 0; i < BALANCE_NR_SHARES; i++)
		scxk_stats_set_real(r, BALANCE_PCT_SYNC_PREV_IDLE + i,
				    total ? 100.0 * d[BALANCE_STAT_SYNC_PREV_IDLE + i] / total : 0);
	scxk_stats_set(r, BALANCE_DIRECT_GREEDY_CPUS, dom_set_cpus(s.direct_doms));
	scxk_stats_set(r, BALANCE_KICK_GREEDY_CPUS, dom_set_cpus(s.kick_doms));
	scxk_stats_set(r, BALANCE_DOMS, doms_string());
	scxk_stats_set(r, BALANCE_DOM_CPUS, join_uint(s.lb_cpus, doms.nr));
	for (i = 0; i < doms.nr; i++)
		all += s.lb_cpus[i];
	for (i = 0; i < doms.nr; i++) {
		fair = all ? s.lb.total_load * s.lb_cpus[i] / all : 0;
		dimb[i] = fair > 0 ? (s.lb.dom_load[i] - fair) / fair : 0;
	}
	for (i = 0; i < doms.nr_nodes && i < LB_MAX_NODES; i++) {
		unsigned int cpus = 0;

		for (int k = 0; k < doms.nr; k++)
			cpus += doms.dom[k].node == i ? s.lb_cpus[k] : 0;
		fair = all ? s.lb.total_load * cpus / all : 0;
		nimb[i] = fair > 0 ? (s.lb.node_load[i] - fair) / fair : 0;
	}
	scxk_stats_set(r, BALANCE_DOM_LOAD, join(s.lb.dom_load, doms.nr, 1));
	scxk_stats_set(r, BALANCE_DOM_IMBAL, join(dimb, doms.nr, 100));
	scxk_stats_set(r, BALANCE_DOM_UTIL, join(s.util, doms.nr, 100));
	scxk_stats_set(r, BALANCE_NODE_LOAD, join(s.lb.node_load, doms.nr_nodes, 1));
	scxk_stats_set(r, BALANCE_NODE_IMBAL, join(nimb, doms.nr_nodes, 100));
	scxk_stats_set(r, BALANCE_DOMAINS, domains_json(&s, dimb));
	return 0;
}

static const struct scxk_sched_stats stats = {
	.name = "ClusterStats",
	.desc = "scx_balance: dispatch paths as percentages of placements since the previous "
		"read; loads and imbalances from the last balancing round",
	.fields = stat_fields,
	.nr_fields = sizeof(stat_fields) / sizeof(stat_fields[0]),
	.collect = stats_collect,
	.subs = &dom_struct,
	.nr_subs = 1,
};

/* ---- life cycle hooks ---- */

static struct scxk_sched sched;

static int balance_validate(struct scxk_run *run)
{
	struct balance_doms d;
	struct scxk_topo *t;
	int err;

	(void)run;
	if (cfg.interval <= 0 || cfg.load_half_life <= 0) {
		fprintf(stderr, "scx_balance: --interval and --load-half-life must be above 0\n");
		return -EINVAL;
	}
	if (cfg.tune_interval < MIN_TUNE_INTERVAL) {
		fprintf(stderr, "scx_balance: --tune-interval must be at least %.2f s\n",
			MIN_TUNE_INTERVAL);
		return -EINVAL;
	}
	if (cfg.slice_us_overutil > cfg.slice_us_underutil) {
		fprintf(stderr,
			"scx_balance: --slice-us-overutil (%" PRIu64
			") exceeds --slice-us-underutil (%" PRIu64 ")\n",
			cfg.slice_us_overutil, cfg.slice_us_underutil);
		return -EINVAL;
	}
	if (cfg.nr_cpumasks > BALANCE_MAX_DOMS) {
		fprintf(stderr, "scx_balance: at most %d --cpumasks\n", BALANCE_MAX_DOMS);
		return -EINVAL;
	}
	sched.tick_ms = cfg.tune_interval * 1000;
	if (!cfg.nr_cpumasks)
		return 0;
	/* Masks must fit this machine: checked now, before the kernel is touched. */
	if ((err = scxk_topo_read(&t)))
		return err;
	err = balance_doms_build(t, cfg.cpumasks, cfg.nr_cpumasks, &d);
	balance_doms_free(&d);
	scxk_topo_free(t);
	return err;
}

SCXK_SKEL_OPEN(balance_open, scx_balance)

static int balance_configure(struct scxk_run *run)
{
	struct scx_balance *skel = run->skel;
	const struct scxk_topo *t = run->topo;
	int err, cpu;

	run->priv = calloc(1, sizeof(doms));
	if (!run->priv)
		return scxk_err(-ENOMEM, "out of memory");
	if ((err = balance_doms_build(t, cfg.nr_cpumasks ? cfg.cpumasks : NULL, cfg.nr_cpumasks,
				      run->priv)))
		return err;
	doms = *(struct balance_doms *)run->priv;
	if (!doms.nr)
		return scxk_err(-ENODEV, "no online CPU belongs to a domain");
	skel->rodata->nr_doms = doms.nr;
	skel->rodata->fifo_sched = cfg.fifo;
	skel->rodata->no_preempt = cfg.no_preempt;
	skel->rodata->greedy_threshold = cfg.greedy_threshold;
	skel->rodata->greedy_threshold_x_numa = cfg.greedy_threshold_x_numa;
	skel->rodata->direct_greedy_numa = cfg.direct_greedy_numa;
	skel->rodata->kthreads_local = cfg.kthreads_local;
	skel->rodata->half_life_ns = cfg.load_half_life * 1e9;
	skel->rodata->perf_level = cfg.perf ? cfg.perf + 1 : 0;
	skel->rodata->smt_aware = t->smt;
	for (cpu = 0; cpu < SCXK_MAX_CPUS; cpu++)
		skel->rodata->cpu_dom[cpu] = cpu < t->nr_cpu_ids && doms.cpu_dom[cpu] >= 0
						     ? (uint32_t)doms.cpu_dom[cpu]
						     : 0xffffffffU;
	for (int d = 0; d < doms.nr; d++) {
		skel->rodata->dom_node[d] = doms.dom[d].node;
		memcpy((void *)skel->rodata->dom_bits[d], doms.dom[d].cpus.bits,
		       sizeof(skel->rodata->dom_bits[d]));
	}
	skel->data->slice_ns = cfg.slice_us_underutil * 1000;
	if ((err = bpf_map__set_max_entries(skel->maps.active_ring, doms.nr * BALANCE_RING_SLOTS)))
		return scxk_err(err, "cannot size the active task rings");
	return 0;
}

static int balance_attached(struct scxk_run *run)
{
	struct scx_balance *skel = run->skel;
	size_t page = sysconf(_SC_PAGESIZE), len;
	void *ring;
	int err;

	doms = *(struct balance_doms *)run->priv;
	ld.ring_len = (size_t)doms.nr * BALANCE_RING_SLOTS;
	len = (ld.ring_len * sizeof(struct balance_active) + page - 1) / page * page;
	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, bpf_map__fd(skel->maps.active_ring), 0);
	if (ring == MAP_FAILED)
		return scxk_err(-errno, "cannot map the active task rings");
	ld.ring = ring;
	ld.nr_cpu_ids =
		run->topo->nr_cpu_ids < SCXK_MAX_CPUS ? run->topo->nr_cpu_ids : SCXK_MAX_CPUS;
	ld.prev_busy = calloc(ld.nr_cpu_ids, sizeof(uint64_t));
	ld.prev_total = calloc(ld.nr_cpu_ids, sizeof(uint64_t));
	ld.tasks = calloc(ld.ring_len, sizeof(*ld.tasks));
	if (!ld.prev_busy || !ld.prev_total || !ld.tasks)
		return scxk_err(-ENOMEM, "cannot allocate the balancer's state");
	ld.prog_fd = bpf_program__fd(skel->progs.balance_apply_tune);
	clock_gettime(CLOCK_MONOTONIC, &ld.last_lb);
	/* Until the tuner has measured, every domain may take and steal. */
	skel->bss->direct_greedy_doms = skel->bss->kick_greedy_doms =
		doms.nr == 64 ? ~0ULL : (1ULL << doms.nr) - 1;
	if ((err = run_apply_tune()))
		return scxk_err(err, "cannot apply the greedy domain sets");
	read_proc_stat(ld.prev_busy, ld.prev_total, ld.nr_cpu_ids);
	scxk_info("%d domains on %d NUMA nodes, balancing every %.2f s%s", doms.nr, doms.nr_nodes,
		  cfg.interval, cfg.no_load_balance ? " (measure only)" : "");
	return 0;
}

/* What balance_attached() set up. */
static void balance_detach(struct scxk_run *run)
{
	(void)run;
	if (ld.ring)
		munmap(ld.ring,
		       (ld.ring_len * sizeof(struct balance_active) + sysconf(_SC_PAGESIZE) - 1) /
			       sysconf(_SC_PAGESIZE) * sysconf(_SC_PAGESIZE));
	free(ld.prev_busy);
	free(ld.prev_total);
	free(ld.tasks);
	memset(&ld, 0, sizeof(ld));
	pthread_mutex_lock(&snap_lock);
	memset(&snap, 0, sizeof(snap));
	pthread_mutex_unlock(&snap_lock);
}

static void balance_destroy(struct scxk_run *run)
{
	struct balance_doms *d = run->priv;

	balance_detach(run);
	if (d) {
		if (doms.cpu_dom == d->cpu_dom)
			memset(&doms, 0, sizeof(doms));
		balance_doms_free(d);
		free(d);
		run->priv = NULL;
	}
	scx_balance__destroy(run->skel);
}

static struct scxk_sched sched = {
	.name = "balance",
	.cli = &cli,
	.validate = balance_validate,
	.open = balance_open,
	.configure = balance_configure,
	.attached = balance_attached,
	.tick = balance_tick,
	.destroy = balance_destroy,
	.stats = &stats,
};

int main(int argc, char **argv)
{
	/* The tick runs the tuner; the balancer runs inside it every --interval. */
	return scxk_sched_main(&sched, argc, argv);
}
