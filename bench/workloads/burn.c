// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-burn: CPU burners at chosen nice levels, for fairness.
 *
 * Every burner repeats a fixed small computation (a "work unit") until the
 * run ends and counts the units.  With more burners than CPUs, a fair
 * weighted scheduler gives each burner CPU time in proportion to its nice
 * weight, so units / weight should be equal: Jain's index over those is 1.0
 * when it is, down to 1/n when one burner gets everything.  Burners with the
 * same nice value should get equal work: the per-group index checks that
 * without relying on the weight table.
 *
 * A burner cannot use more than one CPU, so with few CPUs and unequal
 * weights the plain weighted ideal may be infeasible (nice 0 next to nice 19
 * on two CPUs: each gets a whole CPU, however fair the scheduler).
 * jain_feasible therefore compares each burner's work with its feasible
 * share: weighted shares of the CPUs, capped at one CPU, the excess
 * redistributed over the others by weight (water-filling).
 *
 * With --sleep-ms, every burner runs --run-ms of wall time, then sleeps
 * --sleep-ms, like a compiler job that blocks on I/O now and then: such a
 * hog keeps the wakeup path busy, where a pure spinner never wakes up.
 * The fairness indices then compare work under that duty cycle.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

#define PROG "scxk-burn"

#define DEF_NICE_LIST "0"
#define DEF_RUN_MS    5
#define MAX_PHASE_MS  10000
#define MAX_BURNERS   4096
#define NICE_MIN      (-20)
#define NICE_MAX      19
#define NICE_LEVELS   (NICE_MAX - NICE_MIN + 1)
/* Iterations of the mixing loop per unit: a few hundred ns on a current CPU. */
#define UNIT_ITERS 256

/*
 * The kernel's nice-to-weight table (sched_prio_to_weight[] in
 * kernel/sched/core.c): 1024 at nice 0 and about x1.25 per nice step, so a
 * task one nice level lower gets ~10% more CPU than one at the level above.
 * sched_ext passes the same weights to BPF schedulers (scaled so 100 is
 * nice 0), so the ratios hold there too.
 */
/* clang-format off */
static const unsigned int nice_weight[NICE_LEVELS] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */  9548,  7620,  6100,  4904,  3906,
	/*  -5 */  3121,  2501,  1991,  1586,  1277,
	/*   0 */  1024,   820,   655,   526,   423,
	/*   5 */   335,   272,   215,   172,   137,
	/*  10 */   110,    87,    70,    56,    45,
	/*  15 */    36,    29,    23,    18,    15,
};
/* clang-format on */

struct burner {
	pthread_t tid;
	int nice;
	int err; /* errno from setpriority(), 0 if it worked */
	uint64_t units;
	uint64_t cpu_ns;
} __attribute__((aligned(64))); /* own cache line: no false sharing */

static pthread_barrier_t start_barrier;
/* Duty cycle of every burner (--run-ms/--sleep-ms); sleep 0 = spin only. */
static uint64_t run_ns, sleep_ns;

static unsigned int weight_of(int nice)
{
	return nice_weight[nice - NICE_MIN];
}

/*
 * Feasible CPU share of each burner (see the top comment): weighted shares of
 * min(cpus, n) CPUs where no burner gets more than one CPU.  Each round caps
 * at least one more burner or finishes, so it takes at most n rounds.
 */
static void feasible_shares(const struct burner *b, unsigned int n, unsigned int cpus,
			    double *share)
{
	double left = cpus < n ? cpus : n, wsum;
	unsigned int i, capped;

	for (i = 0; i < n; i++)
		share[i] = -1.0; /* not capped yet */
	do {
		wsum = 0.0;
		for (i = 0; i < n; i++)
			if (share[i] < 0.0)
				wsum += weight_of(b[i].nice);
		capped = 0;
		for (i = 0; i < n; i++) {
			if (share[i] < 0.0 && left * weight_of(b[i].nice) / wsum >= 1.0) {
				share[i] = 1.0;
				capped++;
			}
		}
		left -= capped;
	} while (capped && left > 0.0);
	for (i = 0; i < n; i++)
		if (share[i] < 0.0)
			share[i] = left * weight_of(b[i].nice) / wsum;
}

