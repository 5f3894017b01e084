// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the cpumask helpers, parsers and formatters. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <scxkit/cpumask.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ROUND_TRIPS   200
#define LCG_MUL	      6364136223846793005ULL
#define LCG_ADD	      1442695040888963407ULL

static struct scxk_cpumask mask_of(const int *cpus, size_t n)
{
	struct scxk_cpumask m;

	scxk_cpumask_zero(&m);
	for (size_t i = 0; i < n; i++)
		scxk_cpumask_set(&m, cpus[i]);
	return m;
}

static void test_helpers(void **state)
{
	struct scxk_cpumask a, b, c;
	int cpu, n = 0;

	(void)state;
	scxk_cpumask_zero(&a);
	assert_true(scxk_cpumask_empty(&a));
	assert_int_equal(scxk_cpumask_first(&a), -1);
	assert_int_equal(scxk_cpumask_last(&a), -1);

	scxk_cpumask_set(&a, 0);
	scxk_cpumask_set(&a, 63);
	scxk_cpumask_set(&a, 64);
	scxk_cpumask_set(&a, SCXK_MAX_CPUS - 1);
	scxk_cpumask_set(&a, SCXK_MAX_CPUS); /* ignored */
	scxk_cpumask_set(&a, -1);	     /* ignored */
	assert_int_equal(scxk_cpumask_weight(&a), 4);
	assert_true(scxk_cpumask_test(&a, 63));
	assert_false(scxk_cpumask_test(&a, 62));
	assert_false(scxk_cpumask_test(&a, -1));
	assert_false(scxk_cpumask_test(&a, SCXK_MAX_CPUS));
	assert_int_equal(scxk_cpumask_first(&a), 0);
	assert_int_equal(scxk_cpumask_next(&a, 0), 63);
	assert_int_equal(scxk_cpumask_next(&a, 63), 64);
	assert_int_equal(scxk_cpumask_next(&a, 64), SCXK_MAX_CPUS - 1);
	assert_int_equal(scxk_cpumask_next(&a, SCXK_MAX_CPUS - 1), -1);
	assert_int_equal(scxk_cpumask_last(&a), SCXK_MAX_CPUS - 1);
	scxk_cpumask_for_each (cpu, &a)
		n++;
	assert_int_equal(n, 4);
	scxk_cpumask_clear(&a, 63);
	assert_false(scxk_cpumask_test(&a, 63));
	assert_int_equal(scxk_cpumask_weight(&a), 3);

	scxk_cpumask_fill(&b, 65);
	assert_int_equal(scxk_cpumask_weight(&b), 65);
	assert_int_equal(scxk_cpumask_last(&b), 64);
	scxk_cpumask_fill(&b, 64);
	assert_int_equal(scxk_cpumask_weight(&b), 64);
	scxk_cpumask_fill(&b, SCXK_MAX_CPUS + 5);
	assert_int_equal(scxk_cpumask_weight(&b), SCXK_MAX_CPUS);
	scxk_cpumask_fill(&b, 0);
	assert_true(scxk_cpumask_empty(&b));

	scxk_cpumask_fill(&b, 8); /* 0-7 */
	scxk_cpumask_and(&c, &a, &b);
	assert_int_equal(scxk_cpumask_weight(&c), 1);
	assert_true(scxk_cpumask_test(&c, 0));
	assert_true(scxk_cpumask_subset(&c, &a));
	assert_true(scxk_cpumask_subset(&c, &b));
	assert_false(scxk_cpumask_subset(&a, &b));
	scxk_cpumask_or(&c, &a, &b);
	assert_int_equal(scxk_cpumask_weight(&c), 10);
	scxk_cpumask_andnot(&c, &c, &b); /* aliasing */
	assert_int_equal(scxk_cpumask_weight(&c), 2);
	assert_false(scxk_cpumask_test(&c, 0));
	assert_false(scxk_cpumask_equal(&c, &a));
	scxk_cpumask_set(&c, 0);
	assert_true(scxk_cpumask_equal(&c, &a));
}

