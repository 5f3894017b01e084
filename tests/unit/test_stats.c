// SPDX-License-Identifier: GPL-2.0-only
/* The stats protocol: the pure handler, then a real server on a temp socket. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxkit/stats.h>

/* ---- a fake scheduler: one event counter, reported as per-client deltas ---- */

static uint64_t events; /* bumped by the tests, read by the server thread */
static int collect_err; /* what collect() fails with, 0 for success */
static int nr_open, nr_close;

static const struct scxk_stat_desc fields[] = {
	{"events", SCXK_STAT_U64, "events since the previous read"},
	{"delta", SCXK_STAT_I64, "signed change"},
	{"ratio", SCXK_STAT_FLOAT, "a ratio"},
	{"mode", SCXK_STAT_STRING, "the mode"},
};

static void *t_open(void *arg)
{
	uint64_t *prev = malloc(sizeof(*prev));

	(void)arg;
	if (prev)
		*prev = __atomic_load_n(&events, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&nr_open, 1, __ATOMIC_SEQ_CST);
	return prev;
}

static void t_close(void *state, void *arg)
{
	(void)arg;
	free(state);
	__atomic_add_fetch(&nr_close, 1, __ATOMIC_SEQ_CST);
}

static int t_collect(json_t *out, void *state, void *arg)
{
	uint64_t *prev = state, now = __atomic_load_n(&events, __ATOMIC_SEQ_CST);

	(void)arg;
	if (collect_err)
		return collect_err;
	/* Not in meta order on purpose: the server reorders. */
	json_object_set_new(out, "extra", json_true());
	json_object_set_new(out, "mode", json_string("vtime"));
	json_object_set_new(out, "ratio", json_real(0.125));
	json_object_set_new(out, "delta", json_integer(-3));
	json_object_set_new(out, "events", json_integer(now - *prev));
	*prev = now;
	return 0;
}

static const struct scxk_stats_ops ops = {
	.name = "Test",
	.desc = "test stats",
	.fields = fields,
	.nr_fields = sizeof(fields) / sizeof(fields[0]),
	.open = t_open,
	.close = t_close,
	.collect = t_collect,
};

static const char *const STATS_REQ = "{\"req\":\"stats\",\"args\":{\"target\":\"top\"}}";

/* ---- helpers ---- */

static json_t *handle(const char *req, int *err)
{
	uint64_t prev = 0;
	char *line = scxk_stats_handle(&ops, &prev, req, strlen(req));
	json_t *root, *resp;

	assert_non_null(line);
	assert_null(strchr(line, '\n'));
	root = json_loads(line, 0, NULL);
	assert_non_null(root);
	*err = (int)json_integer_value(json_object_get(root, "errno"));
	resp = json_incref(json_object_get(json_object_get(root, "args"), "resp"));
	assert_non_null(resp);
	json_decref(root);
	free(line);
	return resp;
}

static char tmpdir[64], sock_path[128];

