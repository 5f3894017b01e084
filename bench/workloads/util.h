/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the scxkit benchmark workloads: clocks, calibrated busy
 * work, option parsing, JSON strings and the run timer.
 */
#ifndef SCXK_WL_UTIL_H
#define SCXK_WL_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define WL_NS_PER_US  1000ULL
#define WL_NS_PER_SEC 1000000000ULL

/* Exit status for bad command lines, as the runner expects. */
#define WL_EXIT_USAGE 2

/* Default run length of every workload, in seconds. */
#define WL_DEFAULT_DURATION_S 10.0

/* Set once the run is over (timer expired, SIGINT or SIGTERM). */
extern atomic_bool wl_stop;

/* CLOCK_MONOTONIC in ns. */
uint64_t wl_now_ns(void);

/* CPU time consumed so far by the calling thread, in ns. */
uint64_t wl_thread_cpu_ns(void);

/* Convert ns since boot (CLOCK_MONOTONIC) into a struct timespec. */
struct timespec wl_ns_to_ts(uint64_t ns);

/* Sleep until CLOCK_MONOTONIC reaches @ns (absolute, restarted on EINTR). */
void wl_sleep_until_ns(uint64_t ns);

/*
 * Measure the speed of the busy loop against CLOCK_MONOTONIC.  Called once
 * from main() before any thread starts; wl_spin_ns() calls it lazily too.
 */
void wl_spin_calibrate(void);

/*
 * Busy work: burn @ns of the calling thread's CPU time.  Time spent
 * preempted does not count, so a request's "200 us of work" is the same
 * amount of work under any scheduler.
 */
void wl_spin_ns(uint64_t ns);

/* Keep a computed value alive so the compiler cannot drop the busy work. */
static inline void wl_consume(uint64_t x)
{
	__asm__ __volatile__("" : : "r"(x));
}

/* Pseudo-random numbers (xorshift64*), one state per thread. */
uint64_t wl_rand_seed(unsigned int salt);
uint64_t wl_rand(uint64_t *state);
/* Uniform in [lo, hi] (inclusive). */
uint64_t wl_rand_range(uint64_t *state, uint64_t lo, uint64_t hi);

/*
 * Option parsing: return 0 and store the value, or print "prog: bad value
 * for --opt" on stderr and return -1.
 */
int wl_parse_u64(const char *prog, const char *opt, const char *s, uint64_t min, uint64_t max,
		 uint64_t *out);
int wl_parse_double(const char *prog, const char *opt, const char *s, double min, double max,
		    double *out);
/* A duration in seconds: finite, > 0 and at most WL_MAX_DURATION_S. */
#define WL_MAX_DURATION_S 86400.0
int wl_parse_duration(const char *prog, const char *s, double *out);

/*
 * The end of every workload's getopt loop. wl_args_check: a stray
 * argument is an error too (named on stderr); returns @err or -1.
 * wl_usage_exit: after any error, point to --help and exit WL_EXIT_USAGE.
 */
int wl_args_check(const char *prog, int err, int argc, char **argv);
void wl_usage_exit(const char *prog, int err);

/* Print @s as a JSON string, quotes included. */
void wl_json_str(FILE *f, const char *s);

/*
 * Set the calling thread's timer slack to 1 ns (inherited by threads it
 * creates): the default 50 us slack would add up to 50 us to every timed
 * sleep and be mistaken for scheduling latency.
 */
void wl_min_timerslack(void);

/* Number of online CPUs, at least 1. */
unsigned int wl_online_cpus(void);

/*
 * Start the run: install SIGINT/SIGTERM handlers that set wl_stop, arm a
 * watchdog (SIGALRM with its default action, i.e. the process dies) at
 * @duration_s + WL_WATCHDOG_GRACE_S in case threads never get to run, and
 * start a timer thread that sets wl_stop after @duration_s.
 * Return: 0, or -1 with a message on stderr.
 */
int wl_timer_start(double duration_s);

/* Wait until wl_stop is set (by the timer or a signal). */
void wl_timer_wait(void);

/*
 * Extra time after the run before the watchdog kills the process: above the
 * sched_ext watchdog's default 30 s timeout, after which a stalling BPF
 * scheduler is ejected and the threads get to run again under the fair class.
 */
#define WL_WATCHDOG_GRACE_S 60

#endif /* SCXK_WL_UTIL_H */
