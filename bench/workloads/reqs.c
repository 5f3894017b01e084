// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-reqs: request/worker load in the style of schbench.
 *
 * Each message thread owns -w workers.  It hands a request to an idle worker
 * (a wakeup), the worker does --work-us of CPU work and replies (a wakeup of
 * the message thread).  Measured per request:
 *   - wakeup latency: worker starts running - message thread posted it;
 *   - request latency: message thread sees the reply - request submit time.
 *
 * Closed loop (--rps 0): every idle worker gets a new request at once, so the
 * rate found is the capacity.  Open loop (--rps R): requests arrive at fixed
 * intervals (R in total, spread evenly over the message threads) and wait in
 * a queue when no worker is idle; their submit time is the intended arrival
 * time, so queueing delay and late message threads count in the latency.
 *
 * Wakeups use POSIX semaphores (one futex each in glibc); replies go through
 * a mutex-protected list plus a counting semaphore per message thread.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "util.h"

#define PROG "scxk-reqs"

/* schbench's defaults are 2 message threads; 4 workers each keeps it small. */
#define DEF_MSG_THREADS 2
#define DEF_WORKERS	4
#define DEF_WORK_US	200
#define MAX_THREADS	1024
#define MAX_WORK_US	1000000ULL
#define MAX_RPS		10000000
/* Open loop: requests beyond this backlog per message thread are dropped. */
#define QUEUE_CAP 65536
/* Closed loop: how often a message thread without replies checks wl_stop. */
#define POLL_NS (10ULL * 1000 * 1000)

struct opts {
	uint64_t msg_threads;
	uint64_t workers;
	uint64_t work_us;
	double rps;
	double duration_s;
};

struct msgr;

struct worker {
	pthread_t tid;
	unsigned int idx;
	struct msgr *m;
	sem_t wake;
	/* Set by the message thread before sem_post(&wake). */
	uint64_t submit_ns;
	uint64_t post_ns;
	/* Set by the worker before replying. */
	uint64_t wake_lat_ns;
};

struct msgr {
	pthread_t tid;
	unsigned int idx;
	struct worker *w;
	sem_t reply;
	pthread_mutex_t lock;
	unsigned int *done, ndone; /* replied workers, under lock */
	unsigned int *idle, nidle; /* owned by the message thread */
	unsigned int *batch;
	uint64_t *queue, qhead, qlen; /* open-loop backlog of arrival times */
	unsigned int outstanding;
	uint64_t requests, dropped, unserved;
	struct hist req_lat, wake_lat;
};

static struct opts o = {
	.msg_threads = DEF_MSG_THREADS,
	.workers = DEF_WORKERS,
	.work_us = DEF_WORK_US,
	.rps = 0.0,
	.duration_s = WL_DEFAULT_DURATION_S,
};
static atomic_bool quit;
static uint64_t t0;

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct msgr *m = w->m;
	uint64_t now;

	for (;;) {
		while (sem_wait(&w->wake))
			; /* EINTR */
		now = wl_now_ns();
		if (atomic_load(&quit))
			return NULL;
		w->wake_lat_ns = now > w->post_ns ? now - w->post_ns : 0;
		wl_spin_ns(o.work_us * WL_NS_PER_US);
		pthread_mutex_lock(&m->lock);
		m->done[m->ndone++] = w->idx;
		pthread_mutex_unlock(&m->lock);
		sem_post(&m->reply);
	}
}

/* Collect the replies that came in: record them, the workers are idle again. */
static void drain(struct msgr *m)
{
	unsigned int i, n;
	struct worker *w;
	uint64_t now;

	pthread_mutex_lock(&m->lock);
	n = m->ndone;
	memcpy(m->batch, m->done, n * sizeof(*m->batch));
	m->ndone = 0;
	pthread_mutex_unlock(&m->lock);
	now = wl_now_ns();
	for (i = 0; i < n; i++) {
		w = &m->w[m->batch[i]];
		hist_record(&m->req_lat, now > w->submit_ns ? now - w->submit_ns : 0);
		hist_record(&m->wake_lat, w->wake_lat_ns);
		m->idle[m->nidle++] = w->idx;
		m->requests++;
		m->outstanding--;
	}
}