static void *burner_fn(void *arg)
{
	struct burner *b = arg;
	uint64_t x = (uint64_t)(uintptr_t)b | 1, units = 0;
	unsigned int i;

	uint64_t phase_end;

	/* setpriority() on a thread id sets that thread's nice on Linux */
	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), b->nice))
		b->err = errno;
	pthread_barrier_wait(&start_barrier);
	if (b->err)
		return NULL;
	phase_end = sleep_ns ? wl_now_ns() + run_ns : 0;

	while (!atomic_load_explicit(&wl_stop, memory_order_relaxed)) {
		for (i = 0; i < UNIT_ITERS; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			x ^= x >> 29;
		}
		units++;
		/* A clock read every 16 units: a few % of a unit under TCG. */
		if (phase_end && !(units & 15) && wl_now_ns() >= phase_end) {
			wl_sleep_until_ns(wl_now_ns() + sleep_ns);
			phase_end = wl_now_ns() + run_ns;
		}
	}
	wl_consume(x);
	b->units = units;
	b->cpu_ns = wl_thread_cpu_ns();
	return NULL;
}

/* Jain's fairness index: (sum x)^2 / (n * sum x^2), 1.0 when all are equal. */
static double jain(const double *x, unsigned int n)
{
	double s = 0.0, s2 = 0.0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0.0 ? s * s / ((double)n * s2) : 1.0;
}

/* --nice: the list as given (for the JSON) and its values. */
struct nice_list {
	const char *arg;
	unsigned int n;
	int v[MAX_BURNERS];
};

static int parse_nice_list(const char *s, void *dest)
{
	struct nice_list *l = dest;
	const char *p = s;
	unsigned int n = 0;
	char *end;
	long v;

	do {
		v = strtol(p, &end, 10);
		if (end == p || (*end && *end != ',') || v < NICE_MIN || v > NICE_MAX ||
		    n >= MAX_BURNERS)
			return -EINVAL;
		l->v[n++] = (int)v;
		p = end + 1;
	} while (*end);
	l->arg = s;
	l->n = n;
	return 0;
}

static struct {
	uint64_t count, run_ms, sleep_ms;
	struct nice_list nice;
	double duration_s;
} o = {
	.run_ms = DEF_RUN_MS,
	.nice = {.arg = DEF_NICE_LIST, .n = 1}, /* v[0] = 0 */
	.duration_s = WL_DEFAULT_DURATION_S,
};

static struct scxk_opt opts[] = {
	{"count", 'n', "N", SCXK_OPT_U64, &o.count, "burner threads", .min = 1, .max = MAX_BURNERS,
	 .dfl = "online CPUs"},
	{"nice", 0, "LIST", SCXK_OPT_CUSTOM, &o.nice,
	 "comma-separated nice values in -20..19, applied round-robin", .parse = parse_nice_list,
	 .dfl = DEF_NICE_LIST},
	{"run-ms", 0, "MS", SCXK_OPT_U64, &o.run_ms,
	 "with --sleep-ms: run this long between sleeps", .min = 1, .max = MAX_PHASE_MS},
	{"sleep-ms", 0, "MS", SCXK_OPT_U64, &o.sleep_ms,
	 "sleep this long after every --run-ms of work; 0 never sleeps", .max = MAX_PHASE_MS},
	WL_OPT_DURATION(&o.duration_s),
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "CPU burners counting fixed work units; reports work per burner and\n"
		   "Jain's fairness index over weight-normalised work.\n"
		   "Prints one JSON object on stdout.",
	.opts = opts,
};

