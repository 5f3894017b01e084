// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-frames: frame pipeline, like a game or compositor rendering loop.
 *
 * A driver thread starts a frame every 1/fps seconds by waking stage 0;
 * stage i does --burst-us of CPU work and wakes stage i+1; the last stage
 * completes the frame.  Frame time = completion - scheduled frame start, so
 * it includes the driver's own wakeup delay and every hand-off.  A frame
 * misses its deadline when its frame time exceeds the period, or when it
 * cannot start because the previous frame is still in flight (it is then
 * skipped, as a renderer drops a frame).
 *
 * Hand-offs use POSIX semaphores: one sem_post()/sem_wait() pair per stage is
 * a single futex wake and wait in glibc, without the mutex a condition
 * variable needs (which the woken thread would have to reacquire), and a
 * post that happens before the wait is not lost.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

#define PROG "scxk-frames"

/* Defaults: 60 fps, 4 stages of 500 us (2 ms of work in a 16.7 ms frame). */
#define DEF_FPS	     60
#define DEF_CHAIN    4
#define DEF_BURST_US 500
#define MAX_FPS	     10000
#define MAX_CHAIN    1024
#define MAX_BURST_US 1000000ULL
/* After the run, how often the driver looks for the last frame to finish. */
#define DRAIN_POLL_NS (100ULL * 1000)

struct opts {
	double fps;
	uint64_t chain;
	uint64_t burst_us;
	double duration_s;
};

struct stage {
	pthread_t tid;
	unsigned int idx;
	sem_t go;
};

static struct opts o = {
	.fps = DEF_FPS,
	.chain = DEF_CHAIN,
	.burst_us = DEF_BURST_US,
	.duration_s = WL_DEFAULT_DURATION_S,
};
static struct stage *stages;
static atomic_bool quit;	/* the token in flight means "exit" */
static atomic_bool in_flight;	/* a frame is between driver and end */
static uint64_t frame_start_ns; /* written by driver, read downstream */
static uint64_t period_ns;
/* Written by the last stage only, read by main after joining it. */
static struct hist frame_time;
static uint64_t completed, late;

static void sem_wait_intr(sem_t *s)
{
	while (sem_wait(s))
		; /* EINTR from SIGINT/SIGTERM: just wait again */
}

static void *stage_fn(void *arg)
{
	struct stage *s = arg;
	bool last = s->idx == o.chain - 1;
	uint64_t ft;

	for (;;) {
		sem_wait_intr(&s->go);
		if (atomic_load(&quit)) {
			if (!last)
				sem_post(&stages[s->idx + 1].go);
			return NULL;
		}
		wl_spin_ns(o.burst_us * WL_NS_PER_US);
		if (!last) {
			sem_post(&stages[s->idx + 1].go);
			continue;
		}
		/* sem_post/sem_wait order frame_start_ns before this read */
		ft = wl_now_ns() - frame_start_ns;
		hist_record(&frame_time, ft);
		completed++;
		if (ft > period_ns)
			late++;
		atomic_store(&in_flight, false);
	}
}

/* --fps: 0 < N <= MAX_FPS; N >= 1e-9 keeps the period (<= 1e18 ns) in a u64. */
static int parse_fps(const char *arg, void *dest)
{
	return wl_parse_positive(arg, MAX_FPS, dest);
}

static struct scxk_opt opts[] = {
	{"fps", 'f', "N", SCXK_OPT_CUSTOM, &o.fps,
	 "frames per second (0 < N <= " WL_STR(MAX_FPS) ")", .parse = parse_fps,
	 .dfl = WL_STR(DEF_FPS)},
	{"chain", 'c', "N", SCXK_OPT_U64, &o.chain, "stage threads per frame", .min = 1,
	 .max = MAX_CHAIN},
	{"burst-us", 'b', "US", SCXK_OPT_U64, &o.burst_us, "CPU work per stage and frame",
	 .max = MAX_BURST_US},
	WL_OPT_DURATION(&o.duration_s),
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "Frame pipeline: every frame period a driver wakes a chain of stage\n"
		   "threads, each doing a CPU burst; reports frame times and missed\n"
		   "deadlines. Prints one JSON object on stdout.",
	.opts = opts,
};

int main(int argc, char **argv)
{
	struct hist start_delay;
	uint64_t t0, start, now, frames = 0, skipped = 0, elapsed;
	unsigned int i, started;
	int err = 0;

	wl_parse_args(&cli, argc, argv);
	period_ns = (uint64_t)(WL_NS_PER_SEC / o.fps);
	if (!period_ns)
		period_ns = 1;
	if (o.chain * o.burst_us * WL_NS_PER_US >= period_ns)
		fprintf(stderr, PROG ": warning: chain * burst >= frame period, "
				     "every frame will miss\n");
	wl_min_timerslack();
	wl_spin_calibrate();
	hist_init(&frame_time);
	hist_init(&start_delay);
	stages = calloc(o.chain, sizeof(*stages));
	if (!stages) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	for (started = 0; started < o.chain; started++) {
		stages[started].idx = started;
		sem_init(&stages[started].go, 0, 0);
		err = pthread_create(&stages[started].tid, NULL, stage_fn, &stages[started]);
		if (err) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(err));
			break;
		}
	}
	if (!err && wl_timer_start(o.duration_s))
		err = -1;

	/* The main thread is the driver: frame k is due at t0 + k * period. */
	t0 = wl_now_ns() + period_ns;
	while (!err && !atomic_load(&wl_stop)) {
		start = t0 + frames * period_ns;
		wl_sleep_until_ns(start);
		if (atomic_load(&wl_stop))
			break;
		now = wl_now_ns();
		frames++;
		if (atomic_load(&in_flight)) {
			skipped++;
			continue;
		}
		hist_record(&start_delay, now - start);
		frame_start_ns = start;
		atomic_store(&in_flight, true);
		sem_post(&stages[0].go);
	}
	/* Let the last frame finish, bounded by the watchdog in wl_timer_start() */
	while (atomic_load(&in_flight))
		wl_sleep_until_ns(wl_now_ns() + DRAIN_POLL_NS);
	elapsed = wl_now_ns() - t0;
	atomic_store(&quit, true);
	if (started)
		sem_post(&stages[0].go);
	for (i = 0; i < started; i++)
		pthread_join(stages[i].tid, NULL);
	if (err)
		return 1;
	wl_timer_wait();

	printf("{\"workload\":\"frames\",\"params\":{\"fps\":%g,\"chain\":%llu,"
	       "\"burst_us\":%llu,\"duration_s\":%g,\"period_us\":%.3f},",
	       o.fps, (unsigned long long)o.chain, (unsigned long long)o.burst_us, o.duration_s,
	       (double)period_ns / WL_NS_PER_US);
	printf("\"results\":{\"elapsed_us\":%.3f,\"frames\":%llu,\"completed\":%llu,"
	       "\"late\":%llu,\"skipped\":%llu,\"missed\":%llu,\"missed_ratio\":%.6f,",
	       (double)elapsed / WL_NS_PER_US, (unsigned long long)frames,
	       (unsigned long long)completed, (unsigned long long)late, (unsigned long long)skipped,
	       (unsigned long long)(late + skipped),
	       frames ? (double)(late + skipped) / (double)frames : 0.0);
	hist_json(&frame_time, stdout, "frame_time");
	putchar(',');
	hist_json(&start_delay, stdout, "start_delay");
	printf("}}\n");
	return 0;
}
