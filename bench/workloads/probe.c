// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-probe: interactive latency probe.
 *
 * Each thread sleeps a random time to an absolute wake time, measures how
 * late it actually ran (wakeup latency = first instruction after the sleep -
 * intended wake time), then does a little CPU work, like an interactive task
 * reacting to an event.  A scheduler that keeps such tasks waiting behind
 * CPU hogs shows it in the tail of the latency histogram.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/exit.h>

#include "hist.h"
#include "util.h"

#define PROG "scxk-probe"

/* Defaults: 4 threads sleeping 0.5 .. 5 ms and working 100 us per wakeup. */
#define DEF_THREADS	 4
#define DEF_SLEEP_MIN_US 500
#define DEF_SLEEP_MAX_US 5000
#define DEF_WORK_US	 100
#define MAX_THREADS	 4096
/* One hour: anything longer is surely a typo. */
#define MAX_TIME_US 3600000000ULL

struct opts {
	uint64_t threads;
	uint64_t sleep_min_us;
	uint64_t sleep_max_us;
	uint64_t work_us;
	double duration_s;
};

struct prober {
	pthread_t tid;
	unsigned int idx;
	const struct opts *o;
	struct hist lat; /* owned by this thread until joined */
};

static void *prober_fn(void *arg)
{
	struct prober *p = arg;
	const struct opts *o = p->o;
	uint64_t rng = wl_rand_seed(p->idx);
	uint64_t target, now;

	while (!atomic_load_explicit(&wl_stop, memory_order_relaxed)) {
		target = wl_now_ns() +
			 WL_NS_PER_US * wl_rand_range(&rng, o->sleep_min_us, o->sleep_max_us);
		wl_sleep_until_ns(target);
		now = wl_now_ns();
		hist_record(&p->lat, now > target ? now - target : 0);
		wl_spin_ns(o->work_us * WL_NS_PER_US);
	}
	return NULL;
}

static struct opts o = {
	.threads = DEF_THREADS,
	.sleep_min_us = DEF_SLEEP_MIN_US,
	.sleep_max_us = DEF_SLEEP_MAX_US,
	.work_us = DEF_WORK_US,
	.duration_s = WL_DEFAULT_DURATION_S,
};

static struct scxk_opt opts[] = {
	{"threads", 't', "N", SCXK_OPT_U64, &o.threads, "probe threads", .min = 1,
	 .max = MAX_THREADS},
	{"sleep-min-us", 0, "US", SCXK_OPT_U64, &o.sleep_min_us, "shortest sleep",
	 .max = MAX_TIME_US},
	{"sleep-max-us", 0, "US", SCXK_OPT_U64, &o.sleep_max_us, "longest sleep",
	 .max = MAX_TIME_US},
	{"work-us", 0, "US", SCXK_OPT_U64, &o.work_us, "CPU work after each wakeup",
	 .max = MAX_TIME_US},
	WL_OPT_DURATION(&o.duration_s),
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "Wakeup latency probe: threads sleep a random time to an absolute\n"
		   "deadline, record how late they ran, then do a burst of CPU work.\n"
		   "Prints one JSON object on stdout.",
	.opts = opts,
};

int main(int argc, char **argv)
{
	struct prober *p;
	struct hist *all;
	uint64_t t0, elapsed;
	unsigned int i, started;
	int err = 0;

	wl_parse_args(&cli, argc, argv);
	if (o.sleep_min_us > o.sleep_max_us) {
		scxk_cli_error(PROG, "--sleep-min-us is above --sleep-max-us");
		return SCXK_EXIT_USAGE;
	}
	wl_min_timerslack();
	wl_spin_calibrate();
	p = calloc(o.threads, sizeof(*p));
	all = malloc(sizeof(*all));
	if (!p || !all) {
		fprintf(stderr, PROG ": out of memory\n");
		free(p);
		free(all);
		return 1;
	}
	hist_init(all);
	t0 = wl_now_ns();
	if (wl_timer_start(o.duration_s))
		return 1;
	for (started = 0; started < o.threads; started++) {
		p[started].idx = started;
		p[started].o = &o;
		hist_init(&p[started].lat);
		err = pthread_create(&p[started].tid, NULL, prober_fn, &p[started]);
		if (err) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(err));
			atomic_store(&wl_stop, true);
			break;
		}
	}
	wl_timer_wait();
	for (i = 0; i < started; i++) {
		pthread_join(p[i].tid, NULL);
		hist_merge(all, &p[i].lat);
	}
	elapsed = wl_now_ns() - t0;
	if (err)
		return 1;

	printf("{\"workload\":\"probe\",\"params\":{\"threads\":%llu,"
	       "\"sleep_min_us\":%llu,\"sleep_max_us\":%llu,\"work_us\":%llu,"
	       "\"duration_s\":%g},",
	       (unsigned long long)o.threads, (unsigned long long)o.sleep_min_us,
	       (unsigned long long)o.sleep_max_us, (unsigned long long)o.work_us, o.duration_s);
	printf("\"results\":{\"elapsed_us\":%.3f,\"wakeups\":%llu,\"wakeups_per_s\":%.1f,",
	       (double)elapsed / WL_NS_PER_US, (unsigned long long)hist_count(all),
	       (double)hist_count(all) * WL_NS_PER_SEC / (double)elapsed);
	hist_json(all, stdout, "latency");
	printf("}}\n");
	free(all);
	free(p);
	return 0;
}
