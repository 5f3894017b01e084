/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * stats.h - the stats socket: a server thread inside each scheduler and the
 * client behind --stats/--monitor. The wire format is the scx_stats one used
 * by upstream sched_ext tools: one JSON request per line over a UNIX stream
 * socket, one JSON response line each ({"errno":N,"args":{"resp":...}}).
 * docs/stats-protocol.md is the reference for the format.
 *
 * Requests are read-only: the server only ever calls the ops' collect(), so
 * whoever can reach the socket can watch the scheduler but never steer it.
 */
#ifndef __SCXKIT_STATS_H
#define __SCXKIT_STATS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#define SCXK_STATS_DEFAULT_PATH "/var/run/scx/root/stats"
#define SCXK_STATS_MAX_REQ	4096 /* longest request line, without its '\n' */
/* clients served at once; a further one replaces the one quiet longest */
#define SCXK_STATS_MAX_CLIENTS 16
#define SCXK_STATS_STALL_MS    5000 /* a client stuck mid-line or not reading is dropped */

enum scxk_stat_type {
	SCXK_STAT_U64,	  /* "u64": counters; jansson caps values at INT64_MAX */
	SCXK_STAT_I64,	  /* "i64" */
	SCXK_STAT_FLOAT,  /* "float": a JSON real, never NaN or infinity */
	SCXK_STAT_STRING, /* "string" */
	/*
	 * Nested, as upstream's scx_stats declares them (docs/stats-protocol.md):
	 * DICT, a JSON object of structs, one per key: unit is "KEY:STRUCT",
	 * KEY "string" or "u64" (keys are JSON strings either way), STRUCT one
	 * of the ops' subs[] ("string:LayerStats"). ARRAY, a JSON array: unit
	 * is its elements' datum ("u64", "i64", "float" or "string").
	 */
	SCXK_STAT_DICT,
	SCXK_STAT_ARRAY,
};

/* Where a field's value comes from (the kinds of scxkit/stats_ids.h). */
enum scxk_stat_kind {
	SCXK_STAT_KIND_VAL, /* set by collect(); the default */
	SCXK_STAT_KIND_CNT, /* BPF counter id, served as its delta since the client's last read */
	SCXK_STAT_KIND_TOT, /* BPF counter id, served as its total since attach */
	SCXK_STAT_KIND_RAW, /* BPF counter id, not served (neither in stats nor in the meta) */
};

struct scxk_stat_desc {
	const char *name; /* JSON key, snake_case */
	enum scxk_stat_type type;
	const char *desc; /* one line for --help-stats and stats_meta */
	const char *unit; /* NULL or "" for none; else described as "desc (unit)" */
	enum scxk_stat_kind kind;
	unsigned int id; /* the counter's or the value's enumerator */
};

/*
 * SCXK_STAT_DESC - expand a scheduler's stats list (scxkit/stats_ids.h)
 * into table entries:
 *	static const struct scxk_stat_desc fields[] = { MINIMAL_STATS(SCXK_STAT_DESC) };
 */
