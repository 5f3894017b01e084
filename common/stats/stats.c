// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats server: request handling and the thread that serves it.
 *
 * The thread must stay responsive whatever clients do, since a root-only
 * socket still sees buggy monitors. Every socket is non-blocking, each
 * client's input is bounded by one request line and its output by
 * OUT_MAX, and a client that stalls mid-line or stops reading for
 * SCXK_STATS_STALL_MS is dropped. With every slot taken, a new client
 * replaces the one that has been quiet longest, so idle connections
 * cannot lock monitors out.
 */
#define _GNU_SOURCE /* accept4() */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <scxkit/log.h>
#include <scxkit/stats.h>
#include <scxkit/stats_ids.h>

#define OUT_MAX	     (1 << 20) /* queued response bytes per client */
#define POLL_TICK_MS 500       /* how often stall deadlines are checked */
/*
 * Out of file descriptors (or memory) for accept4(): the pending connection
 * keeps the listening socket readable, so polling it at once again would
 * spin. Clients already connected are still served meanwhile.
 */
#define ACCEPT_BACKOFF_MS 200

/* ---- request handling ---- */

const char *scxk_stats_type_name(enum scxk_stat_type type)
{
	switch (type) {
	case SCXK_STAT_U64:
		return "u64";
	case SCXK_STAT_I64:
		return "i64";
	case SCXK_STAT_FLOAT:
		return "float";
	case SCXK_STAT_STRING:
		return "string";
	case SCXK_STAT_DICT:
		return "dict";
	case SCXK_STAT_ARRAY:
		return "array";
	}
	return "?";
}

const struct scxk_stats_struct *scxk_stat_sub(const struct scxk_stat_desc *f,
					      const struct scxk_stats_struct *subs, size_t nr_subs)
{
	const char *name = f->type == SCXK_STAT_DICT && f->unit ? strchr(f->unit, ':') : NULL;

	for (size_t i = 0; name && i < nr_subs; i++)
		if (!strcmp(subs[i].name, name + 1))
			return &subs[i];
	return NULL;
}

const char *scxk_stats_field_desc(const struct scxk_stat_desc *f, char *buf, size_t len)
{
	/* a nested field's unit names what it holds, in the meta's own terms */
	if (!f->unit || !*f->unit || f->type == SCXK_STAT_DICT || f->type == SCXK_STAT_ARRAY)
		return f->desc ? f->desc : "";
	snprintf(buf, len, "%s (%s)", f->desc ? f->desc : "", f->unit);
	return buf;
}

