// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the stats request handler: every byte a client
 * sends on the stats socket reaches scxk_stats_handle() one line at a time.
 *
 * Whatever the request, the answer must be one line of valid JSON with an
 * integer "errno", and E2BIG exactly when the request is over the limit.
 * The scheduler side is a fixed table, so a crash or a leak here is the
 * handler's own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/stats.h>

static const struct scxk_stat_desc fields[] = {
	{"events", SCXK_STAT_U64, "a counter"},
	{"delta", SCXK_STAT_I64, "a signed value"},
	{"ratio", SCXK_STAT_FLOAT, "a ratio"},
	{"mode", SCXK_STAT_STRING, "a word"},
};

static int collect(json_t *out, void *state, void *arg)
{
	(void)state;
	(void)arg;
	json_object_set_new(out, "mode", json_string("vtime"));
	json_object_set_new(out, "events", json_integer(42));
	json_object_set_new(out, "ratio", json_real(0.5));
	json_object_set_new(out, "delta", json_integer(-3));
	return 0;
}

static const struct scxk_stats_ops ops = {
	.name = "Metrics",
	.desc = "fuzz",
	.fields = fields,
	.nr_fields = sizeof(fields) / sizeof(fields[0]),
	.collect = collect,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = scxk_stats_handle(&ops, NULL, (const char *)data, size);
	json_t *resp, *err;

	if (!line)
		abort(); /* only out-of-memory may return NULL */
	if (strchr(line, '\n'))
		abort(); /* the wire format is one response per line */
	resp = json_loads(line, 0, NULL);
	err = resp ? json_object_get(resp, "errno") : NULL;
	if (!json_is_integer(err) || !json_is_object(json_object_get(resp, "args")))
		abort();
	if ((size > SCXK_STATS_MAX_REQ) != (json_integer_value(err) == E2BIG))
		abort();
	json_decref(resp);
	free(line);
	return 0;
}