static int setup_dir(void **unused)
{
	(void)unused;
	strcpy(tmpdir, "/tmp/scxk-stats-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	/* Two missing levels: the server creates them. */
	snprintf(sock_path, sizeof(sock_path), "%s/run/scx/stats", tmpdir);
	collect_err = 0;
	return 0;
}

static int teardown_dir(void **unused)
{
	char p[160];

	(void)unused;
	unlink(sock_path);
	snprintf(p, sizeof(p), "%s/run/scx", tmpdir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/run", tmpdir);
	rmdir(p);
	return rmdir(tmpdir);
}

static struct scxk_stats_server *start(void)
{
	struct scxk_stats_server *srv;

	assert_int_equal(scxk_stats_server_start(&srv, sock_path, &ops), 0);
	return srv;
}

static int raw_connect(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	strcpy(sa.sun_path, sock_path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void raw_send(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* One line without '\n' into @buf: its length, 0 on EOF, -1 on timeout. */
static int raw_line(int fd, char *buf, size_t size, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n;

		if (poll(&pfd, 1, timeout_ms) != 1)
			return -1;
		n = recv(fd, buf + len, 1, 0);
		if (n <= 0)
			return len ? (int)len : 0;
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	return (int)len;
}

static int request_events(struct scxk_stats_client *c)
{
	json_t *resp;
	int v;

	assert_int_equal(scxk_stats_client_request(c, STATS_REQ, &resp), 0);
	v = (int)json_integer_value(json_object_get(resp, "events"));
	json_decref(resp);
	return v;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* ---- the handler ---- */

static void test_handle_stats(void **unused)
{
	const char *want[] = {"events", "delta", "ratio", "mode", "extra"};
	const char *key;
	json_t *resp, *v;
	size_t i = 0;
	int err;

	(void)unused;
	resp = handle(STATS_REQ, &err);
	assert_int_equal(err, 0);
	json_object_foreach(resp, key, v)
	{
		assert_true(i < 5);
		assert_string_equal(key, want[i++]);
	}
	assert_int_equal(i, 5);
	assert_int_equal(json_integer_value(json_object_get(resp, "delta")), -3);
	assert_string_equal(json_string_value(json_object_get(resp, "mode")), "vtime");
	json_decref(resp);

	/* args and target are optional */
	json_decref(handle("{\"req\":\"stats\"}", &err));
	assert_int_equal(err, 0);
	json_decref(handle(" {\"req\":\"stats\",\"args\":null}\r", &err));
	assert_int_equal(err, 0);
}

static void test_handle_errors(void **unused)
{
	static const char *const bad[] = {
		"{\"req\":",
		"",
		"not json",
		"[]",
		"\"stats\"",
		"{}",
		"{\"args\":{}}",
		"{\"req\":1}",
		"{\"req\":\"nope\"}",
		"{\"req\":\"STATS\"}",
		"{\"req\":\"stats\",\"args\":[]}",
		"{\"req\":\"stats\",\"args\":{\"target\":\"other\"}}",
		"{\"req\":\"stats\",\"args\":{\"target\":1}}",
		"{\"req\":\"stats\",\"req\":\"stats\"}",
		"{\"req\":\"stats\"} {}",
	};
	char *line;
	size_t i;
	int err;

	(void)unused;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *resp = handle(bad[i], &err);

		assert_int_equal(err, EINVAL);
		/* as upstream's server: the error's text in resp */
		assert_true(json_is_string(resp) && json_string_length(resp) > 0);
		json_decref(resp);
	}
	line = scxk_stats_handle(&ops, NULL, "{\"req\":\"nope\"}", 14);
	assert_string_equal(line,
			    "{\"errno\":22,\"args\":{\"resp\":\"unknown request \\\"nope\\\"; "
			    "requests: stats, stats_meta\"}}");
	free(line);
	line = scxk_stats_handle(&ops, NULL, "{\"req\":\"stats\",\"args\":{\"target\":\"x\"}}", 37);
	assert_string_equal(line,
			    "{\"errno\":22,\"args\":{\"resp\":\"unknown stats target \\\"x\\\"; "
			    "targets: top\"}}");
	free(line);
	/* No ops: meta is empty, stats is refused. */
	line = scxk_stats_handle(NULL, NULL, STATS_REQ, strlen(STATS_REQ));
	assert_string_equal(line, "{\"errno\":22,\"args\":{\"resp\":\"Invalid argument\"}}");
	free(line);
	line = scxk_stats_handle(NULL, NULL, "{\"req\":\"stats_meta\"}", 20);
	assert_string_equal(line, "{\"errno\":0,\"args\":{\"resp\":{}}}");
	free(line);
}

static void test_handle_oversized(void **unused)
{
	char *req = malloc(SCXK_STATS_MAX_REQ + 2), *line;
	int len;

	(void)unused;
	/* Exactly SCXK_STATS_MAX_REQ bytes is still a request. */
	len = snprintf(req, SCXK_STATS_MAX_REQ + 1, "%s", STATS_REQ);
	memset(req + len, ' ', SCXK_STATS_MAX_REQ - len);
	line = scxk_stats_handle(&ops, &(uint64_t){0}, req, SCXK_STATS_MAX_REQ);
	assert_non_null(strstr(line, "\"errno\":0,"));
	free(line);
	req[SCXK_STATS_MAX_REQ] = ' ';
	line = scxk_stats_handle(&ops, NULL, req, SCXK_STATS_MAX_REQ + 1);
	assert_string_equal(line,
			    "{\"errno\":7,\"args\":{\"resp\":\"request longer than 4096 bytes\"}}");
	free(line);
	free(req);
}

static void test_handle_collect_error(void **unused)
{
	json_t *resp;
	int err;

	(void)unused;
	collect_err = -EIO;
	resp = handle(STATS_REQ, &err);
	collect_err = 0;
	assert_int_equal(err, EIO);
	assert_string_equal(json_string_value(resp), "Input/output error");
	json_decref(resp);
}

static void test_meta_schema(void **unused)
{
	static const char *const datum[] = {"u64", "i64", "float", "string"};
	json_t *resp, *st, *fj, *f;
	const char *key;
	size_t i = 0;
	int err;

	(void)unused;
	resp = handle("{\"req\":\"stats_meta\"}", &err);
	assert_int_equal(err, 0);
	assert_int_equal(json_object_size(resp), 1);
	st = json_object_get(resp, "Test");
	assert_non_null(st);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "Test");
	assert_string_equal(json_string_value(json_object_get(st, "desc")), "test stats");
	/* upstream's StatsStructAttrs: top is Option<String>, "true" */
	assert_string_equal(json_string_value(json_object_get(st, "top")), "true");
	fj = json_object_get(st, "fields");
	assert_int_equal(json_object_size(fj), 4);
	json_object_foreach(fj, key, f)
	{
		assert_string_equal(key, fields[i].name);
		/* upstream's StatsField: its StatsData variant and desc, no name */
		assert_int_equal(json_object_size(f), 2);
		assert_string_equal(json_string_value(json_object_get(f, "desc")), fields[i].desc);
		assert_string_equal(json_string_value(json_object_get(f, "datum")), datum[i]);
		i++;
	}
	json_decref(resp);
	json_decref(handle("{\"req\":\"stats_meta\",\"args\":{}}", &err));
	assert_int_equal(err, 0);
}

/*
 * Nested fields, the structs they hold and named targets, typed as
 * upstream's scx_stats serialises its StatsMeta.
 */
static const struct scxk_stat_desc sub_fields[] = {
	{"load", SCXK_STAT_FLOAT, "load"},
};
static const struct scxk_stat_desc nest_fields[] = {
	{"doms", SCXK_STAT_DICT, "per domain", "u64:Dom"},
	{"hist", SCXK_STAT_ARRAY, "a histogram", "u64"},
};
static const struct scxk_stats_struct subs[] = {
	{"Dom", "one domain", sub_fields, 1, "dom_", "domain"},
};

static int t_target(json_t **resp, json_t *args, void *ctx, char *why, size_t len)
{
	json_t *n = json_object_get(args, "n");

	if (!json_is_string(n)) {
		snprintf(why, len, "n is missing");
		return -EINVAL;
	}
	*resp = json_pack("{s:s,s:s}", "n", json_string_value(n), "ctx", (const char *)ctx);
	return 0;
}

static const struct scxk_stats_target targets[] = {
	{"samples", t_target},
	{"other", NULL, "not here"},
};

static const struct scxk_stats_ops nest_ops = {
	.name = "Top",
	.desc = "top",
	.fields = nest_fields,
	.nr_fields = 2,
	.subs = subs,
	.nr_subs = 1,
	.targets = targets,
	.nr_targets = 2,
	.target_ctx = "c",
};

static char *nest(const char *req)
{
	return scxk_stats_handle(&nest_ops, NULL, req, strlen(req));
}

static void test_meta_nested_and_targets(void **unused)
{
	char *line;

	(void)unused;
	line = nest("{\"req\":\"stats_meta\"}");
	assert_string_equal(
		line,
		"{\"errno\":0,\"args\":{\"resp\":{"
		"\"Top\":{\"name\":\"Top\",\"desc\":\"top\",\"fields\":{"
		"\"doms\":{\"dict\":{\"key\":\"u64\",\"datum\":{\"struct\":\"Dom\"}},"
		"\"desc\":\"per domain\"},\"hist\":{\"array\":\"u64\",\"desc\":\"a histogram\"}},"
		"\"top\":\"true\"},"
		"\"Dom\":{\"name\":\"Dom\",\"desc\":\"one domain\",\"fields\":{"
		"\"load\":{\"datum\":\"float\",\"desc\":\"load\"}},"
		"\"user\":{\"_om_prefix\":\"dom_\",\"_om_label\":\"domain\"}}}}}");
	free(line);
	line = nest("{\"req\":\"stats\",\"args\":{\"target\":\"samples\",\"n\":\"5\"}}");
	assert_string_equal(line, "{\"errno\":0,\"args\":{\"resp\":{\"n\":\"5\",\"ctx\":\"c\"}}}");
	free(line);
	line = nest("{\"req\":\"stats\",\"args\":{\"target\":\"samples\"}}");
	assert_string_equal(line, "{\"errno\":22,\"args\":{\"resp\":\"n is missing\"}}");
	free(line);
	line = nest("{\"req\":\"stats\",\"args\":{\"target\":\"other\"}}");
	assert_string_equal(line,
			    "{\"errno\":95,\"args\":{\"resp\":\"stats target \\\"other\\\" is "
			    "not served here: not here\"}}");
	free(line);
	line = nest("{\"req\":\"stats\",\"args\":{\"target\":\"zz\"}}");
	assert_string_equal(line, "{\"errno\":22,\"args\":{\"resp\":\"unknown stats target "
				  "\\\"zz\\\"; targets: top, samples\"}}");
	free(line);
}

/* ---- printers ---- */

static void test_print(void **unused)
{
	static const char *const in = "{\"a\":1,\"b\":2.5,\"s\":\"x\",\"n\":[1,2],\"t\":true}";
	json_t *resp = json_loads(in, 0, NULL);
	char *buf = NULL;
	size_t size;
	FILE *f;

	(void)unused;
	f = open_memstream(&buf, &size);
	scxk_stats_print_line(resp, f);
	scxk_stats_print_meta(&ops, f);
	fclose(f);
	assert_string_equal(buf, "a=1 b=2.50 s=x n=[1,2] t=true\n"
				 "events  u64     events since the previous read\n"
				 "delta   i64     signed change\n"
				 "ratio   float   a ratio\n"
				 "mode    string  the mode\n");
	free(buf);
	json_decref(resp);
}

/* ---- a real server ---- */

static void test_roundtrip(void **unused)
{
	struct scxk_stats_server *srv;
	struct stat st;
	char dir[160];
	json_t *resp;
	int opened = nr_open;

	(void)unused;
	srv = start();
	snprintf(dir, sizeof(dir), "%s/run/scx", tmpdir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(lstat(sock_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);

	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), 0);
	assert_string_equal(json_string_value(json_object_get(resp, "mode")), "vtime");
	json_decref(resp);
	assert_int_equal(scxk_stats_request(sock_path, "{\"req\":\"stats_meta\"}", &resp, 1000), 0);
	assert_non_null(json_object_get(json_object_get(resp, "Test"), "fields"));
	json_decref(resp);
	assert_int_equal(scxk_stats_request(sock_path, "{\"req\":\"x\"}", &resp, 1000), -EINVAL);
	assert_null(resp);
	assert_true(nr_open - opened == 3);

	scxk_stats_server_stop(srv);
	assert_int_equal(access(sock_path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(nr_open, nr_close);
	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), -ENOENT);
}

static void test_socket_mode(void **unused)
{
	struct scxk_stats_server_opts o = {.sock_mode = 0660, .dir_mode = 0750};
	struct scxk_stats_server *srv;
	struct stat st;

	(void)unused;
	assert_int_equal(scxk_stats_server_start_opts(&srv, sock_path, &ops, &o), 0);
	assert_int_equal(lstat(sock_path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0660);
	scxk_stats_server_stop(srv);
}

static void test_per_connection_deltas(void **unused)
{
	struct scxk_stats_server *srv = start();
	struct scxk_stats_client *a, *b;

	(void)unused;
	assert_int_equal(scxk_stats_client_open(&a, sock_path, 1000), 0);
	assert_int_equal(request_events(a), 0); /* opens A's state at the current count */
	__atomic_add_fetch(&events, 10, __ATOMIC_SEQ_CST);
	assert_int_equal(request_events(a), 10);
	assert_int_equal(scxk_stats_client_open(&b, sock_path, 1000), 0);
	assert_int_equal(request_events(b), 0);
	__atomic_add_fetch(&events, 3, __ATOMIC_SEQ_CST);
	assert_int_equal(request_events(a), 3);
	__atomic_add_fetch(&events, 2, __ATOMIC_SEQ_CST);
	assert_int_equal(request_events(b), 5);
	assert_int_equal(request_events(a), 2);
	assert_int_equal(request_events(a), 0);
	scxk_stats_client_close(a);
	scxk_stats_client_close(b);
	scxk_stats_server_stop(srv);
}

static void test_stale_socket(void **unused)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct scxk_stats_server *srv;
	char dir[160];
	json_t *resp;
	int fd;

	(void)unused;
	/* A socket file nobody listens on, as a killed scheduler leaves it. */
	snprintf(dir, sizeof(dir), "%s/run", tmpdir);
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s/run/scx", tmpdir);
	mkdir(dir, 0700);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sa.sun_path, sock_path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(access(sock_path, F_OK), 0);

	srv = start();
	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), 0);
	json_decref(resp);
	scxk_stats_server_stop(srv);
}

static void test_refuse_live(void **unused)
{
	struct scxk_stats_server *srv = start(), *srv2 = NULL;
	json_t *resp;
	int fd;

	(void)unused;
	assert_int_equal(scxk_stats_server_start(&srv2, sock_path, &ops), -EADDRINUSE);
	assert_null(srv2);
	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), 0);
	json_decref(resp);
	scxk_stats_server_stop(srv);

	/* Never delete something that is not a socket. */
	fd = open(sock_path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(scxk_stats_server_start(&srv2, sock_path, &ops), -EEXIST);
	assert_int_equal(access(sock_path, F_OK), 0);
}

static void test_stalled_client(void **unused)
{
	struct scxk_stats_server *srv = start();
	struct timespec t0, t1;
	char buf[512];
	json_t *resp;
	int fd, ret;

	(void)unused;
	fd = raw_connect();
	raw_send(fd, "{\"req\":\"st");
	sleep_ms(50);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), 0);
	json_decref(resp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 1);

	/* The half line never ends: the server gives up on that client. */
	ret = raw_line(fd, buf, sizeof(buf), SCXK_STATS_STALL_MS + 2000);
	assert_int_equal(ret, 0);
	close(fd);
	scxk_stats_server_stop(srv);
}

