/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the scxkit benchmark workloads: clocks, calibrated busy
 * work, the command line (an option table for libscxkit's engine, built
 * into libscxkcli without libbpf), JSON strings and the run timer.
 */
#ifndef SCXK_WL_UTIL_H
#define SCXK_WL_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <scxkit/cli.h>

#define WL_NS_PER_US  1000ULL
#define WL_NS_PER_SEC 1000000000ULL

/* Default run length of every workload, in seconds. */
#define WL_DEFAULT_DURATION_S 10
/* Longest run length: a day. */
#define WL_MAX_DURATION_S 86400

/* A number as the string --help shows for a default (WL_STR(DEF_FPS)). */
#define WL_STR_(x) #x
#define WL_STR(x)  WL_STR_(x)

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
 * The command line: every workload declares its options in a struct
 * scxk_opt table (include/scxkit/cli.h), parsed by wl_parse_args(), which
 * exits 0 after --help or --version and SCXK_EXIT_USAGE (2) after one
 * line naming a bad option, value or argument.
 */
void wl_parse_args(const struct scxk_cli *cli, int argc, char **argv);

/*
 * A positive finite number of at most @max into @out: 0 < v <= @max, at
 * nanosecond resolution (below 1e-9 counts as 0, as a run time in ns
 * would). Return: 0 or -EINVAL. For SCXK_OPT_CUSTOM parsers.
 */
int wl_parse_positive(const char *arg, double max, double *out);

/* SCXK_OPT_CUSTOM parser of a run time in seconds (double): 0 < SEC <= a day. */
int wl_parse_seconds(const char *arg, void *dest);

/* The --duration option of every workload, into the double at @dest. */
#define WL_DURATION_HELP                                                                           \
	"run time in seconds, fractions allowed (0 < SEC <= " WL_STR(WL_MAX_DURATION_S) ")"
/* clang-format off */
#define WL_OPT_DURATION(dest)                                                                      \
	{"duration", 'd', "SEC", SCXK_OPT_CUSTOM, (dest), WL_DURATION_HELP,                        \
	 .parse = wl_parse_seconds, .dfl = WL_STR(WL_DEFAULT_DURATION_S)}
/* clang-format on */

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