/* snake_case: lower-case letters, digits and '_', starting with a letter */
static bool snake_case(const char *s)
{
	if (!s || !(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

int scxk_stats_check_fields(const struct scxk_stat_desc *fields, size_t n, unsigned int nr_counters,
			    unsigned int nr_values, const char **why, int *bad)
{
	uint64_t counters = 0, values = 0; /* ids seen, one bit each */
	size_t i, j;

	*bad = -1;
	if (nr_counters > SCXK_MAX_COUNTERS || nr_values > 64) {
		*why = "more counters than SCXK_MAX_COUNTERS, or more than 64 values";
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		const struct scxk_stat_desc *f = &fields[i];
		uint64_t *seen = scxk_stat_is_counter(f) ? &counters : &values;
		unsigned int nr = scxk_stat_is_counter(f) ? nr_counters : nr_values;

		*bad = (int)i;
		if (!snake_case(f->name)) {
			*why = "a name is empty or not snake_case";
			return -EINVAL;
		}
		if (!f->desc || !*f->desc) {
			*why = "a stat has no help text";
			return -EINVAL;
		}
		if (f->id >= nr || (*seen & (1ULL << f->id))) {
			*why = "an id is out of its enum's range or used twice";
			return -EINVAL;
		}
		*seen |= 1ULL << f->id;
		for (j = 0; j < i; j++)
			if (!strcmp(fields[j].name, f->name)) {
				*why = "a name is used twice";
				return -EINVAL;
			}
	}
	*bad = -1;
	if (counters != (nr_counters == 64 ? ~0ULL : (1ULL << nr_counters) - 1) ||
	    values != (nr_values == 64 ? ~0ULL : (1ULL << nr_values) - 1)) {
		*why = "the enum has ids the table lacks";
		return -EINVAL;
	}
	return 0;
}

int scxk_stats_set(struct scxk_stats_read *r, unsigned int id, json_t *v)
{
	const struct scxk_stat_desc *f = NULL;
	bool ok;
	size_t i;

	for (i = 0; i < r->nr_fields && !f; i++)
		if (r->fields[i].kind == SCXK_STAT_KIND_VAL && r->fields[i].id == id)
			f = &r->fields[i];
	if (!v)
		return f ? 0 : -ENOENT;
	switch (f ? f->type : SCXK_STAT_STRING) {
	case SCXK_STAT_U64:
	case SCXK_STAT_I64:
		ok = json_is_integer(v);
		break;
	case SCXK_STAT_FLOAT:
		ok = json_is_real(v);
		break;
	case SCXK_STAT_DICT:
		ok = json_is_object(v);
		break;
	case SCXK_STAT_ARRAY:
		ok = json_is_array(v);
		break;
	default:
		ok = json_is_string(v);
	}
	if (!f || !ok) {
		json_decref(v);
		return f ? -EINVAL : -ENOENT;
	}
	return json_object_set_new(r->out, f->name, v) ? -ENOMEM : 0;
}

/*
 * One field as upstream's scx_stats types it (serde of StatsField: the
 * StatsData variant as its key, "desc" beside it, no name):
 * {"datum":"u64"}, {"array":"u64"}, {"dict":{"key":"string","datum":{"struct":"S"}}}.
 */
/*
 * What the human format (stats_view.c) needs beyond upstream's meta, as
 * field user attributes (which upstream's StatsField carries and its
 * clients ignore): the unit on its own, and whether a counter is served as
 * a delta per read or a total, so clients can turn it into a rate.
 */
static int field_user(json_t *fj, const struct scxk_stat_desc *f)
{
	const char *kind = f->kind == SCXK_STAT_KIND_CNT   ? "delta"
			   : f->kind == SCXK_STAT_KIND_TOT ? "total"
							   : NULL;
	json_t *user;

	if (!kind && (!f->unit || !*f->unit))
		return 0;
	user = json_object();
	if (!user || json_object_set_new(fj, "user", user) ||
	    (kind && json_object_set_new(user, "_scxk_kind", json_string(kind))) ||
	    (f->unit && *f->unit && json_object_set_new(user, "_scxk_unit", json_string(f->unit))))
		return -ENOMEM;
	return 0;
}

static json_t *field_meta(const struct scxk_stat_desc *f, const struct scxk_stats_ops *ops)
{
	const struct scxk_stats_struct *sub;
	char buf[256], key[16];
	const char *colon;
	json_t *fj;

	switch (f->type) {
	case SCXK_STAT_DICT:
		sub = scxk_stat_sub(f, ops->subs, ops->nr_subs);
		colon = strchr(f->unit, ':');
		if (!sub || !colon || (size_t)(colon - f->unit) >= sizeof(key))
			return NULL;
		snprintf(key, sizeof(key), "%.*s", (int)(colon - f->unit), f->unit);
		return json_pack("{s:{s:s,s:{s:s}},s:s}", "dict", "key", key, "datum", "struct",
				 sub->name, "desc", scxk_stats_field_desc(f, buf, sizeof(buf)));
	case SCXK_STAT_ARRAY:
		return json_pack("{s:s,s:s}", "array", f->unit, "desc",
				 scxk_stats_field_desc(f, buf, sizeof(buf)));
	default:
		fj = json_pack("{s:s,s:s}", "datum", scxk_stats_type_name(f->type), "desc",
			       scxk_stats_field_desc(f, buf, sizeof(buf)));
		return fj && field_user(fj, f) ? (json_decref(fj), NULL) : fj;
	}
}

/* One struct as upstream's StatsMeta: name, desc, "top":"true" (a string), user, fields. */
static int struct_meta(json_t *meta, const char *name, const char *desc,
		       const struct scxk_stat_desc *fields, size_t nr, bool top,
		       const char *om_prefix, const char *om_label,
		       const struct scxk_stats_ops *ops)
{
	json_t *st = json_pack("{s:s,s:s,s:o}", "name", name, "desc", desc ? desc : "", "fields",
			       json_object()),
	       *fj, *user;

	if (!st || json_object_set_new(meta, name, st))
		return -ENOMEM;
	if (top && json_object_set_new(st, "top", json_string("true")))
		return -ENOMEM;
	if (om_prefix || om_label) {
		user = json_object();
		if (!user || json_object_set_new(st, "user", user) ||
		    (om_prefix &&
		     json_object_set_new(user, "_om_prefix", json_string(om_prefix))) ||
		    (om_label && json_object_set_new(user, "_om_label", json_string(om_label))))
			return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		if (!scxk_stat_served(&fields[i]))
			continue;
		fj = field_meta(&fields[i], ops);
		if (!fj || json_object_set_new(json_object_get(st, "fields"), fields[i].name, fj))
			return -EINVAL;
	}
	return 0;
}

json_t *scxk_stats_meta_json(const struct scxk_stats_ops *ops)
{
	json_t *meta = json_object();
	size_t i;

	if (!meta || !ops || !ops->name)
		return meta;
	if (struct_meta(meta, ops->name, ops->desc, ops->fields, ops->nr_fields, true, NULL, NULL,
			ops))
		goto err;
	for (i = 0; i < ops->nr_subs; i++)
		if (struct_meta(meta, ops->subs[i].name, ops->subs[i].desc, ops->subs[i].fields,
				ops->subs[i].nr_fields, false, ops->subs[i].om_prefix,
				ops->subs[i].om_label, ops))
			goto err;
	return meta;
err:
	json_decref(meta);
	return NULL;
}

/*
 * Rebuild @raw with the meta's fields first, in their declared order, so
 * plain "key=value" printers show a stable layout whatever order collect()
 * used; keys collect() added beyond the meta follow.
 */
static json_t *order_fields(const struct scxk_stats_ops *ops, json_t *raw)
{
	json_t *out = json_object(), *v;
	const char *key;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < ops->nr_fields; i++) {
		if (!scxk_stat_served(&ops->fields[i]))
			continue;
		v = json_object_get(raw, ops->fields[i].name);
		if (v && json_object_set(out, ops->fields[i].name, v))
			goto err;
	}
	json_object_foreach(raw, key, v)
	{
		if (!json_object_get(out, key) && json_object_set(out, key, v))
			goto err;
	}
	return out;
err:
	json_decref(out);
	return NULL;
}

/*
 * The envelope. On error "resp" is a message, as upstream's server sends
 * (its error's text): clients show it; the errno field is what they test.
 */
static char *response(int err, json_t *resp, const char *why)
{
	json_t *r;
	char *line;

	if (err && !resp)
		resp = json_string(why && *why ? why : strerror(err));
	r = json_pack("{s:i,s:{s:o}}", "errno", err, "args", "resp", resp ? resp : json_null());
	if (!r)
		return NULL;
	line = json_dumps(r, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(r);
	return line;
}

static int handle_top(const struct scxk_stats_ops *ops, void *state, json_t **resp)
{
	json_t *raw;
	int err;

	if (!ops || !ops->collect)
		return -EINVAL;
	raw = json_object();
	if (!raw)
		return -ENOMEM;
	err = ops->collect(raw, state, ops->arg);
	if (err > 0)
		err = -err;
	if (!err && !json_is_object(raw))
		err = -EIO;
	if (!err && !(*resp = order_fields(ops, raw)))
		err = -ENOMEM;
	json_decref(raw);
	return err;
}

static int handle_stats(const struct scxk_stats_ops *ops, void *state, json_t *args, json_t **resp,
			char *why, size_t len)
{
	json_t *target = args ? json_object_get(args, "target") : NULL;
	const char *name;
	size_t i, n;

	/* Upstream clients send "top"; a missing target means the same. */
	if (!target)
		return handle_top(ops, state, resp);
	if (!json_is_string(target)) {
		snprintf(why, len, "\"target\" must be a string");
		return -EINVAL;
	}
	name = json_string_value(target);
	if (!strcmp(name, "top"))
		return handle_top(ops, state, resp);
	for (i = 0; ops && i < ops->nr_targets; i++) {
		const struct scxk_stats_target *t = &ops->targets[i];

		if (strcmp(name, t->name))
			continue;
		if (t->unsupported) {
			snprintf(why, len, "stats target \"%s\" is not served here: %s", name,
				 t->unsupported);
			return -EOPNOTSUPP;
		}
		return t->collect(resp, args, ops->target_ctx, why, len);
	}
	n = (size_t)snprintf(why, len, "unknown stats target \"%.64s\"; targets: top", name);
	for (i = 0; ops && i < ops->nr_targets && n < len; i++)
		if (!ops->targets[i].unsupported)
			n += (size_t)snprintf(why + n, len - n, ", %s", ops->targets[i].name);
	return -EINVAL;
}

char *scxk_stats_handle(const struct scxk_stats_ops *ops, void *state, const char *req, size_t len)
{
	json_t *root, *verb, *args, *resp = NULL;
	char why[256] = "";
	json_error_t jerr;
	const char *name;
	int err = -EINVAL;

	if (len > SCXK_STATS_MAX_REQ)
		return response(E2BIG, NULL, "request longer than 4096 bytes");
	root = json_loadb(req, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root || !json_is_object(root)) {
		snprintf(why, sizeof(why), "malformed request: %s",
			 root ? "not a JSON object" : jerr.text);
		goto out;
	}
	verb = json_object_get(root, "req");
	args = json_object_get(root, "args");
	if (!json_is_string(verb) || (args && !json_is_object(args) && !json_is_null(args))) {
		snprintf(why, sizeof(why),
			 "malformed request: \"req\" must be a string and "
			 "\"args\" an object");
		goto out;
	}
	if (json_is_null(args))
		args = NULL;
	name = json_string_value(verb);
	if (!strcmp(name, "stats")) {
		err = handle_stats(ops, state, args, &resp, why, sizeof(why));
	} else if (!strcmp(name, "stats_meta")) {
		resp = scxk_stats_meta_json(ops);
		err = resp ? 0 : -ENOMEM;
	} else {
		snprintf(why, sizeof(why), "unknown request \"%.64s\"; requests: stats, stats_meta",
			 name);
	}
out:
	json_decref(root);
	if (err) {
		json_decref(resp);
		resp = NULL;
	}
	return response(-err, resp, why);
}

/* ---- the server ---- */

struct client {
	int fd; /* -1: slot free */
	void *state;
	bool closing;	   /* after an E2BIG answer: close once flushed */
	int64_t stall_at;  /* ms: drop if still mid-line or blocked then */
	int64_t active_at; /* ms: connected, or last request or reply */
	size_t in_len;
	char in[SCXK_STATS_MAX_REQ + 1]; /* one full line, or proof it is too long */
	char *out;
	size_t out_len, out_off;
};

struct scxk_stats_server {
	const struct scxk_stats_ops *ops;
	char *path;
	int lfd, efd;
	dev_t dev; /* identity of the socket file we bound */
	ino_t ino;
	pthread_t thread;
	int64_t accept_at; /* ms: accept4() failed for lack of resources; retry then */
	struct client clients[SCXK_STATS_MAX_CLIENTS];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void client_drop(struct scxk_stats_server *srv, struct client *c)
{
	char sink[4096];
	int i;

	/*
	 * Unread input makes the peer's next read fail with ECONNRESET instead
	 * of reading our last answer and EOF; swallow a bounded amount of it.
	 */
	for (i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	close(c->fd);
	if (srv->ops->close)
		srv->ops->close(c->state, srv->ops->arg);
	free(c->out);
	c->fd = -1;
	c->state = NULL;
	c->out = NULL;
}

/* Return: false if the client is gone or must go. */
static bool client_flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK;
		}
		c->out_off += n;
	}
	c->out_off = c->out_len = 0;
	return true;
}

static bool client_queue(struct client *c, char *line)
{
	size_t len;
	char *buf;

	if (!line)
		return false;
	len = strlen(line);
	if (c->out_len + len + 1 > OUT_MAX) {
		free(line);
		return false;
	}
	buf = realloc(c->out, c->out_len + len + 1);
	if (!buf) {
		free(line);
		return false;
	}
	memcpy(buf + c->out_len, line, len);
	buf[c->out_len + len] = '\n';
	c->out = buf;
	c->out_len += len + 1;
	free(line);
	return client_flush(c);
}

/*
 * Answer the complete lines in the input buffer. Stops while output is
 * pending, so a client that does not read cannot make us queue without
 * bound: its further requests wait in its socket. @progress says the
 * client just moved (a drained output), which restarts its stall clock.
 */
static bool client_process(struct client *c, const struct scxk_stats_ops *ops, bool progress)
{
	char *nl;

	while (!c->out_len && !c->closing && (nl = memchr(c->in, '\n', c->in_len))) {
		size_t line = nl - c->in;

		if (!client_queue(c, scxk_stats_handle(ops, c->state, c->in, line)))
			return false;
		c->in_len -= line + 1;
		memmove(c->in, nl + 1, c->in_len);
		progress = true;
	}
	if (progress)
		c->active_at = now_ms();
	if (!c->closing && c->in_len > SCXK_STATS_MAX_REQ) {
		scxk_dbg("stats: request line over %d bytes, closing the client",
			 SCXK_STATS_MAX_REQ);
		c->closing = true;
		c->in_len = 0;
		if (!client_queue(c, response(E2BIG, NULL, "request longer than 4096 bytes")))
			return false;
	}
	if (c->closing && !c->out_len)
		return false;
	/* Bytes trickling in do not count: only whole requests and replies. */
	if (!c->in_len && !c->out_len)
		c->stall_at = 0;
	else if (progress || !c->stall_at)
		c->stall_at = now_ms() + SCXK_STATS_STALL_MS;
	return true;
}

static bool client_read(struct client *c)
{
	ssize_t n;

	n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	if (!n)
		return false;
	c->in_len += n;
	return true;
}

/* A free slot, or the slot of the client quiet longest, dropped for @srv's newcomer. */
static struct client *client_slot(struct scxk_stats_server *srv)
{
	struct client *oldest = NULL;
	int i;

	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++) {
		struct client *c = &srv->clients[i];

		if (c->fd < 0)
			return c;
		if (!oldest || c->active_at < oldest->active_at)
			oldest = c;
	}
	scxk_dbg("stats: %d clients already, dropping the one quiet longest",
		 SCXK_STATS_MAX_CLIENTS);
	client_drop(srv, oldest);
	return oldest;
}

static void server_accept(struct scxk_stats_server *srv)
{
	int fd;

	for (;;) {
		struct client *c;

		fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				scxk_dbg("stats: cannot accept a client (%s), retrying in %d ms",
					 strerror(errno), ACCEPT_BACKOFF_MS);
				srv->accept_at = now_ms() + ACCEPT_BACKOFF_MS;
			}
			return;
		}
		c = client_slot(srv);
		c->state = srv->ops->open ? srv->ops->open(srv->ops->arg) : NULL;
		if (srv->ops->open && !c->state) {
			scxk_warn("stats: cannot set up a client's state, closing it");
			close(fd);
			continue;
		}
		c->fd = fd;
		c->closing = false;
		c->in_len = c->out_len = c->out_off = 0;
		c->stall_at = 0;
		c->active_at = now_ms();
	}
}