static void test_client_never_reads(void **unused)
{
	struct scxk_stats_server *srv = start();
	char req[64];
	json_t *resp;
	int fd, i;

	(void)unused;
	fd = raw_connect();
	snprintf(req, sizeof(req), "%s\n", STATS_REQ);
	/* Send until our side is full too; never read. */
	for (i = 0; i < 100000; i++)
		if (send(fd, req, strlen(req), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
	assert_true(i < 100000);
	assert_int_equal(scxk_stats_request(sock_path, STATS_REQ, &resp, 1000), 0);
	json_decref(resp);
	close(fd);
	scxk_stats_server_stop(srv);
}

static void test_malformed_and_oversized(void **unused)
{
	struct scxk_stats_server *srv = start();
	char buf[512], *big;
	int fd;

	(void)unused;
	fd = raw_connect();
	/* Malformed: answered with EINVAL, the connection stays. */
	raw_send(fd, "garbage\n");
	assert_true(raw_line(fd, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, "{\"errno\":22,\"args\":{\"resp\":\"malformed request: "));
	raw_send(fd, "{\"req\":\"stats\"}\n{\"req\":\"stats_meta\"}\n");
	assert_true(raw_line(fd, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, "{\"errno\":0,"));
	assert_true(raw_line(fd, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, "\"Test\""));

	/* Oversized: E2BIG, then the server hangs up. */
	big = malloc(SCXK_STATS_MAX_REQ + 1000);
	memset(big, 'x', SCXK_STATS_MAX_REQ + 998);
	big[SCXK_STATS_MAX_REQ + 998] = '\n';
	big[SCXK_STATS_MAX_REQ + 999] = '\0';
	raw_send(fd, big);
	free(big);
	assert_true(raw_line(fd, buf, sizeof(buf), 1000) > 0);
	assert_string_equal(buf,
			    "{\"errno\":7,\"args\":{\"resp\":\"request longer than 4096 bytes\"}}");
	assert_int_equal(raw_line(fd, buf, sizeof(buf), 1000), 0);
	close(fd);
	scxk_stats_server_stop(srv);
}

static int64_t elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000LL + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * Every slot held by an idle client (one that asked once and then sleeps,
 * as a crashed or stopped monitor does): a new client is still answered at
 * once, and the one quiet longest makes room.
 */
static void test_max_clients(void **unused)
{
	struct scxk_stats_server *srv = start();
	int fds[SCXK_STATS_MAX_CLIENTS], extra, i;
	struct timespec t0;
	char buf[512];

	(void)unused;
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++) {
		fds[i] = raw_connect();
		raw_send(fds[i], "{\"req\":\"stats\"}\n");
		assert_true(raw_line(fds[i], buf, sizeof(buf), 1000) > 0);
		sleep_ms(2); /* distinct activity times: fds[0] is the oldest */
	}
	/* The most recent client talks again: it must not be the one dropped. */
	raw_send(fds[SCXK_STATS_MAX_CLIENTS - 1], "{\"req\":\"stats\"}\n");
	assert_true(raw_line(fds[SCXK_STATS_MAX_CLIENTS - 1], buf, sizeof(buf), 1000) > 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	extra = raw_connect();
	raw_send(extra, "{\"req\":\"stats\"}\n");
	assert_true(raw_line(extra, buf, sizeof(buf), 1000) > 0);
	assert_non_null(strstr(buf, "{\"errno\":0,"));
	assert_true(elapsed_ms(&t0) < 500);
	/* The oldest idle client was dropped (EOF), the others still answer. */
	assert_int_equal(raw_line(fds[0], buf, sizeof(buf), 1000), 0);
	for (i = 1; i < SCXK_STATS_MAX_CLIENTS; i++) {
		raw_send(fds[i], "{\"req\":\"stats\"}\n");
		assert_true(raw_line(fds[i], buf, sizeof(buf), 1000) > 0);
	}
	/* Twice as many idle connections as slots: the newest still gets in. */
	close(extra);
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++) {
		close(fds[i]);
		fds[i] = raw_connect();
	}
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++)
		close(raw_connect()); /* connect, then vanish without a word */
	extra = raw_connect();
	raw_send(extra, "{\"req\":\"stats\"}\n");
	assert_true(raw_line(extra, buf, sizeof(buf), 1000) > 0);
	close(extra);
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++)
		close(fds[i]);
	scxk_stats_server_stop(srv);
}

