// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the CPU list and hex mask parsers: user input
 * (--primary-domain and friends) and sysfs text both go through them.
 *
 * Beyond "no crash, no sanitizer report", every mask that parses must
 * survive a round trip: formatted as a list and as hex, both texts parse
 * back to the same mask. A parser that accepts a CPU at or above nr_cpus,
 * or a formatter that drops bits, fails here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/cpumask.h>

/* The machine sizes that matter: tiny, odd, one word, the build's maximum. */
static const int nr_cpus_cases[] = {0, 1, 7, 64, 65, SCXK_MAX_CPUS};

static void check_round_trip(const struct scxk_cpumask *m, int nr_cpus)
{
	char list[SCXK_CPULIST_BUF_LEN], hex[SCXK_CPUHEX_BUF_LEN];
	struct scxk_cpumask a, b;

	if (scxk_cpumask_format_list(m, list, sizeof(list)) < 0 ||
	    scxk_cpumask_format_hex(m, hex, sizeof(hex)) < 0)
		abort(); /* the documented buffer sizes always suffice */
	if (scxk_cpulist_parse(list, &a, nr_cpus) || scxk_hexmask_parse(hex, &b, nr_cpus))
		abort();
	if (memcmp(&a, m, sizeof(a)) || memcmp(&b, m, sizeof(b)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scxk_cpumask m;
	char *s;
	size_t i;

	/* The parsers take C strings: stop at an embedded NUL like C callers do. */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (i = 0; i < sizeof(nr_cpus_cases) / sizeof(nr_cpus_cases[0]); i++) {
		int nr = nr_cpus_cases[i];

		if (!scxk_cpulist_parse(s, &m, nr))
			check_round_trip(&m, nr);
		if (!scxk_hexmask_parse(s, &m, nr))
			check_round_trip(&m, nr);
		if (!scxk_cpumask_parse(s, &m, nr))
			check_round_trip(&m, nr);
	}
	free(s);
	return 0;
}
