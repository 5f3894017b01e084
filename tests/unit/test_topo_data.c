// SPDX-License-Identifier: GPL-2.0-only
/* The topology as handed to BPF (scxk_topo_to_bpf) on the sysfs fixtures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <scxkit/topo.h>
#include <scxkit/topo_data.h>

static struct scxk_topo_data *load(const char *name)
{
	struct scxk_topo_data *d = calloc(1, sizeof(*d));
	struct scxk_topo *t;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, name);
	assert_int_equal(scxk_topo_read_at(path, &t), 0);
	assert_int_equal(scxk_topo_to_bpf(t, d), 0);
	scxk_topo_free(t);
	return d;
}

static int bit(const uint64_t *mask, int cpu)
{
	return !!(mask[cpu / 64] & (1ULL << (cpu % 64)));
}

static int weight(const uint64_t *mask)
{
	int n = 0;

	for (int i = 0; i < SCXK_MASK_WORDS; i++)
		n += __builtin_popcountll(mask[i]);
	return n;
}

static void test_numa2(void **state)
{
	struct scxk_topo_data *d = load("numa2");

	(void)state;
	assert_int_equal(d->nr_cpu_ids, 16);
	assert_int_equal(d->nr_nodes, 2);
	assert_int_equal(d->nr_llcs, 2);
	assert_true(d->smt);
	/* Each LLC mask holds one socket's 8 CPUs, and LLCs sit inside nodes. */
	assert_int_equal(weight(d->llc_mask[0]), 8);
	assert_int_equal(weight(d->llc_mask[1]), 8);
	for (int cpu = 0; cpu < 16; cpu++) {
		assert_true(bit(d->llc_mask[d->cpus[cpu].llc], cpu));
		assert_true(bit(d->node_mask[d->cpus[cpu].node], cpu));
		/* Every CPU has an SMT sibling in the same core and LLC. */
		assert_true(d->cpus[cpu].sibling >= 0);
		assert_int_equal(d->cpus[d->cpus[cpu].sibling].core, d->cpus[cpu].core);
		assert_int_equal(d->cpus[d->cpus[cpu].sibling].llc, d->cpus[cpu].llc);
	}
	free(d);
}

static void test_hybrid(void **state)
{
	struct scxk_topo_data *d = load("intel-hybrid");
	int big = 0, little = 0;

	(void)state;
	assert_true(d->hybrid);
	for (unsigned int cpu = 0; cpu < d->nr_cpu_ids; cpu++) {
		if (d->cpus[cpu].flags & SCXK_CPU_BIG) {
			big++;
			assert_int_equal(d->cpus[cpu].capacity, 1024);
		} else {
			little++;
			assert_true(d->cpus[cpu].capacity < 1024);
			/* E-cores have no SMT sibling. */
			assert_int_equal(d->cpus[cpu].sibling, -1);
		}
	}
	assert_int_equal(big, 12);
	assert_int_equal(little, 8);
	free(d);
}

static void test_offline(void **state)
{
	struct scxk_topo_data *d = load("laptop-offline");

	(void)state;
	/* An offline CPU (3) is in no mask, so idle picking never returns it. */
	assert_false(bit(d->llc_mask[0], 3));
	assert_false(bit(d->node_mask[0], 3));
	assert_true(bit(d->llc_mask[0], 2));
	free(d);
}

static void test_single(void **state)
{
	struct scxk_topo_data *d = load("arm-biglittle");

	(void)state;
	assert_false(d->smt);
	assert_true(d->hybrid);
	assert_int_equal(d->nr_nodes, 1);
	for (unsigned int cpu = 0; cpu < d->nr_cpu_ids; cpu++)
		assert_int_equal(d->cpus[cpu].sibling, -1);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numa2),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_offline),
		cmocka_unit_test(test_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