static void *server_thread(void *arg)
{
	struct scxk_stats_server *srv = arg;
	struct pollfd pfd[SCXK_STATS_MAX_CLIENTS + 2];
	struct client *slot[SCXK_STATS_MAX_CLIENTS + 2];

	for (;;) {
		int n = 0, i, timeout = -1;
		int64_t now = now_ms();
		/* A negative fd is ignored by poll(): the listener rests while backing off. */
		bool resting = srv->accept_at > now;

		pfd[n++] = (struct pollfd){.fd = srv->efd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = resting ? -1 : srv->lfd, .events = POLLIN};
		if (resting)
			timeout = (int)(srv->accept_at - now);
		for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++) {
			struct client *c = &srv->clients[i];

			if (c->fd < 0)
				continue;
			slot[n] = c;
			pfd[n++] = (struct pollfd){.fd = c->fd,
						   .events = c->out_len ? POLLOUT : POLLIN};
			if (c->stall_at && (timeout < 0 || timeout > POLL_TICK_MS))
				timeout = POLL_TICK_MS;
		}
		if (poll(pfd, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			scxk_err(-errno, "stats: poll failed, the stats server stops");
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			server_accept(srv);
		now = now_ms();
		for (i = 2; i < n; i++) {
			struct client *c = slot[i];
			bool ok = true;

			/* Replaced by a newcomer in server_accept(): these events were the old
			 * fd's. */
			if (c->fd != pfd[i].fd)
				continue;
			if (pfd[i].revents & POLLOUT)
				ok = client_flush(c) && client_process(c, srv->ops, !c->out_len);
			else if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				ok = client_read(c) && client_process(c, srv->ops, false);
			else if (c->stall_at && now >= c->stall_at)
				ok = false;
			if (!ok)
				client_drop(srv, c);
		}
	}
	return NULL;
}

static int mkdir_parents(const char *path, mode_t mode)
{
	char *dir = strdup(path), *p;
	int err = 0;

	if (!dir)
		return -ENOMEM;
	/* Walk the separators of the parent: "/a/b/sock" makes /a, then /a/b. */
	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(dir, mode) && errno != EEXIST) {
			err = scxk_err(-errno, "stats: cannot create %s", dir);
			break;
		}
		*p = '/';
	}
	free(dir);
	return err;
}