int main(int argc, char **argv)
{
	double *norm, *share, jw, jf, el_s;
	uint64_t count, total = 0, t0, elapsed;
	unsigned int i, j, started = 0, ng;
	struct burner *b;
	int err = 0;

	o.count = wl_online_cpus();
	wl_parse_args(&cli, argc, argv);
	count = o.count;
	run_ns = o.run_ms * 1000000ULL;
	sleep_ns = o.sleep_ms * 1000000ULL;

	b = aligned_alloc(64, count * sizeof(*b));
	norm = calloc(count, sizeof(*norm));
	share = calloc(count, sizeof(*share));
	if (!b || !norm || !share) {
		fprintf(stderr, PROG ": out of memory\n");
		free(b);
		free(norm);
		free(share);
		return 1;
	}
	memset(b, 0, count * sizeof(*b));
	pthread_barrier_init(&start_barrier, NULL, (unsigned int)count + 1);
	for (started = 0; started < count; started++) {
		b[started].nice = o.nice.v[started % o.nice.n];
		err = pthread_create(&b[started].tid, NULL, burner_fn, &b[started]);
		if (err) {
			/* the barrier would never open: nothing sensible to report */
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	if (wl_timer_start(o.duration_s))
		return 1;
	pthread_barrier_wait(&start_barrier);
	t0 = wl_now_ns();
	wl_timer_wait();
	elapsed = wl_now_ns() - t0;
	for (i = 0; i < count; i++) {
		pthread_join(b[i].tid, NULL);
		if (b[i].err) {
			fprintf(stderr, PROG ": cannot set nice %d: %s\n", b[i].nice,
				strerror(b[i].err));
			err = 1;
		}
		total += b[i].units;
		norm[i] = (double)b[i].units / weight_of(b[i].nice);
	}
	if (err)
		return 1;
	el_s = (double)elapsed / WL_NS_PER_SEC;
	jw = jain(norm, (unsigned int)count);
	feasible_shares(b, (unsigned int)count, wl_online_cpus(), share);
	for (i = 0; i < count; i++)
		norm[i] = (double)b[i].units / share[i];
	jf = jain(norm, (unsigned int)count);

	printf("{\"workload\":\"burn\",\"params\":{\"count\":%llu,\"nice\":",
	       (unsigned long long)count);
	wl_json_str(stdout, o.nice.arg);
	printf(",\"duration_s\":%g,\"online_cpus\":%u,\"unit_iters\":%d,\"run_ms\":%llu,"
	       "\"sleep_ms\":%llu},",
	       o.duration_s, wl_online_cpus(), UNIT_ITERS, (unsigned long long)o.run_ms,
	       (unsigned long long)o.sleep_ms);
	printf("\"results\":{\"elapsed_us\":%.3f,\"burners\":[", (double)elapsed / WL_NS_PER_US);
	for (i = 0; i < count; i++)
		printf("%s{\"nice\":%d,\"weight\":%u,\"feasible_cpus\":%.6f,\"units\":%llu,"
		       "\"units_per_s\":%.1f,\"cpu_us\":%.3f}",
		       i ? "," : "", b[i].nice, weight_of(b[i].nice), share[i],
		       (unsigned long long)b[i].units, (double)b[i].units / el_s,
		       (double)b[i].cpu_ns / WL_NS_PER_US);
	printf("],\"total_units\":%llu,\"total_units_per_s\":%.1f,\"jain_weighted\":%.6f,"
	       "\"jain_feasible\":%.6f,\"groups\":[",
	       (unsigned long long)total, (double)total / el_s, jw, jf);
	/* One group per distinct nice value, in order of first appearance. */
	for (i = 0, ng = 0; i < count; i++) {
		uint64_t gunits = 0;
		unsigned int n = 0;

		for (j = 0; j < i && b[j].nice != b[i].nice; j++)
			;
		if (j < i)
			continue; /* group already printed */
		for (j = i; j < count; j++) {
			if (b[j].nice != b[i].nice)
				continue;
			norm[n++] = (double)b[j].units;
			gunits += b[j].units;
		}
		printf("%s{\"nice\":%d,\"burners\":%u,\"units\":%llu,\"jain\":%.6f}",
		       ng++ ? "," : "", b[i].nice, n, (unsigned long long)gunits, jain(norm, n));
	}
	printf("]}}\n");
	free(share);
	free(norm);
	free(b);
	return 0;
}
