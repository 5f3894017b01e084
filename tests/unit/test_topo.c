// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the sysfs topology reader, run against the snapshot trees
 * generated from fixtures/topo/NAME.topo at build time (gen-topo.c) and against
 * small trees built in a temporary directory for the error paths.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <scxkit/log.h>
#include <scxkit/topo.h>

#ifndef FIXTURE_DIR
#error "build with -DFIXTURE_DIR=\"<builddir>/tests/unit/fixtures/topo\""
#endif

#define DIR_MODE 0755

static struct scxk_topo *load(const char *name)
{
	char root[PATH_MAX];
	struct scxk_topo *t = NULL;

	snprintf(root, sizeof(root), "%s/%s", FIXTURE_DIR, name);
	assert_int_equal(scxk_topo_read_at(root, &t), 0);
	assert_non_null(t);
	return t;
}

static void assert_list(const struct scxk_cpumask *m, const char *want)
{
	char buf[SCXK_CPULIST_BUF_LEN];

	assert_true(scxk_cpumask_format_list(m, buf, sizeof(buf)) >= 0);
	assert_string_equal(buf, want);
}

/* Properties every topology must have, whatever the machine. */
static void check_invariants(const struct scxk_topo *t)
{
	int cpu;

	assert_true(scxk_cpumask_subset(&t->online, &t->possible));
	assert_int_equal(scxk_cpumask_last(&t->possible) + 1, t->nr_cpu_ids);
	scxk_cpumask_for_each (cpu, &t->online) {
		int core = t->core_id[cpu], llc = t->llc_id[cpu], node = t->node_id[cpu];

		assert_in_range(core, 0, t->nr_cores - 1);
		assert_in_range(llc, 0, t->nr_llcs - 1);
		assert_in_range(node, 0, t->nr_nodes - 1);
		assert_true(scxk_cpumask_test(&t->core_cpus[core], cpu));
		assert_true(scxk_cpumask_test(&t->llc_cpus[llc], cpu));
		assert_true(scxk_cpumask_test(&t->node_cpus[node], cpu));
		/* an SMT core never straddles two LLCs */
		assert_true(scxk_cpumask_subset(&t->core_cpus[core], &t->llc_cpus[llc]));
		assert_in_range(t->capacity[cpu], 1, SCXK_CAPACITY_MAX);
	}
	for (int i = 0; i < t->nr_llcs; i++)
		assert_in_range(t->llc_node[i], 0, t->nr_nodes - 1);
}

static void test_laptop(void **state)
{
	struct scxk_topo *t = load("laptop");

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 8);
	assert_int_equal(t->nr_cores, 4);
	assert_int_equal(t->nr_llcs, 1);
	assert_int_equal(t->nr_nodes, 1);
	assert_true(t->smt);
	assert_false(t->hybrid);
	assert_list(&t->online, "0-7");
	/* Intel numbers the second threads after all first threads */
	assert_int_equal(t->core_id[0], 0);
	assert_int_equal(t->core_id[4], 0);
	assert_int_equal(t->core_id[3], 3);
	assert_int_equal(t->core_id[7], 3);
	assert_list(&t->core_cpus[0], "0,4");
	assert_list(&t->core_cpus[1], "1,5");
	assert_list(&t->llc_cpus[0], "0-7");
	for (int cpu = 0; cpu < 8; cpu++) {
		assert_int_equal(t->llc_id[cpu], 0);
		assert_int_equal(t->node_id[cpu], 0);
		assert_int_equal(t->capacity[cpu], SCXK_CAPACITY_MAX);
		assert_int_equal(t->max_freq_khz[cpu], 4000000);
		assert_false(t->big[cpu]);
	}
	scxk_topo_free(t);
}

static void test_numa2(void **state)
{
	struct scxk_topo *t = load("numa2");

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 16);
	assert_int_equal(t->nr_cores, 8);
	assert_int_equal(t->nr_llcs, 2);
	assert_int_equal(t->nr_nodes, 2);
	assert_true(t->smt);
	assert_false(t->hybrid);
	/* core ids are unique across the sockets */
	assert_int_equal(t->core_id[0], 0);
	assert_int_equal(t->core_id[8], 0);
	assert_int_equal(t->core_id[4], 4);
	assert_int_equal(t->core_id[12], 4);
	assert_int_equal(t->core_id[15], 7);
	assert_list(&t->core_cpus[4], "4,12");
	assert_int_equal(t->llc_id[3], 0);
	assert_int_equal(t->llc_id[11], 0);
	assert_int_equal(t->llc_id[4], 1);
	assert_int_equal(t->llc_id[12], 1);
	assert_list(&t->llc_cpus[0], "0-3,8-11");
	assert_list(&t->llc_cpus[1], "4-7,12-15");
	assert_int_equal(t->node_id[9], 0);
	assert_int_equal(t->node_id[13], 1);
	assert_int_equal(t->llc_node[0], 0);
	assert_int_equal(t->llc_node[1], 1);
	assert_list(&t->node_cpus[1], "4-7,12-15");
	assert_int_equal(t->node_sysfs_id[1], 1);
	/* no cpufreq: every CPU is full capacity */
	assert_int_equal(t->max_freq_khz[5], 0);
	assert_int_equal(t->capacity[5], SCXK_CAPACITY_MAX);
	scxk_topo_free(t);
}

