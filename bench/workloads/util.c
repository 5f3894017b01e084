// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared helpers of the scxkit benchmark workloads (see util.h).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <scxkit/exit.h>

#include "util.h"

atomic_bool wl_stop;

/*
 * wl_spin_ns() checks the thread CPU clock (a system call, not vDSO) after
 * every chunk of loop iterations; a chunk is sized to take about this long so
 * the check costs a few percent and the overshoot is at most ~1 us.
 */
#define SPIN_CHECK_NS 1000ULL
/* Calibration: best of this many runs of this many iterations. */
#define SPIN_CAL_RUNS  5
#define SPIN_CAL_ITERS 20000ULL
/* The timer thread looks at wl_stop (set by signals) this often. */
#define TIMER_SLICE_NS (50ULL * 1000 * 1000)

static uint64_t spin_chunk_iters; /* 0 until calibrated */
static pthread_t timer_thread;
static uint64_t timer_deadline_ns;

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * WL_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t wl_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * WL_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

struct timespec wl_ns_to_ts(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / WL_NS_PER_SEC),
		.tv_nsec = (long)(ns % WL_NS_PER_SEC),
	};

	return ts;
}

void wl_sleep_until_ns(uint64_t ns)
{
	struct timespec ts = wl_ns_to_ts(ns);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* A dependent multiply/xor chain: no vectorisation, no closed form. */
static uint64_t spin_loop(uint64_t iters, uint64_t x)
{
	uint64_t i;

	for (i = 0; i < iters; i++) {
		/* Knuth's MMIX LCG constants, then a xorshift to mix */
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	return x;
}

void wl_spin_calibrate(void)
{
	uint64_t best = UINT64_MAX, x = 1, t0, dt, iters;
	int i;

	if (__atomic_load_n(&spin_chunk_iters, __ATOMIC_RELAXED))
		return;
	/* The fastest run is the one least disturbed by preemption. */
	for (i = 0; i < SPIN_CAL_RUNS; i++) {
		t0 = wl_now_ns();
		x = spin_loop(SPIN_CAL_ITERS, x);
		dt = wl_now_ns() - t0;
		if (dt < best)
			best = dt;
	}
	wl_consume(x);
	if (!best)
		best = 1;
	iters = SPIN_CAL_ITERS * SPIN_CHECK_NS / best;
	if (!iters)
		iters = 1;
	__atomic_store_n(&spin_chunk_iters, iters, __ATOMIC_RELAXED);
}

void wl_spin_ns(uint64_t ns)
{
	uint64_t end, chunk, x = ns | 1;

	if (!ns)
		return;
	wl_spin_calibrate();
	chunk = __atomic_load_n(&spin_chunk_iters, __ATOMIC_RELAXED);
	end = wl_thread_cpu_ns() + ns;
	do
		x = spin_loop(chunk, x);
	while (wl_thread_cpu_ns() < end);
	wl_consume(x);
}

uint64_t wl_rand_seed(unsigned int salt)
{
	uint64_t s =
		wl_now_ns() ^ ((uint64_t)getpid() << 32) ^ ((uint64_t)salt * 0x9e3779b97f4a7c15ULL);

	return s ? s : 1; /* xorshift must not start at 0 */
}

/* xorshift64* (Vigna): 64-bit state, good enough for sleep lengths. */
uint64_t wl_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t wl_rand_range(uint64_t *state, uint64_t lo, uint64_t hi)
{
	uint64_t span = hi - lo + 1;

	if (!span) /* the whole 64-bit range */
		return wl_rand(state);
	/* modulo bias is < span / 2^64: irrelevant for microsecond ranges */
	return lo + wl_rand(state) % span;
}

void wl_parse_args(const struct scxk_cli *cli, int argc, char **argv)
{
	int err = scxk_cli_parse_opts(cli, argc, argv);

	if (err == SCXK_CLI_DONE)
		exit(0);
	if (err)
		exit(SCXK_EXIT_USAGE);
}

int wl_parse_positive(const char *arg, double max, double *out)
{
	double v;

	if (scxk_parse_double(arg, &v) || v * (double)WL_NS_PER_SEC < 1.0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int wl_parse_seconds(const char *arg, void *dest)
{
	return wl_parse_positive(arg, WL_MAX_DURATION_S, dest);
}

void wl_json_str(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void wl_min_timerslack(void)
{
	/* Best effort: an old kernel without it just keeps the default slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

unsigned int wl_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&wl_stop, true); /* lock-free: async-signal-safe */
}

static void *timer_fn(void *arg)
{
	uint64_t now;

	(void)arg;
	while (!atomic_load(&wl_stop)) {
		now = wl_now_ns();
		if (now >= timer_deadline_ns)
			break;
		wl_sleep_until_ns(timer_deadline_ns - now > TIMER_SLICE_NS ? now + TIMER_SLICE_NS
									   : timer_deadline_ns);
	}
	atomic_store(&wl_stop, true);
	return NULL;
}

int wl_timer_start(double duration_s)
{
	struct sigaction sa;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	alarm((unsigned int)ceil(duration_s) + WL_WATCHDOG_GRACE_S);

	timer_deadline_ns = wl_now_ns() + (uint64_t)llround(duration_s * WL_NS_PER_SEC);
	err = pthread_create(&timer_thread, NULL, timer_fn, NULL);
	if (err) {
		fprintf(stderr, "timer thread: %s\n", strerror(err));
		return -1;
	}
	return 0;
}

void wl_timer_wait(void)
{
	pthread_join(timer_thread, NULL);
}
