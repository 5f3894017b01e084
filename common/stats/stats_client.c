// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats client: requests, the --monitor loop and the text printers.
 * It speaks to any scx_stats server, not only ours, so it assumes nothing
 * about the response beyond the {"errno":N,"args":{"resp":...}} envelope.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <scxkit/log.h>
#include <scxkit/stats.h>

#define RESP_MAX      (16 << 20) /* a response longer than this is not scx_stats */
#define RETRY_MS      1000	 /* --monitor: how often to look for the socket */
#define STOP_CHECK_MS 100	 /* how promptly the monitor notices a stop request */
#define STATS_TOP_REQ "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}"

struct scxk_stats_client {
	int fd;
	int timeout_ms;
	char *buf; /* bytes received past the last response line */
	size_t len, cap;
};

volatile sig_atomic_t scxk_stats_monitor_stop;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for @events on @fd until @deadline (ms, 0 = none): 0 or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int ret, timeout;

	for (;;) {
		timeout = -1;
		if (deadline) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			timeout = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret > 0)
			return 0;
		if (!ret)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int64_t deadline_of(int timeout_ms)
{
	return timeout_ms > 0 ? now_ms() + timeout_ms : 0;
}

int scxk_stats_client_open(struct scxk_stats_client **out, const char *path, int timeout_ms)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int64_t deadline = deadline_of(timeout_ms);
	struct scxk_stats_client *c;
	int err;

	*out = NULL;
	if (!path || strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->timeout_ms = timeout_ms;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0) {
		err = errno ? -errno : -EIO; /* never 0: callers then trust *out */
		goto err;
	}
	/* A busy server's full backlog shows as EAGAIN: retry until the deadline. */
	while (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		struct timespec ts = {0, 10 * 1000000L};

		err = errno ? -errno : -EIO;
		if (err == -EINTR)
			continue;
		if (err != -EAGAIN || (deadline && now_ms() >= deadline))
			goto err;
		nanosleep(&ts, NULL);
	}
	*out = c;
	return 0;
err:
	scxk_dbg("stats: cannot connect to %s: %s", path, strerror(-err));
	scxk_stats_client_close(c);
	return err;
}

void scxk_stats_client_close(struct scxk_stats_client *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c);
}

static int send_all(int fd, const char *p, size_t len, int64_t deadline)
{
	int err;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n >= 0) {
			p += n;
			len -= n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((err = wait_fd(fd, POLLOUT, deadline)))
			return err;
	}
	return 0;
}

/* Read up to the next '\n'; returns its length, the line NUL-terminated in c->buf. */
static ssize_t recv_line(struct scxk_stats_client *c, int64_t deadline)
{
	char *nl;
	int err;

	while (!(nl = c->len ? memchr(c->buf, '\n', c->len) : NULL)) {
		ssize_t n;

		if (c->len == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 4096;
			char *buf;

			if (cap > RESP_MAX)
				return -EPROTO;
			buf = realloc(c->buf, cap);
			if (!buf)
				return -ENOMEM;
			c->buf = buf;
			c->cap = cap;
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n > 0) {
			c->len += n;
			continue;
		}
		if (!n)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if ((err = wait_fd(c->fd, POLLIN, deadline)))
			return err;
	}
	*nl = '\0';
	return nl - c->buf;
}

static int parse_response(const char *line, size_t len, json_t **resp)
{
	json_t *root, *err, *args;
	int ret = -EPROTO;

	root = json_loadb(line, len, 0, NULL);
	err = json_object_get(root, "errno");
	args = json_object_get(root, "args");
	if (json_is_integer(err) && (!args || json_is_object(args))) {
		json_int_t e = json_integer_value(err);

		if (!e) {
			json_t *r = args ? json_object_get(args, "resp") : NULL;

			*resp = json_incref(r ? r : json_null());
			ret = 0;
		} else {
			ret = e > 0 && e < 4096 ? -(int)e : -EPROTO;
		}
	}
	json_decref(root);
	return ret;
}

int scxk_stats_client_request(struct scxk_stats_client *c, const char *req_line, json_t **resp)
{
	int64_t deadline = deadline_of(c->timeout_ms);
	size_t len = strlen(req_line);
	ssize_t line;
	int err;

	*resp = NULL;
	if (c->fd < 0)
		return -ENOTCONN;
	if ((err = send_all(c->fd, req_line, len, deadline)) ||
	    (err = send_all(c->fd, "\n", 1, deadline)))
		goto broken;
	line = recv_line(c, deadline);
	if (line < 0) {
		err = line;
		goto broken;
	}
	err = parse_response(c->buf, line, resp);
	c->len -= line + 1;
	memmove(c->buf, c->buf + line + 1, c->len);
	return err;
broken:
	/* Half a request or an unread late answer would desync the stream. */
	close(c->fd);
	c->fd = -1;
	return err;
}