static void dispatch(struct msgr *m, uint64_t submit_ns)
{
	struct worker *w = &m->w[m->idle[--m->nidle]];

	w->submit_ns = submit_ns;
	w->post_ns = wl_now_ns();
	if (!submit_ns) /* closed loop: submitted now */
		w->submit_ns = w->post_ns;
	m->outstanding++;
	sem_post(&w->wake);
}

/*
 * Wait for a reply until CLOCK_MONOTONIC reaches @deadline_ns.  sem_timedwait()
 * takes a CLOCK_REALTIME deadline, so the remaining time is carried over
 * (sem_clockwait() would avoid that but is glibc-only, and the clocks do not
 * step inside the benchmark VM).
 */
static void wait_reply(struct msgr *m, uint64_t deadline_ns)
{
	uint64_t now = wl_now_ns(), real;
	struct timespec ts;

	if (deadline_ns <= now) {
		sem_trywait(&m->reply);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	real = (uint64_t)ts.tv_sec * WL_NS_PER_SEC + (uint64_t)ts.tv_nsec;
	ts = wl_ns_to_ts(real + (deadline_ns - now));
	/* ETIMEDOUT or EINTR: the caller looks at the clock and wl_stop */
	sem_timedwait(&m->reply, &ts);
}

static void *msgr_fn(void *arg)
{
	struct msgr *m = arg;
	uint64_t k = 0, next = 0, now;

	while (!atomic_load(&wl_stop)) {
		if (o.rps <= 0.0) {
			while (m->nidle)
				dispatch(m, 0);
			wait_reply(m, wl_now_ns() + POLL_NS);
			drain(m);
			continue;
		}
		/*
		 * Arrival k of message thread i is request k * M + i of the
		 * whole run, computed from t0 so rounding does not drift.
		 */
		next = t0 +
		       (uint64_t)((double)(k * o.msg_threads + m->idx) * WL_NS_PER_SEC / o.rps);
		wait_reply(m, next);
		drain(m);
		now = wl_now_ns();
		while (next <= now) {
			if (m->qlen < QUEUE_CAP)
				m->queue[(m->qhead + m->qlen++) % QUEUE_CAP] = next;
			else
				m->dropped++;
			k++;
			next = t0 + (uint64_t)((double)(k * o.msg_threads + m->idx) *
					       WL_NS_PER_SEC / o.rps);
		}
		while (m->nidle && m->qlen) {
			dispatch(m, m->queue[m->qhead]);
			m->qhead = (m->qhead + 1) % QUEUE_CAP;
			m->qlen--;
		}
	}
	/* Requests still queued were never served; wait for those in flight. */
	m->unserved = m->qlen;
	while (m->outstanding) {
		wait_reply(m, wl_now_ns() + POLL_NS);
		drain(m);
	}
	return NULL;
}

static struct scxk_opt opts[] = {
	{"msg-threads", 'm', "N", SCXK_OPT_U64, &o.msg_threads, "message threads", .min = 1,
	 .max = MAX_THREADS},
	{"workers", 'w', "N", SCXK_OPT_U64, &o.workers, "workers per message thread", .min = 1,
	 .max = MAX_THREADS},
	{"work-us", 0, "US", SCXK_OPT_U64, &o.work_us, "CPU work per request", .max = MAX_WORK_US},
	{"rps", 'r', "R", SCXK_OPT_DOUBLE, &o.rps,
	 "target requests/s in total, open loop; 0 is a closed loop, as fast as possible",
	 .max = MAX_RPS},
	WL_OPT_DURATION(&o.duration_s),
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "Request/worker load: message threads hand requests to worker threads\n"
		   "that do CPU work and reply; reports request and wakeup latency.\n"
		   "Prints one JSON object on stdout.",
	.opts = opts,
};

static int setup(struct msgr *m, unsigned int idx)
{
	unsigned int j;

	m->idx = idx;
	m->w = calloc(o.workers, sizeof(*m->w));
	m->done = calloc(o.workers, sizeof(*m->done));
	m->idle = calloc(o.workers, sizeof(*m->idle));
	m->batch = calloc(o.workers, sizeof(*m->batch));
	m->queue = o.rps > 0.0 ? calloc(QUEUE_CAP, sizeof(*m->queue)) : NULL;
	if (!m->w || !m->done || !m->idle || !m->batch || (o.rps > 0.0 && !m->queue))
		return -1;
	sem_init(&m->reply, 0, 0);
	pthread_mutex_init(&m->lock, NULL);
	hist_init(&m->req_lat);
	hist_init(&m->wake_lat);
	for (j = 0; j < o.workers; j++) {
		m->w[j].idx = j;
		m->w[j].m = m;
		sem_init(&m->w[j].wake, 0, 0);
		m->idle[m->nidle++] = j;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t requests = 0, dropped = 0, unserved = 0, elapsed;
	struct hist *req_lat, *wake_lat;
	unsigned int i, j, nm = 0, nw = 0;
	struct msgr *m;
	int err = 0;

	wl_parse_args(&cli, argc, argv);
	wl_min_timerslack();
	wl_spin_calibrate();
	m = calloc(o.msg_threads, sizeof(*m));
	req_lat = malloc(sizeof(*req_lat));
	wake_lat = malloc(sizeof(*wake_lat));
	for (i = 0; m && req_lat && wake_lat && i < o.msg_threads; i++)
		if (setup(&m[i], i))
			break;
	if (!m || !req_lat || !wake_lat || i < o.msg_threads) {
		/* What setup() got before failing goes with the process. */
		fprintf(stderr, PROG ": out of memory\n");
		free(m);
		free(req_lat);
		free(wake_lat);
		return 1;
	}
	hist_init(req_lat);
	hist_init(wake_lat);
	/* Workers first, all parked on their semaphores; then the senders. */
	for (i = 0; i < o.msg_threads && !err; i++) {
		for (j = 0; j < o.workers && !err; j++) {
			/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): setup()
			 * succeeded for every m[i], so m[i].w is set */
			err = pthread_create(&m[i].w[j].tid, NULL, worker_fn, &m[i].w[j]);
			nw += !err;
		}
	}
	t0 = wl_now_ns();
	if (!err && wl_timer_start(o.duration_s))
		err = -1;
	while (!err && nm < o.msg_threads) {
		err = pthread_create(&m[nm].tid, NULL, msgr_fn, &m[nm]);
		nm += !err;
	}
	if (err) {
		if (err > 0)
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(err));
		atomic_store(&wl_stop, true);
	}
	for (i = 0; i < nm; i++) {
		pthread_join(m[i].tid, NULL);
		hist_merge(req_lat, &m[i].req_lat);
		hist_merge(wake_lat, &m[i].wake_lat);
		requests += m[i].requests;
		dropped += m[i].dropped;
		unserved += m[i].unserved;
	}
	elapsed = wl_now_ns() - t0;
	atomic_store(&quit, true);
	for (i = 0; i < nw; i++) {
		struct worker *w = &m[i / o.workers].w[i % o.workers];

		sem_post(&w->wake);
		pthread_join(w->tid, NULL);
	}
	if (err)
		return 1;
	wl_timer_wait();

	printf("{\"workload\":\"reqs\",\"params\":{\"msg_threads\":%llu,\"workers\":%llu,"
	       "\"work_us\":%llu,\"rps\":%g,\"mode\":\"%s\",\"duration_s\":%g},",
	       (unsigned long long)o.msg_threads, (unsigned long long)o.workers,
	       (unsigned long long)o.work_us, o.rps, o.rps > 0.0 ? "open" : "closed", o.duration_s);
	printf("\"results\":{\"elapsed_us\":%.3f,\"requests\":%llu,\"rps\":%.1f,"
	       "\"dropped\":%llu,\"unserved\":%llu,",
	       (double)elapsed / WL_NS_PER_US, (unsigned long long)requests,
	       (double)requests * WL_NS_PER_SEC / (double)elapsed, (unsigned long long)dropped,
	       (unsigned long long)unserved);
	hist_json(req_lat, stdout, "latency");
	putchar(',');
	hist_json(wake_lat, stdout, "wakeup");
	printf("}}\n");
	for (i = 0; i < o.msg_threads; i++) {
		free(m[i].w);
		free(m[i].done);
		free(m[i].idle);
		free(m[i].batch);
		free(m[i].queue);
	}
	free(m);
	free(req_lat);
	free(wake_lat);
	return 0;
}