static void test_cpulist_good(void **state)
{
	static const int a[] = {0, 1, 2, 3, 8, 9, 10, 11};
	struct scxk_cpumask m, want;

	(void)state;
	want = mask_of(a, ARRAY_SIZE(a));
	assert_int_equal(scxk_cpulist_parse("0-3,8-11", &m, 0), 0);
	assert_true(scxk_cpumask_equal(&m, &want));
	assert_int_equal(scxk_cpulist_parse("0-3,8-11\n", &m, 12), 0);
	assert_true(scxk_cpumask_equal(&m, &want));
	assert_int_equal(scxk_cpulist_parse("8-11,0,1,2-3 \t\n", &m, -1), 0);
	assert_true(scxk_cpumask_equal(&m, &want));

	assert_int_equal(scxk_cpulist_parse("5", &m, 6), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 1);
	assert_true(scxk_cpumask_test(&m, 5));
	assert_int_equal(scxk_cpulist_parse("3-3", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 1);
	assert_int_equal(scxk_cpulist_parse("0-1023", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), SCXK_MAX_CPUS);
	assert_int_equal(scxk_cpulist_parse("007", &m, 8), 0);
	assert_true(scxk_cpumask_test(&m, 7));

	/* an empty sysfs cpulist file reads as "\n" */
	scxk_cpumask_fill(&m, 4);
	assert_int_equal(scxk_cpulist_parse("\n", &m, 0), 0);
	assert_true(scxk_cpumask_empty(&m));
	scxk_cpumask_fill(&m, 4);
	assert_int_equal(scxk_cpulist_parse("", &m, 0), 0);
	assert_true(scxk_cpumask_empty(&m));
}

struct bad_case {
	const char *s;
	int nr_cpus;
	int err;
};

static const struct bad_case bad_lists[] = {
	{"3-1", 0, -EINVAL},
	{"1,,2", 0, -EINVAL},
	{"-1", 0, -EINVAL},
	{"a", 0, -EINVAL},
	{"1-", 0, -EINVAL},
	{"99999999999999999999", 0, -ERANGE},
	{"1-99999999999999999999", 0, -ERANGE},
	{"0-3x", 0, -EINVAL},
	{"0-3,", 0, -EINVAL},
	{",0", 0, -EINVAL},
	{" 1", 0, -EINVAL},
	{"1 2", 0, -EINVAL},
	{"1\n2", 0, -EINVAL},
	{"1--2", 0, -EINVAL},
	{"0-15:2", 0, -EINVAL},
	{"+1", 0, -EINVAL},
	{"0x3", 0, -EINVAL},
	{"1-2-3", 0, -EINVAL},
	{"8", 8, -ERANGE},
	{"0-8", 8, -ERANGE},
	{"1024", 0, -ERANGE},
	{"1024", 2048, -ERANGE}, /* nr_cpus is capped at SCXK_MAX_CPUS */
	{"9,a", 8, -EINVAL},	 /* syntax wins over range */
};

static void test_cpulist_bad(void **state)
{
	struct scxk_cpumask m, orig;

	(void)state;
	scxk_cpumask_fill(&orig, 3);
	for (size_t i = 0; i < ARRAY_SIZE(bad_lists); i++) {
		const struct bad_case *c = &bad_lists[i];

		m = orig;
		print_message("bad_lists[%zu]\n", i);
		assert_int_equal(scxk_cpulist_parse(c->s, &m, c->nr_cpus), c->err);
		assert_true(scxk_cpumask_equal(&m, &orig)); /* untouched on error */
	}
	assert_int_equal(scxk_cpulist_parse(NULL, &m, 0), -EINVAL);
	assert_int_equal(scxk_cpulist_parse("1", NULL, 0), -EINVAL);
}

static void test_hex_good(void **state)
{
	struct scxk_cpumask m, want;
	char longzero[600];

	(void)state;
	scxk_cpumask_fill(&want, 8);
	assert_int_equal(scxk_hexmask_parse("0xff", &m, 8), 0);
	assert_true(scxk_cpumask_equal(&m, &want));
	assert_int_equal(scxk_hexmask_parse("ff\n", &m, 0), 0);
	assert_true(scxk_cpumask_equal(&m, &want));
	assert_int_equal(scxk_hexmask_parse("0XFF", &m, 0), 0);
	assert_true(scxk_cpumask_equal(&m, &want));

	/* sysfs groups, lowest group last */
	assert_int_equal(scxk_hexmask_parse("00000000,0000ff00\n", &m, 64), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 8);
	assert_int_equal(scxk_cpumask_first(&m), 8);
	assert_int_equal(scxk_cpumask_last(&m), 15);
	assert_int_equal(scxk_hexmask_parse("80000000,00000000", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 1);
	assert_true(scxk_cpumask_test(&m, 63));
	/* a short group is still 32 bits wide */
	assert_int_equal(scxk_hexmask_parse("1,0", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 1);
	assert_true(scxk_cpumask_test(&m, 32));
	/* one long number, more than 64 bits */
	assert_int_equal(scxk_hexmask_parse("0x1ffffffffffffffff", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 65);
	assert_int_equal(scxk_hexmask_parse("0x0", &m, 0), 0);
	assert_true(scxk_cpumask_empty(&m));

	/* NR_CPUS=8192 kernels print far more zero digits than we hold */
	memset(longzero, '0', sizeof(longzero) - 3);
	strcpy(longzero + sizeof(longzero) - 3, "3\n");
	assert_int_equal(scxk_hexmask_parse(longzero, &m, 2), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 2);
}

static const struct bad_case bad_hex[] = {
	{"", 0, -EINVAL},
	{"\n", 0, -EINVAL},
	{"0x", 0, -EINVAL},
	{"0xg", 0, -EINVAL},
	{"0x-1", 0, -EINVAL},
	{"0x 1", 0, -EINVAL},
	{"ff,,00", 0, -EINVAL},
	{",ff", 0, -EINVAL},
	{"ff,", 0, -EINVAL},
	{"123456789,00000000", 0, -EINVAL}, /* group wider than 32 bits */
	{"0xff x", 0, -EINVAL},
	{"0x100", 8, -ERANGE},
	{"1,00000000", 32, -ERANGE},
	{"1", 1, 0},
	{"2", 1, -ERANGE},
};

static void test_hex_bad(void **state)
{
	struct scxk_cpumask m, orig;
	char huge[SCXK_MAX_CPUS / 4 + 2];

	(void)state;
	scxk_cpumask_fill(&orig, 3);
	for (size_t i = 0; i < ARRAY_SIZE(bad_hex); i++) {
		const struct bad_case *c = &bad_hex[i];

		m = orig;
		print_message("bad_hex[%zu]\n", i);
		assert_int_equal(scxk_hexmask_parse(c->s, &m, c->nr_cpus), c->err);
		if (c->err)
			assert_true(scxk_cpumask_equal(&m, &orig));
	}
	/* bit SCXK_MAX_CPUS set: "1" followed by 256 zeros */
	memset(huge, '0', sizeof(huge) - 1);
	huge[0] = '1';
	huge[sizeof(huge) - 1] = '\0';
	assert_int_equal(scxk_hexmask_parse(huge, &m, 0), -ERANGE);
	assert_int_equal(scxk_hexmask_parse(NULL, &m, 0), -EINVAL);
}

static void test_parse_dispatch(void **state)
{
	struct scxk_cpumask m;

	(void)state;
	assert_int_equal(scxk_cpumask_parse("0x0f", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 4);
	assert_int_equal(scxk_cpumask_last(&m), 3);
	assert_int_equal(scxk_cpumask_parse("0X10", &m, 0), 0);
	assert_true(scxk_cpumask_test(&m, 4));
	assert_int_equal(scxk_cpumask_weight(&m), 1);
	/* without the prefix, "10" is CPU ten */
	assert_int_equal(scxk_cpumask_parse("10", &m, 0), 0);
	assert_true(scxk_cpumask_test(&m, 10));
	assert_int_equal(scxk_cpumask_parse("0-3,8", &m, 0), 0);
	assert_int_equal(scxk_cpumask_weight(&m), 5);
	assert_int_equal(scxk_cpumask_parse("all", &m, 0), -EINVAL);
	assert_int_equal(scxk_cpumask_parse("ff", &m, 0), -EINVAL);
	assert_int_equal(scxk_cpumask_parse("0x100", &m, 8), -ERANGE);
	assert_int_equal(scxk_cpumask_parse(NULL, &m, 0), -EINVAL);
}

static void test_format(void **state)
{
	static const int a[] = {0, 1, 2, 3, 8};
	struct scxk_cpumask m = mask_of(a, ARRAY_SIZE(a));
	char buf[SCXK_CPULIST_BUF_LEN];

	(void)state;
	assert_int_equal(scxk_cpumask_format_list(&m, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(scxk_cpumask_format_hex(&m, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "0x10f");
	/* exactly enough room, then one byte short */
	assert_int_equal(scxk_cpumask_format_list(&m, buf, 6), 5);
	assert_int_equal(scxk_cpumask_format_list(&m, buf, 5), -ENOSPC);
	assert_int_equal(scxk_cpumask_format_hex(&m, buf, 6), 5);
	assert_int_equal(scxk_cpumask_format_hex(&m, buf, 5), -ENOSPC);
	assert_int_equal(scxk_cpumask_format_list(&m, buf, 0), -ENOSPC);

	scxk_cpumask_zero(&m);
	assert_int_equal(scxk_cpumask_format_list(&m, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(scxk_cpumask_format_hex(&m, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "0x0");

	scxk_cpumask_set(&m, 5);
	scxk_cpumask_set(&m, 7);
	scxk_cpumask_set(&m, 8);
	assert_int_equal(scxk_cpumask_format_list(&m, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "5,7-8");

	/* the documented buffer sizes hold the worst cases */
	for (int cpu = 0; cpu < SCXK_MAX_CPUS; cpu += 2)
		scxk_cpumask_set(&m, cpu);
	assert_true(scxk_cpumask_format_list(&m, buf, SCXK_CPULIST_BUF_LEN) > 0);
	scxk_cpumask_fill(&m, SCXK_MAX_CPUS);
	assert_int_equal(scxk_cpumask_format_hex(&m, buf, SCXK_CPUHEX_BUF_LEN),
			 SCXK_CPUHEX_BUF_LEN - 1);
}

static void test_round_trip(void **state)
{
	uint64_t seed = 1;
	char list[SCXK_CPULIST_BUF_LEN], hex[SCXK_CPUHEX_BUF_LEN];

	(void)state;
	for (int i = 0; i < ROUND_TRIPS; i++) {
		struct scxk_cpumask m, back;
		/* vary density so that both singletons and long runs occur */
		int density = i % 8 + 1;

		scxk_cpumask_zero(&m);
		for (int w = 0; w < SCXK_CPUMASK_WORDS; w++) {
			seed = seed * LCG_MUL + LCG_ADD;
			m.bits[w] = seed;
			for (int d = 1; d < density; d++) {
				seed = seed * LCG_MUL + LCG_ADD;
				m.bits[w] &= seed | (seed >> 7);
			}
		}
		assert_true(scxk_cpumask_format_list(&m, list, sizeof(list)) >= 0);
		assert_int_equal(scxk_cpulist_parse(list, &back, 0), 0);
		assert_true(scxk_cpumask_equal(&m, &back));
		assert_true(scxk_cpumask_format_hex(&m, hex, sizeof(hex)) > 0);
		assert_int_equal(scxk_cpumask_parse(hex, &back, 0), 0);
		assert_true(scxk_cpumask_equal(&m, &back));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helpers),	    cmocka_unit_test(test_cpulist_good),
		cmocka_unit_test(test_cpulist_bad), cmocka_unit_test(test_hex_good),
		cmocka_unit_test(test_hex_bad),	    cmocka_unit_test(test_parse_dispatch),
		cmocka_unit_test(test_format),	    cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
