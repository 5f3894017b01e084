// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-pingpong: round trips of a small message between two processes.
 *
 * The parent writes a message, the child (a fork) reads it and writes it
 * back, and the parent times the round trip: two wakeups of a blocked task
 * and two context switches each, the path a request/response service or a
 * compiler driver talking to its children takes.  The channel is a pair of
 * pipes, an AF_UNIX stream socket pair, or a loopback TCP connection
 * (TCP_NODELAY).  Reports round-trip latency percentiles and round trips/s.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hist.h"
#include "util.h"

#define PROG "scxk-pingpong"

#define DEF_SIZE 1
#define MAX_SIZE 65536

enum mode { MODE_PIPE, MODE_UNIX, MODE_TCP, NR_MODES };
static const char *const mode_names[NR_MODES + 1] = {"pipe", "unix", "tcp", NULL};

/* The two ends: the parent uses fd[0] to write and fd[1] to read; the child
 * fd[2] to read and fd[3] to write (for sockets fd[0] == fd[1]). */
struct chan {
	int fd[4];
};

static int full_io(int fd, char *buf, size_t len, bool wr)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = wr ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		done += (size_t)n;
	}
	return 0;
}

static int open_pipes(struct chan *c)
{
	int a[2], b[2];

	if (pipe(a))
		return -errno;
	if (pipe(b)) {
		close(a[0]);
		close(a[1]);
		return -errno;
	}
	/* parent writes a[1], child reads a[0]; child writes b[1], parent reads b[0] */
	c->fd[0] = a[1];
	c->fd[1] = b[0];
	c->fd[2] = a[0];
	c->fd[3] = b[1];
	return 0;
}

static int open_unix(struct chan *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return -errno;
	c->fd[0] = c->fd[1] = sv[0];
	c->fd[2] = c->fd[3] = sv[1];
	return 0;
}

static int open_tcp(struct chan *c)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int one = 1, ls, cs = -1, as = -1, err = 0;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		return -errno;
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &len)) {
		err = -errno;
		goto out;
	}
	cs = socket(AF_INET, SOCK_STREAM, 0);
	if (cs < 0 || connect(cs, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		goto out;
	}
	as = accept(ls, NULL, NULL);
	if (as < 0) {
		err = -errno;
		goto out;
	}
	setsockopt(cs, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(as, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd[0] = c->fd[1] = cs;
	c->fd[2] = c->fd[3] = as;
	cs = as = -1;
out:
	if (cs >= 0)
		close(cs);
	if (as >= 0)
		close(as);
	close(ls);
	return err;
}

/* Close one side's two fds, which are one fd for a socket. */
static void close_pair(int a, int b)
{
	close(a);
	if (b != a)
		close(b);
}

/* The child: echo until the parent closes its end. */
static int echo_loop(const struct chan *c, char *buf, size_t size)
{
	int err;

	for (;;) {
		err = full_io(c->fd[2], buf, size, false);
		if (err == -EPIPE)
			return 0; /* parent is done */
		if (err || (err = full_io(c->fd[3], buf, size, true)))
			return 1;
	}
}

static struct {
	const char *mode; /* one of mode_names */
	uint64_t size;
	double duration_s;
} o = {
	.mode = "pipe",
	.size = DEF_SIZE,
	.duration_s = WL_DEFAULT_DURATION_S,
};

static struct scxk_opt opts[] = {
	{"mode", 'm', "MODE", SCXK_OPT_CHOICE, &o.mode,
	 "channel: pipes, an AF_UNIX socket pair or loopback TCP", .choices = mode_names},
	{"size", 's', "BYTES", SCXK_OPT_U64, &o.size, "message size", .min = 1, .max = MAX_SIZE},
	WL_OPT_DURATION(&o.duration_s),
	{0},
};

static const struct scxk_cli cli = {
	.prog = PROG,
	.summary = "Round trips of a message between two processes over pipes or sockets;\n"
		   "reports round-trip latency and round trips per second.\n"
		   "Prints one JSON object on stdout.",
	.opts = opts,
};

int main(int argc, char **argv)
{
	enum mode mode = MODE_PIPE;
	uint64_t t0, t, elapsed, trips = 0;
	struct chan ch = {{-1, -1, -1, -1}};
	struct hist *rtt;
	int err = 0, status;
	char *buf;
	pid_t pid;

	wl_parse_args(&cli, argc, argv);
	while (strcmp(o.mode, mode_names[mode]))
		mode++; /* the parser took one of them */

	buf = calloc(1, o.size);
	rtt = malloc(sizeof(*rtt));
	if (!buf || !rtt) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	hist_init(rtt);
	err = mode == MODE_PIPE	  ? open_pipes(&ch)
	      : mode == MODE_UNIX ? open_unix(&ch)
				  : open_tcp(&ch);
	if (err) {
		fprintf(stderr, PROG ": cannot open the %s channel: %s\n", mode_names[mode],
			strerror(-err));
		return 1;
	}
	/* A write to a reader that died must fail with EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return 1;
	}
	/* Each side closes the other's ends, or the child never sees EOF. */
	if (pid == 0) {
		close_pair(ch.fd[0], ch.fd[1]);
		_exit(echo_loop(&ch, buf, o.size));
	}
	close_pair(ch.fd[2], ch.fd[3]);
	wl_min_timerslack();
	if (wl_timer_start(o.duration_s))
		return 1;
	t0 = wl_now_ns();
	while (!atomic_load_explicit(&wl_stop, memory_order_relaxed)) {
		t = wl_now_ns();
		err = full_io(ch.fd[0], buf, o.size, true);
		if (!err)
			err = full_io(ch.fd[1], buf, o.size, false);
		if (err) {
			fprintf(stderr, PROG ": round trip %llu: %s\n",
				(unsigned long long)trips + 1, strerror(-err));
			break;
		}
		hist_record(rtt, wl_now_ns() - t);
		trips++;
	}
	elapsed = wl_now_ns() - t0;
	/* EOF ends the child's loop. */
	close_pair(ch.fd[0], ch.fd[1]);
	atomic_store(&wl_stop, true);
	wl_timer_wait();
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		err = err ? err : -ECHILD;
	if (err) {
		if (err == -ECHILD)
			fprintf(stderr, PROG ": the echoing child failed\n");
		return 1;
	}

	printf("{\"workload\":\"pingpong\",\"params\":{\"mode\":\"%s\",\"size\":%llu,"
	       "\"duration_s\":%g},",
	       mode_names[mode], (unsigned long long)o.size, o.duration_s);
	printf("\"results\":{\"elapsed_us\":%.3f,\"round_trips\":%llu,\"round_trips_per_s\":%.1f,",
	       (double)elapsed / WL_NS_PER_US, (unsigned long long)trips,
	       (double)trips * WL_NS_PER_SEC / (double)elapsed);
	hist_json(rtt, stdout, "rtt");
	printf("}}\n");
	free(rtt);
	free(buf);
	return 0;
}