#define SCXK_STAT_DESC(kind, id, name, type, unit, help)                                           \
	{name, SCXK_STAT_##type, help, unit, SCXK_STAT_KIND_##kind, id},

/** scxk_stat_sub - the struct a DICT field @f holds (its unit's STRUCT part), or NULL */
const struct scxk_stats_struct *scxk_stat_sub(const struct scxk_stat_desc *f,
					      const struct scxk_stats_struct *subs, size_t nr_subs);

/** scxk_stat_served - true if @f is served (in stats and stats_meta) */
static inline bool scxk_stat_served(const struct scxk_stat_desc *f)
{
	return f->kind != SCXK_STAT_KIND_RAW;
}

/** scxk_stat_is_counter - true if @f names a BPF counter (its id indexes the counters) */
static inline bool scxk_stat_is_counter(const struct scxk_stat_desc *f)
{
	return f->kind != SCXK_STAT_KIND_VAL;
}

/* A struct that DICT fields hold: in stats_meta beside the top one. */
struct scxk_stats_struct {
	const char *name; /* "LayerStats" */
	const char *desc;
	const struct scxk_stat_desc *fields; /* VAL only; the id is unused */
	size_t nr_fields;
	/* OpenMetrics hints, upstream's user attributes _om_prefix and _om_label */
	const char *om_prefix; /* prefixed to the field names: "layer_" */
	const char *om_label;  /* the label naming the dict key: "layer_name" */
};

/*
 * A target besides "top" ({"req":"stats","args":{"target":NAME,...}}),
 * such as lavd's "sched_samples".
 */
struct scxk_stats_target {
	const char *name;
	/*
	 * Set *@resp from the request's @args (its "args" object: "target"
	 * and any other member, e.g. "nr_samples"); @ctx is the ops'
	 * target_ctx. 0 or -errno; on error, a message in @why (for the
	 * response) if it has more to say than strerror.
	 */
	int (*collect)(json_t **resp, json_t *args, void *ctx, char *why, size_t why_len);
	/* non-NULL: known but not served here; the error response says this (EOPNOTSUPP) */
	const char *unsupported;
};

struct scxk_stats_ops {
	const char *name; /* struct name in stats_meta, e.g. "Metrics" */
	const char *desc;
	const struct scxk_stat_desc *fields; /* RAW ones are skipped */
	size_t nr_fields;
	const struct scxk_stats_struct *subs; /* the structs DICT fields name */
	size_t nr_subs;
	const struct scxk_stats_target *targets; /* besides "top" */
	size_t nr_targets;
	void *target_ctx;
	/*
	 * Per-connection state (both optional), so a scheduler can report
	 * deltas since this client's previous read. open() returning NULL
	 * refuses the connection.
	 */
	void *(*open)(void *arg);
	void (*close)(void *state, void *arg);
	/*
	 * Fill @out (an empty JSON object) with the fields; 0 or -errno, which
	 * becomes the response's errno. Runs on the server thread, so anything
	 * it shares with the scheduler's main thread needs its own locking.
	 */
	int (*collect)(json_t *out, void *state, void *arg);
	void *arg;
};

struct scxk_stats_server_opts {
	mode_t sock_mode; /* socket file mode; 0 means 0600 */
	mode_t dir_mode;  /* mode of directories created for it; 0 means 0700 */
};

struct scxk_stats_server;
struct scxk_stats_client;

/**
 * scxk_stats_server_start - serve @ops on a UNIX socket at @path from a thread
 * @out: set to the new server on success
 * @path: socket path; missing parent directories are created with mode 0700
 * @ops: what to serve; must outlive the server
 *
 * A stale socket left by a dead server is replaced; one that a live server
 * still answers on is not. The socket is listening when this returns.
 *
 * Return: 0, -EADDRINUSE if a live server owns @path, -EEXIST if @path is
 * not a socket, or another negative errno.
 */
int scxk_stats_server_start(struct scxk_stats_server **out, const char *path,
			    const struct scxk_stats_ops *ops);

/**
 * scxk_stats_server_start_opts - scxk_stats_server_start() with file modes
 * @out: set to the new server on success
 * @path: socket path
 * @ops: what to serve; must outlive the server
 * @opts: modes of the socket and of created directories; NULL for defaults
 *
 * Return: as scxk_stats_server_start().
 */
int scxk_stats_server_start_opts(struct scxk_stats_server **out, const char *path,
				 const struct scxk_stats_ops *ops,
				 const struct scxk_stats_server_opts *opts);

/**
 * scxk_stats_server_stop - stop the thread, drop all clients, unlink the socket
 * @srv: server from scxk_stats_server_start(), or NULL (nothing happens)
 *
 * The socket file is only removed if it is still the one this server bound,
 * so a newer instance's socket survives an old instance's shutdown.
 */
void scxk_stats_server_stop(struct scxk_stats_server *srv);

/**
 * scxk_stats_handle - answer one request line, without any I/O
 * @ops: what to serve (NULL serves nothing: every stats request fails)
 * @state: the connection's state from ops->open(), passed to collect()
 * @req: request bytes, need not be NUL-terminated; no trailing '\n'
 * @len: length of @req
 *
 * Return: a malloc'd, NUL-terminated response line without '\n', or NULL if
 * memory ran out. Errors are in the line's errno field: EINVAL for malformed
 * JSON, an unknown "req" or target; E2BIG if @len > SCXK_STATS_MAX_REQ.
 */
char *scxk_stats_handle(const struct scxk_stats_ops *ops, void *state, const char *req, size_t len);

/**
 * scxk_stats_client_open - connect to a stats server
 * @out: set to the new client on success
 * @path: socket path
 * @timeout_ms: limit for the connect and for each later request; <= 0 waits forever
 *
 * Keep one client across reads to get per-connection deltas: each new
 * connection starts its own count.
 *
 * Return: 0, -ENOENT or -ECONNREFUSED if no server is there (yet), or
 * another negative errno. Failures are logged at debug level only.
 */
int scxk_stats_client_open(struct scxk_stats_client **out, const char *path, int timeout_ms);

/**
 * scxk_stats_client_request - send one request line and wait for its response
 * @c: client from scxk_stats_client_open()
 * @req_line: JSON request, without '\n'
 * @resp: set to the response's "resp" value (caller json_decref()s), or NULL
 *
 * Return: 0, the negated errno field of the response, -ETIMEDOUT, -EPIPE
 * or -ECONNRESET if the server went away (the client is then unusable), or
 * -EPROTO for a response that is not scx_stats JSON.
 */
int scxk_stats_client_request(struct scxk_stats_client *c, const char *req_line, json_t **resp);

/** scxk_stats_client_close - disconnect and free @c (NULL is fine) */
void scxk_stats_client_close(struct scxk_stats_client *c);

/**
 * scxk_stats_request - one-shot connect, request, disconnect
 * @path: socket path
 * @req_line: JSON request, without '\n'
 * @resp: set to the response's "resp" value (caller json_decref()s), or NULL
 * @timeout_ms: limit for connect and for the reply; <= 0 waits forever
 *
 * Return: as scxk_stats_client_open() and scxk_stats_client_request().
 */
int scxk_stats_request(const char *path, const char *req_line, json_t **resp, int timeout_ms);

/*
 * Set to stop scxk_stats_monitor() at its next check (within ~100 ms). The
 * monitor clears it on entry and sets it from SIGINT and SIGTERM.
 */
extern volatile sig_atomic_t scxk_stats_monitor_stop;

/**
 * scxk_stats_monitor - print a running server's stats every @interval_s seconds
 * @path: socket path
 * @interval_s: seconds between reads (> 0)
 * @count: stop after this many prints; <= 0 runs until SIGINT/SIGTERM
 * @out: where to print
 * @print: prints one "resp" value; NULL for scxk_stats_print_line()
 *
 * Keeps one connection so each line shows deltas since the previous one.
 * While the socket is absent or refuses (scheduler not started, or
 * restarting), retries every second. For the duration of the call, SIGINT
 * and SIGTERM set scxk_stats_monitor_stop; previous handlers are restored.
 *
 * Return: 0 when @count prints are done or on a stop request, else -errno.
 */
int scxk_stats_monitor(const char *path, double interval_s, int count, FILE *out,
		       void (*print)(json_t *resp, FILE *out));

/* How --monitor and --stats print: --monitor-format=auto|kv|human. */
enum scxk_stats_format {
	SCXK_STATS_FMT_AUTO,  /* human on a terminal, kv otherwise (scripts keep parsing) */
	SCXK_STATS_FMT_KV,    /* one "key=value ..." line per read */
	SCXK_STATS_FMT_HUMAN, /* an aligned table with units and rates (stats_view.c) */
};

/** scxk_stats_format_parse - "auto", "kv" or "human" into *@fmt; 0 or -EINVAL */
int scxk_stats_format_parse(const char *s, enum scxk_stats_format *fmt);

/** scxk_stats_format_for - resolve AUTO for @out (HUMAN if it is a terminal) */
enum scxk_stats_format scxk_stats_format_for(enum scxk_stats_format fmt, FILE *out);

/**
 * scxk_stats_monitor_as - scxk_stats_monitor() in format @fmt
 * @print: the KV printer (NULL for scxk_stats_print_line()); unused for HUMAN
 *
 * HUMAN asks for stats_meta at each (re)connection, for labels, units and
 * which fields are counters.
 */
int scxk_stats_monitor_as(const char *path, double interval_s, int count, FILE *out,
			  void (*print)(json_t *resp, FILE *out), enum scxk_stats_format fmt);

/*
 * The human format: a view keeps a server's stats_meta and the previous
 * sample, and prints each new sample as a table (STAT, VALUE, UNIT, RATE,
 * DESCRIPTION), then one table per dict of structs (strata's layers,
 * balance's domains) with a row per key. Units and counter kinds come from
 * the fields' user attributes _scxk_unit and _scxk_kind ("delta": served
 * as the change since the previous read; "total": since attach).
 */
struct scxk_stats_view;

/**
 * scxk_stats_view_new - a view of the stats that @meta describes
 * @out: set to the new view
 * @meta: a stats_meta "resp" value (the view keeps a reference), or NULL:
 *        values are then shown without units, descriptions or rates
 *
 * Return: 0 or -ENOMEM.
 */
int scxk_stats_view_new(struct scxk_stats_view **out, json_t *meta);

/** scxk_stats_view_free - free @v (NULL is fine) */
void scxk_stats_view_free(struct scxk_stats_view *v);

/**
 * scxk_stats_view_print - print one sample as tables, and keep it for rates
 * @v: the view
 * @resp: a "top" stats response
 * @t_s: when it was taken, in seconds of a monotonic clock
 * @width: cut descriptions and table rows at this many columns; <= 0: no limit
 * @out: where to print
 *
 * Rates need an interval: the first sample a view sees has none (the RATE
 * column stays empty). A "delta" counter's rate is its value over the
 * interval since the previous sample, a "total" counter's the difference.
 */
void scxk_stats_view_print(struct scxk_stats_view *v, json_t *resp, double t_s, int width,
			   FILE *out);

/**
 * scxk_stats_view_feed - take @resp (taken at @t_s) as the latest sample
 *                        without printing: the start of the first interval
 *
 * scxk_stats_view_print() feeds its sample itself; feeding the same @t_s
 * again changes nothing, so a redraw keeps its rates.
 */
void scxk_stats_view_feed(struct scxk_stats_view *v, json_t *resp, double t_s);

/** scxk_stats_view_interval - seconds between the last two samples printed; 0 if unknown */
double scxk_stats_view_interval(const struct scxk_stats_view *v);

/**
 * scxk_stats_view_open - a view of the server behind @c, from its stats_meta
 * @v: set to the new view (one without a meta if the server refuses it)
 * @c: a connected client
 *
 * Return: 0, -ENOMEM, or the error that broke the connection.
 */
int scxk_stats_view_open(struct scxk_stats_view **v, struct scxk_stats_client *c);

/**
 * scxk_stats_view_block - scxk_stats_view_print() now, without a width
 * limit, followed by a line with the wall-clock time and the interval
 * (the human --monitor and --stats)
 */
void scxk_stats_view_block(struct scxk_stats_view *v, json_t *resp, FILE *out);

/**
 * scxk_stats_rate_text - @rate per second as short text ("12.5/s", "3.4k/s")
 * Return: as snprintf().
 */
int scxk_stats_rate_text(double rate, char *buf, size_t len);

/**
 * scxk_stats_print_line - print a stats object as one "key=value ..." line
 * @resp: "resp" value of a stats response
 * @out: where to print
 *
 * Keys come in the server's order (scxkit servers send the meta's field
 * order); reals print as %.2f, nested values as compact JSON.
 */
void scxk_stats_print_line(json_t *resp, FILE *out);

/**
 * scxk_stats_print_meta - describe every field for --help-stats
 * @ops: the stats a scheduler serves
 * @out: where to print; one line per field: name, type, description
 */
void scxk_stats_print_meta(const struct scxk_stats_ops *ops, FILE *out);

/**
 * scxk_stats_meta_json - the stats_meta "resp" value for @ops
 * @ops: the stats a scheduler serves, or NULL (empty object)
 *
 * Return: a new JSON object (caller json_decref()s), or NULL without memory.
 */
json_t *scxk_stats_meta_json(const struct scxk_stats_ops *ops);

/**
 * scxk_stats_openmetrics - a server's stats as OpenMetrics text
 * @meta: its stats_meta response
 * @stats: its response to {"target":"top"}
 * @prefix: prepended to every metric name ("scx_"), or NULL
 * @out: where the text goes, "# EOF" included
 *
 * Driven by @meta alone, so upstream scx_stats servers work too. Numbers
 * become gauges, strings info metrics (NAME_info{NAME="value"} 1), arrays
 * gauges labelled index="i", and a dict of structs one family per struct
 * field, named by the struct's _om_prefix and labelled by its _om_label.
 *
 * Return: 0, or -EINVAL if @meta has no top struct or two fields map to
 * one metric name (the text is still complete and valid).
 */
int scxk_stats_openmetrics(json_t *meta, json_t *stats, const char *prefix, FILE *out);

/** scxk_stats_type_name - "u64", "i64", "float" or "string"; "?" if unknown */
const char *scxk_stats_type_name(enum scxk_stat_type type);

/**
 * scxk_stats_field_desc - @f's description as clients see it: "desc (unit)"
 * @f: the field
 * @buf: room for the result, if @f has a unit
 * @len: size of @buf
 *
 * Return: @f->desc itself when there is no unit, else @buf (cut to fit).
 */
const char *scxk_stats_field_desc(const struct scxk_stat_desc *f, char *buf, size_t len);

/**
 * scxk_stats_check_fields - check a stats table built from a stats list
 * @fields: the table
 * @n: its length
 * @nr_counters: the list's counter enum count (e.g. MINIMAL_NR_STATS)
 * @nr_values: its value enum count (e.g. MINIMAL_NR_VALUES)
 * @why: set to a static message naming the fault, on failure
 * @bad: set to the index of the offending field, or -1
 *
 * Served names must be unique, non-empty snake_case; every field needs
 * help text; counter ids must be 0..@nr_counters-1 once each (at most
 * SCXK_MAX_COUNTERS), value ids 0..@nr_values-1 once each.
 *
 * Return: 0, or -EINVAL with *@why and *@bad set.
 */
int scxk_stats_check_fields(const struct scxk_stat_desc *fields, size_t n, unsigned int nr_counters,
			    unsigned int nr_values, const char **why, int *bad);

/**
 * struct scxk_stats_read - one stats request as a scheduler's collect() sees it
 * @out: the response object; counters (CNT, TOT) are already in it
 * @delta: per counter id, its change since this client's previous read
 * @total: per counter id, its total since attach
 * @state: this client's own state (state_size bytes, zeroed at connect), or NULL
 * @fields: the table whose value ids the scxk_stats_set*() helpers take
 * @nr_fields: its length
 */
struct scxk_stats_read {
	json_t *out;
	const uint64_t *delta;
	const uint64_t *total;
	void *state;
	const struct scxk_stat_desc *fields;
	size_t nr_fields;
};

/**
 * scxk_stats_set - set value @id (a VAL of @r's table) to @v in the response
 * @r: the request
 * @id: the value's enumerator
 * @v: the value, a new reference that this call takes; NULL leaves the field
 *     out (json_real() of a NaN or infinity)
 *
 * Return: 0, -ENOENT if @id is no value of the table, -EINVAL if @v does not
 * match the declared type (integers for U64/I64, reals for FLOAT; a STRING
 * field may also carry a nested object or array).
 */
int scxk_stats_set(struct scxk_stats_read *r, unsigned int id, json_t *v);

/** scxk_stats_set_u64 - scxk_stats_set() of an integer */
static inline int scxk_stats_set_u64(struct scxk_stats_read *r, unsigned int id, uint64_t v)
{
	return scxk_stats_set(r, id, json_integer((json_int_t)v));
}

/** scxk_stats_set_real - scxk_stats_set() of a real */
static inline int scxk_stats_set_real(struct scxk_stats_read *r, unsigned int id, double v)
{
	return scxk_stats_set(r, id, json_real(v));
}

/** scxk_stats_set_str - scxk_stats_set() of a string */
static inline int scxk_stats_set_str(struct scxk_stats_read *r, unsigned int id, const char *v)
{
	return scxk_stats_set(r, id, json_string(v));
}

#endif /* __SCXKIT_STATS_H */