/* Exit codes of the EMFILE child, one per failed expectation. */
enum {
	EMFILE_OK,
	EMFILE_SETUP,	  /* could not build the situation */
	EMFILE_NOT_FULL,  /* the fd table did not fill up */
	EMFILE_SPIN,	  /* the server thread burnt CPU while accept4() failed */
	EMFILE_NO_ANSWER, /* no answer once descriptors were free again */
};

#define EMFILE_WATCH_MS	  1000 /* wall time the server spends out of descriptors */
#define EMFILE_CPU_MAX_MS 100  /* its CPU time meanwhile; a spin takes ~all of it */
#define EMFILE_FDS	  64   /* the child's descriptor limit */

static int emfile_child(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct rlimit rl = {EMFILE_FDS, EMFILE_FDS};
	struct scxk_stats_server *srv;
	struct timespec c0, c1;
	int cfd, spare = -1, fd;
	int64_t cpu_ms;
	char buf[512];

	if (setrlimit(RLIMIT_NOFILE, &rl) || scxk_stats_server_start(&srv, sock_path, &ops))
		return EMFILE_SETUP;
	cfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (cfd < 0)
		return EMFILE_SETUP;
	/* Take every free descriptor, so the server's accept4() fails. */
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		spare = fd;
	if (errno != EMFILE || spare < 0)
		return EMFILE_NOT_FULL;
	strcpy(sa.sun_path, sock_path);
	/* The connection waits in the backlog: connect() succeeds without accept(). */
	if (connect(cfd, (struct sockaddr *)&sa, sizeof(sa)))
		return EMFILE_SETUP;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	sleep_ms(EMFILE_WATCH_MS);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	cpu_ms = (c1.tv_sec - c0.tv_sec) * 1000LL + (c1.tv_nsec - c0.tv_nsec) / 1000000;
	if (cpu_ms > EMFILE_CPU_MAX_MS) {
		fprintf(stderr, "server thread used %lld ms of CPU in %d ms\n", (long long)cpu_ms,
			EMFILE_WATCH_MS);
		return EMFILE_SPIN;
	}
	/* A descriptor frees up (two: the client state may need one too). */
	close(spare);
	close(spare - 1);
	if (send(cfd, "{\"req\":\"stats\"}\n", 16, MSG_NOSIGNAL) != 16 ||
	    raw_line(cfd, buf, sizeof(buf), 2000) <= 0 || !strstr(buf, "{\"errno\":0,"))
		return EMFILE_NO_ANSWER;
	/* Exit without cleanup: the parent's teardown removes the socket. */
	return EMFILE_OK;
}

