// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for scx_strata's layer config parser (scheds/strata/
 * config.c): configs come from files and the command line of a root
 * daemon, so any byte sequence must end in a config or a clean error.
 *
 * Invariants: a rejected config leaves a non-empty, terminated message; an
 * accepted one that passes the cross-spec checks can be expanded back to
 * JSON (strata_config_to_json), which must parse again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strata_config *cfg = calloc(1, sizeof(*cfg));
	char *text = malloc(size + 1), err[512];
	json_t *out;
	char *dump;

	if (!cfg || !text)
		goto out;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(err, 0x55, sizeof(err));
	err[sizeof(err) - 1] = '\0';
	if (strata_config_add_json(cfg, text, "fuzz", err, sizeof(err))) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			abort();
		goto out;
	}
	if (strata_config_finish(cfg, err, sizeof(err)))
		goto out;
	out = strata_config_to_json(cfg);
	dump = out ? json_dumps(out, JSON_COMPACT) : NULL;
	if (!dump)
		abort();
	json_t *again = json_loads(dump, 0, NULL);
	if (!again)
		abort();
	json_decref(again);
	free(dump);
	json_decref(out);
out:
	free(text);
	free(cfg);
	return 0;
}