static void test_amd_ccx(void **state)
{
	struct scxk_topo *t = load("amd-ccx");

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 32);
	assert_int_equal(t->nr_cores, 16);
	assert_int_equal(t->nr_llcs, 4);
	assert_int_equal(t->nr_nodes, 1);
	assert_true(t->smt);
	assert_false(t->hybrid);
	assert_int_equal(t->core_id[17], 1);
	assert_list(&t->core_cpus[5], "5,21");
	assert_int_equal(t->llc_id[0], 0);
	assert_int_equal(t->llc_id[17], 0);
	assert_int_equal(t->llc_id[20], 1);
	assert_int_equal(t->llc_id[11], 2);
	assert_int_equal(t->llc_id[31], 3);
	assert_list(&t->llc_cpus[2], "8-11,24-27");
	for (int i = 0; i < t->nr_llcs; i++) {
		assert_int_equal(scxk_cpumask_weight(&t->llc_cpus[i]), 8);
		assert_int_equal(t->llc_node[i], 0);
	}
	scxk_topo_free(t);
}

static void test_intel_hybrid(void **state)
{
	struct scxk_topo *t = load("intel-hybrid");
	/* E-cores scaled by max frequency: 3800000 * 1024 / 5000000 */
	const unsigned int e_cap = 778;

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 20);
	assert_int_equal(t->nr_cores, 14);
	assert_int_equal(t->nr_llcs, 1); /* the E-core L2 clusters are not the LLC */
	assert_true(t->smt);
	assert_true(t->hybrid);
	assert_int_equal(t->core_id[0], 0);
	assert_int_equal(t->core_id[1], 0);
	assert_int_equal(t->core_id[11], 5);
	assert_int_equal(t->core_id[12], 6);
	assert_int_equal(t->core_id[19], 13);
	assert_list(&t->core_cpus[2], "4-5");
	assert_list(&t->core_cpus[6], "12");
	for (int cpu = 0; cpu < 12; cpu++) {
		assert_int_equal(t->capacity[cpu], SCXK_CAPACITY_MAX);
		assert_int_equal(t->max_freq_khz[cpu], 5000000);
		assert_true(t->big[cpu]);
	}
	for (int cpu = 12; cpu < 20; cpu++) {
		assert_int_equal(t->capacity[cpu], e_cap);
		assert_int_equal(t->max_freq_khz[cpu], 3800000);
		assert_false(t->big[cpu]);
	}
	scxk_topo_free(t);
}

static void test_arm_biglittle(void **state)
{
	struct scxk_topo *t = load("arm-biglittle");
	const unsigned int little_cap = 446;

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 8);
	assert_int_equal(t->nr_cores, 8);
	assert_int_equal(t->nr_llcs, 1); /* L3 shared by both clusters */
	assert_int_equal(t->nr_nodes, 1);
	assert_false(t->smt);
	assert_true(t->hybrid);
	assert_list(&t->core_cpus[t->core_id[6]], "6");
	assert_list(&t->llc_cpus[0], "0-7");
	for (int cpu = 0; cpu < 4; cpu++) {
		/* cpu_capacity wins over the frequency ratio (1800/2400) */
		assert_int_equal(t->capacity[cpu], little_cap);
		assert_int_equal(t->max_freq_khz[cpu], 1800000);
		assert_false(t->big[cpu]);
	}
	for (int cpu = 4; cpu < 8; cpu++) {
		assert_int_equal(t->capacity[cpu], SCXK_CAPACITY_MAX);
		assert_int_equal(t->max_freq_khz[cpu], 2400000);
		assert_true(t->big[cpu]);
	}
	scxk_topo_free(t);
}

static void test_offline(void **state)
{
	struct scxk_topo *t = load("laptop-offline");

	(void)state;
	check_invariants(t);
	assert_int_equal(t->nr_cpu_ids, 8);
	assert_list(&t->possible, "0-7");
	assert_list(&t->online, "0-2,4-7");
	assert_int_equal(t->nr_cores, 4);
	assert_int_equal(t->nr_llcs, 1);
	assert_true(t->smt);
	assert_false(t->hybrid);
	/* cpu3's topology is gone: core and LLC unknown, the single node is certain */
	assert_int_equal(t->core_id[3], -1);
	assert_int_equal(t->llc_id[3], -1);
	assert_int_equal(t->node_id[3], 0);
	assert_int_equal(t->capacity[3], 0);
	assert_int_equal(t->max_freq_khz[3], 0);
	assert_false(t->big[3]);
	/* its sibling is now a core of its own */
	assert_int_equal(t->core_id[7], 3);
	assert_list(&t->core_cpus[3], "7");
	/* the masks are what sysfs lists: online CPUs only */
	assert_list(&t->llc_cpus[0], "0-2,4-7");
	assert_list(&t->node_cpus[0], "0-2,4-7");
	assert_int_equal(t->capacity[7], SCXK_CAPACITY_MAX);
	scxk_topo_free(t);
}