static void test_accept_emfile(void **unused)
{
	pid_t pid;
	int st;

	(void)unused;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(emfile_child());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), EMFILE_OK);
}

static void *late_start(void *arg)
{
	struct scxk_stats_server **srv = arg;

	sleep_ms(1500);
	assert_int_equal(scxk_stats_server_start(srv, sock_path, &ops), 0);
	return NULL;
}

static void test_monitor_retry(void **unused)
{
	struct scxk_stats_server *srv = NULL;
	struct timespec t0, t1;
	char *buf = NULL, *nl;
	pthread_t th;
	size_t size;
	FILE *f;

	(void)unused;
	f = open_memstream(&buf, &size);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(pthread_create(&th, NULL, late_start, &srv), 0);
	assert_int_equal(scxk_stats_monitor(sock_path, 0.1, 2, f, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	fclose(f);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 1400);
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	assert_non_null(strchr(nl + 1, '\n'));
	assert_null(strchr(strchr(nl + 1, '\n') + 1, '\n'));
	assert_int_equal(strncmp(buf, "events=", 7), 0);
	assert_non_null(strstr(buf, " ratio=0.12 mode=vtime extra=true\n"));
	free(buf);
	scxk_stats_server_stop(srv);
	assert_int_equal(access(sock_path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handle_stats),
		cmocka_unit_test(test_handle_errors),
		cmocka_unit_test(test_handle_oversized),
		cmocka_unit_test(test_handle_collect_error),
		cmocka_unit_test(test_meta_schema),
		cmocka_unit_test(test_meta_nested_and_targets),
		cmocka_unit_test(test_print),
		cmocka_unit_test_setup_teardown(test_roundtrip, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_socket_mode, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_per_connection_deltas, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_stale_socket, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_refuse_live, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_stalled_client, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_client_never_reads, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_malformed_and_oversized, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_max_clients, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_accept_emfile, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_monitor_retry, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