int scxk_stats_request(const char *path, const char *req_line, json_t **resp, int timeout_ms)
{
	struct scxk_stats_client *c;
	int err;

	*resp = NULL;
	if ((err = scxk_stats_client_open(&c, path, timeout_ms)))
		return err;
	err = scxk_stats_client_request(c, req_line, resp);
	scxk_stats_client_close(c);
	return err;
}

/* ---- --monitor ---- */

static void on_stop(int sig)
{
	(void)sig;
	scxk_stats_monitor_stop = 1;
}

/* Sleep @ms unless asked to stop: returns false on a stop request. */
static bool nap(int64_t ms)
{
	int64_t end = now_ms() + ms;

	while (!scxk_stats_monitor_stop) {
		int64_t left = end - now_ms();
		struct timespec ts;

		if (left <= 0)
			return true;
		if (left > STOP_CHECK_MS)
			left = STOP_CHECK_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = left * 1000000L;
		nanosleep(&ts, NULL);
	}
	return false;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum scxk_stats_format scxk_stats_format_for(enum scxk_stats_format fmt, FILE *out)
{
	if (fmt != SCXK_STATS_FMT_AUTO)
		return fmt;
	/* people read a terminal; pipes and files are scripts that parse key=value */
	return out && isatty(fileno(out)) ? SCXK_STATS_FMT_HUMAN : SCXK_STATS_FMT_KV;
}

int scxk_stats_format_parse(const char *s, enum scxk_stats_format *fmt)
{
	if (!strcmp(s, "auto"))
		*fmt = SCXK_STATS_FMT_AUTO;
	else if (!strcmp(s, "kv"))
		*fmt = SCXK_STATS_FMT_KV;
	else if (!strcmp(s, "human"))
		*fmt = SCXK_STATS_FMT_HUMAN;
	else
		return -EINVAL;
	return 0;
}

int scxk_stats_view_open(struct scxk_stats_view **v, struct scxk_stats_client *c)
{
	json_t *meta = NULL;
	int err;

	/* without a meta (an old server) the table still shows, only without units and rates */
	err = scxk_stats_client_request(c, "{\"req\":\"stats_meta\"}", &meta);
	if (err == -ECONNRESET || err == -EPIPE || err == -ETIMEDOUT)
		return err;
	err = scxk_stats_view_new(v, err ? NULL : meta);
	json_decref(meta);
	return err;
}

void scxk_stats_view_block(struct scxk_stats_view *v, json_t *resp, FILE *out)
{
	char when[16];
	time_t wall = time(NULL);
	struct tm tm;
	double t = now_s();

	if (!localtime_r(&wall, &tm) || !strftime(when, sizeof(when), "%H:%M:%S", &tm))
		strcpy(when, "?");
	/* fed first so the heading can state the interval; the print then sees the same sample */
	scxk_stats_view_feed(v, resp, t);
	if (scxk_stats_view_interval(v) > 0)
		fprintf(out, "-- %s, counters over %.2f s\n", when, scxk_stats_view_interval(v));
	else
		fprintf(out, "-- %s, counters since connecting (rates from the next read)\n", when);
	scxk_stats_view_print(v, resp, t, 0, out);
	fputc('\n', out);
}

static int monitor_loop(const char *path, double interval_s, int count, FILE *out,
			void (*print)(json_t *resp, FILE *out), enum scxk_stats_format fmt)
{
	struct scxk_stats_view *view = NULL;
	int64_t interval_ms = (int64_t)(interval_s * 1000.0 + 0.5);
	int timeout_ms =
		interval_ms > 1000 ? (int)(interval_ms < 60000 ? interval_ms : 60000) : 1000;
	struct scxk_stats_client *c = NULL;
	bool waiting = false;
	int printed = 0, err = 0;

	while (!scxk_stats_monitor_stop && (count <= 0 || printed < count)) {
		json_t *resp;

		if (!c) {
			err = scxk_stats_client_open(&c, path, timeout_ms);
			if (err == -ENOENT || err == -ECONNREFUSED) {
				if (!waiting)
					scxk_info("waiting for a scheduler's stats on %s", path);
				waiting = true;
				err = 0;
				nap(RETRY_MS);
				continue;
			}
			if (err || !c)
				return scxk_err(err ? err : -EIO,
						"cannot connect to the stats socket %s", path);
			waiting = false;
			if (fmt == SCXK_STATS_FMT_HUMAN) {
				scxk_stats_view_free(view);
				view = NULL;
				err = scxk_stats_view_open(&view, c);
				if (err) {
					scxk_stats_client_close(c);
					c = NULL;
					if (err == -ENOMEM)
						return err;
					err = 0;
					continue;
				}
			}
		}
		err = scxk_stats_client_request(c, STATS_TOP_REQ, &resp);
		if (err == -ECONNRESET || err == -EPIPE || err == -ETIMEDOUT) {
			/* The scheduler stopped or restarts: look for it again. */
			scxk_info("lost the stats connection (%s)", strerror(-err));
			scxk_stats_client_close(c);
			c = NULL;
			err = 0;
			continue;
		}
		if (err) {
			scxk_warn("stats request failed: %s", strerror(-err));
		} else {
			if (view)
				scxk_stats_view_block(view, resp, out);
			else
				print(resp, out);
			fflush(out);
			printed++;
		}
		json_decref(resp);
		if (count > 0 && printed >= count)
			break;
		nap(interval_ms);
	}
	/* Failed reads were reported as they came; only a lost socket is fatal. */
	scxk_stats_client_close(c);
	scxk_stats_view_free(view);
	return 0;
}

int scxk_stats_monitor(const char *path, double interval_s, int count, FILE *out,
		       void (*print)(json_t *resp, FILE *out))
{
	return scxk_stats_monitor_as(path, interval_s, count, out, print, SCXK_STATS_FMT_KV);
}

int scxk_stats_monitor_as(const char *path, double interval_s, int count, FILE *out,
			  void (*print)(json_t *resp, FILE *out), enum scxk_stats_format fmt)
{
	struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
	int ret;

	if (!(interval_s > 0) || !out)
		return scxk_err(-EINVAL, "--monitor needs an interval above 0");
	scxk_stats_monitor_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = monitor_loop(path, interval_s, count, out, print ? print : scxk_stats_print_line,
			   scxk_stats_format_for(fmt, out));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

/* ---- printers ---- */

void scxk_stats_print_line(json_t *resp, FILE *out)
{
	const char *key, *sep = "";
	json_t *v;
	char *s;

	if (!json_is_object(resp)) {
		s = json_dumps(resp, JSON_COMPACT | JSON_ENCODE_ANY);
		fprintf(out, "%s\n", s ? s : "");
		free(s);
		return;
	}
	json_object_foreach(resp, key, v)
	{
		fprintf(out, "%s%s=", sep, key);
		sep = " ";
		switch (json_typeof(v)) {
		case JSON_INTEGER:
			fprintf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
			break;
		case JSON_REAL:
			fprintf(out, "%.2f", json_real_value(v));
			break;
		case JSON_STRING:
			fputs(json_string_value(v), out);
			break;
		default:
			s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			fputs(s ? s : "?", out);
			free(s);
		}
	}
	fputc('\n', out);
}

/* A field's type as upstream's scx_stats prints it: u64, [u64], {string:LayerStats} */
static const char *type_text(const struct scxk_stat_desc *f, char *buf, size_t len)
{
	if (f->type == SCXK_STAT_DICT)
		snprintf(buf, len, "{%s}", f->unit);
	else if (f->type == SCXK_STAT_ARRAY)
		snprintf(buf, len, "[%s]", f->unit);
	else
		return scxk_stats_type_name(f->type);
	return buf;
}

static void print_fields(const struct scxk_stat_desc *fields, size_t nr, const char *indent,
			 FILE *out)
{
	int width = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		int len = (int)strlen(fields[i].name);

		if (len > width && scxk_stat_served(&fields[i]))
			width = len;
	}
	for (i = 0; i < nr; i++) {
		char buf[256], type[64];

		if (scxk_stat_served(&fields[i]))
			fprintf(out, "%s%-*s  %-6s  %s\n", indent, width, fields[i].name,
				type_text(&fields[i], type, sizeof(type)),
				scxk_stats_field_desc(&fields[i], buf, sizeof(buf)));
	}
}

void scxk_stats_print_meta(const struct scxk_stats_ops *ops, FILE *out)
{
	if (!ops)
		return;
	print_fields(ops->fields, ops->nr_fields, "", out);
	for (size_t i = 0; i < ops->nr_subs; i++) {
		fprintf(out, "\n%s: %s\n", ops->subs[i].name, ops->subs[i].desc);
		print_fields(ops->subs[i].fields, ops->subs[i].nr_fields, "  ", out);
	}
}