static void test_missing(void **state)
{
	struct scxk_topo *t = (struct scxk_topo *)1;

	(void)state;
	assert_int_equal(scxk_topo_read_at("/nonexistent/scxkit-topo-test", &t), -ENOENT);
	assert_null(t);
	/* the fixture directory exists but holds no sys/ tree */
	t = (struct scxk_topo *)1;
	assert_int_equal(scxk_topo_read_at(FIXTURE_DIR, &t), -ENOENT);
	assert_null(t);
	assert_int_equal(scxk_topo_read_at("/", NULL), -EINVAL);
}

static void test_env_prefix(void **state)
{
	struct scxk_topo *t = NULL;

	(void)state;
	/* a trailing slash in the prefix is harmless */
	assert_int_equal(setenv(SCXK_SYSFS_PREFIX_ENV, FIXTURE_DIR "/numa2/", 1), 0);
	assert_int_equal(scxk_topo_read(&t), 0);
	assert_int_equal(t->nr_nodes, 2);
	scxk_topo_free(t);
	assert_int_equal(setenv(SCXK_SYSFS_PREFIX_ENV, "/nonexistent/scxkit-topo-test", 1), 0);
	assert_int_equal(scxk_topo_read(&t), -ENOENT);
	unsetenv(SCXK_SYSFS_PREFIX_ENV);
	scxk_topo_free(NULL);
}

static void test_print(void **state)
{
	struct scxk_topo *t = load("intel-hybrid");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	scxk_topo_print(t, f);
	fclose(f);
	assert_non_null(strstr(text, "cores: 14"));
	assert_non_null(strstr(text, "llc 0: 0-19"));
	assert_non_null(strstr(text, "capacity 1024: 0-11"));
	assert_non_null(strstr(text, "capacity 778: 12-19"));
	free(text);
	scxk_topo_free(t);
}

/* Write @content to @root/@rel, creating the directories on the way. */
static void put(const char *root, const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, DIR_MODE);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int rm_tree(const char *root)
{
	char cmd[PATH_MAX + sizeof("rm -rf ''")];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* A bare VM-like tree: only cpu/possible, no topology, caches or nodes. */
static void test_minimal_and_malformed(void **state)
{
	char root[] = "/tmp/scxk-topo-XXXXXX";
	struct scxk_topo *t = NULL;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "sys/devices/system/cpu/possible", "0-3\n");
	assert_int_equal(scxk_topo_read_at(root, &t), 0);
	check_invariants(t);
	assert_list(&t->online, "0-3");
	assert_int_equal(t->nr_cores, 4);
	assert_int_equal(t->nr_llcs, 4);
	assert_int_equal(t->nr_nodes, 1);
	assert_false(t->smt);
	assert_false(t->hybrid);
	scxk_topo_free(t);

	put(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1-x\n");
	assert_int_equal(scxk_topo_read_at(root, &t), -EINVAL);
	assert_null(t);
	put(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1,9\n");
	assert_int_equal(scxk_topo_read_at(root, &t), -ERANGE);
	put(root, "sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0-1\n");
	put(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-1\n");
	put(root, "sys/devices/system/cpu/cpu0/cpu_capacity", "big\n");
	assert_int_equal(scxk_topo_read_at(root, &t), -EINVAL);
	put(root, "sys/devices/system/cpu/cpu0/cpu_capacity", "512\n");
	assert_int_equal(scxk_topo_read_at(root, &t), 0);
	assert_int_equal(t->nr_cores, 3);
	/* only cpu0 has cpu_capacity: the others are online, assumed full */
	assert_true(t->hybrid);
	assert_int_equal(t->capacity[0], 512);
	assert_true(t->big[2]);
	scxk_topo_free(t);

	put(root, "sys/devices/system/cpu/possible", "\n");
	assert_int_equal(scxk_topo_read_at(root, &t), -EINVAL);
	put(root, "sys/devices/system/cpu/possible", "0-2000\n");
	assert_int_equal(scxk_topo_read_at(root, &t), -ERANGE);
	assert_int_equal(rm_tree(root), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_laptop),	      cmocka_unit_test(test_numa2),
		cmocka_unit_test(test_amd_ccx),	      cmocka_unit_test(test_intel_hybrid),
		cmocka_unit_test(test_arm_biglittle), cmocka_unit_test(test_offline),
		cmocka_unit_test(test_missing),	      cmocka_unit_test(test_env_prefix),
		cmocka_unit_test(test_print),	      cmocka_unit_test(test_minimal_and_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