/* Decide whether @path can be (re)bound: 0 if absent or stale. */
static int check_path(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : scxk_err(-errno, "stats: cannot stat %s", path);
	if (!S_ISSOCK(st.st_mode))
		return scxk_err(-EEXIST, "stats: %s exists and is not a socket; not removing it",
				path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return scxk_err(-errno, "stats: cannot create a socket");
	ret = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	/* A full backlog (EAGAIN) still means someone is listening. */
	if (!ret || errno == EAGAIN || errno == EINPROGRESS) {
		close(fd);
		return scxk_err(-EADDRINUSE,
				"stats: another scheduler is serving stats on %s; stop it or pick "
				"another --stats-socket",
				path);
	}
	ret = errno;
	close(fd);
	if (ret != ECONNREFUSED)
		return scxk_err(-ret, "stats: cannot probe %s", path);
	scxk_dbg("stats: removing stale socket %s", path);
	if (unlink(path) && errno != ENOENT)
		return scxk_err(-errno, "stats: cannot remove stale socket %s", path);
	return 0;
}

static int server_listen(struct scxk_stats_server *srv, mode_t sock_mode)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct stat st;
	int err;

	if (strlen(srv->path) >= sizeof(sa.sun_path))
		return scxk_err(-ENAMETOOLONG, "stats: socket path %s", srv->path);
	strcpy(sa.sun_path, srv->path);
	if ((err = check_path(srv->path, &sa)))
		return err;
	srv->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (srv->lfd < 0)
		return scxk_err(-errno, "stats: cannot create a socket");
	/*
	 * Linux gives the new socket file the socket inode's mode (minus the
	 * umask), so setting it before bind() leaves no window where the file
	 * is more open than asked; the chmod() afterwards undoes the umask.
	 */
	fchmod(srv->lfd, sock_mode);
	if (bind(srv->lfd, (struct sockaddr *)&sa, sizeof(sa)))
		return scxk_err(-errno, "stats: cannot bind %s", srv->path);
	if (chmod(srv->path, sock_mode) || lstat(srv->path, &st)) {
		err = scxk_err(-errno, "stats: cannot set the mode of %s", srv->path);
		unlink(srv->path);
		return err;
	}
	srv->dev = st.st_dev;
	srv->ino = st.st_ino;
	if (listen(srv->lfd, SCXK_STATS_MAX_CLIENTS)) {
		err = scxk_err(-errno, "stats: cannot listen on %s", srv->path);
		unlink(srv->path);
		return err;
	}
	return 0;
}

static void server_free(struct scxk_stats_server *srv)
{
	if (srv->lfd >= 0)
		close(srv->lfd);
	if (srv->efd >= 0)
		close(srv->efd);
	free(srv->path);
	free(srv);
}

int scxk_stats_server_start_opts(struct scxk_stats_server **out, const char *path,
				 const struct scxk_stats_ops *ops,
				 const struct scxk_stats_server_opts *opts)
{
	mode_t sock_mode = opts && opts->sock_mode ? opts->sock_mode : 0600;
	mode_t dir_mode = opts && opts->dir_mode ? opts->dir_mode : 0700;
	struct scxk_stats_server *srv;
	sigset_t all, old;
	int err, i;

	*out = NULL;
	if (!path || !*path || !ops)
		return scxk_err(-EINVAL, "stats: no socket path or nothing to serve");
	srv = calloc(1, sizeof(*srv));
	if (!srv)
		return -ENOMEM;
	srv->ops = ops;
	srv->lfd = srv->efd = -1;
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++)
		srv->clients[i].fd = -1;
	srv->path = strdup(path);
	if (!srv->path) {
		err = -ENOMEM;
		goto err;
	}
	srv->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (srv->efd < 0) {
		err = scxk_err(-errno, "stats: cannot create an eventfd");
		goto err;
	}
	if ((err = mkdir_parents(path, dir_mode)) || (err = server_listen(srv, sock_mode)))
		goto err;

	/* Signals are for the main thread: it owns shutdown. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&srv->thread, NULL, server_thread, srv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		scxk_err(err, "stats: cannot start the server thread");
		unlink(srv->path);
		goto err;
	}
	scxk_dbg("stats: serving on %s", path);
	*out = srv;
	return 0;
err:
	server_free(srv);
	return err;
}

int scxk_stats_server_start(struct scxk_stats_server **out, const char *path,
			    const struct scxk_stats_ops *ops)
{
	return scxk_stats_server_start_opts(out, path, ops, NULL);
}

void scxk_stats_server_stop(struct scxk_stats_server *srv)
{
	uint64_t one = 1;
	struct stat st;
	int i;

	if (!srv)
		return;
	while (write(srv->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	pthread_join(srv->thread, NULL);
	for (i = 0; i < SCXK_STATS_MAX_CLIENTS; i++)
		if (srv->clients[i].fd >= 0)
			client_drop(srv, &srv->clients[i]);
	if (!lstat(srv->path, &st) && st.st_dev == srv->dev && st.st_ino == srv->ino)
		unlink(srv->path);
	server_free(srv);
}
