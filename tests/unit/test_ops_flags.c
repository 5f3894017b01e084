// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ops flags compiled against one kernel's enum scx_ops_flags, translated by
 * name to another kernel's values (scxk_ops_flags_translate()), and --partial
 * OR-ed in rather than written over the scheduler's own flags.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scxkit/sched.h>

struct flag {
	const char *name;
	uint64_t val;
};

/* A BTF with enum scx_ops_flags holding @flags (ENUM64, as 6.13+ emit it). */
static struct btf *enum_btf(const struct flag *flags, int n)
{
	struct btf *btf = btf__new_empty();
	int i;

	assert_non_null(btf);
	assert_true(btf__add_enum64(btf, "scx_ops_flags", 8, false) > 0);
	for (i = 0; i < n; i++)
		assert_int_equal(btf__add_enum64_value(btf, flags[i].name, flags[i].val), 0);
	return btf;
}

/* As this tree's vmlinux.h numbers them. */
static const struct flag built_flags[] = {
	{"SCX_OPS_KEEP_BUILTIN_IDLE", 1},
	{"SCX_OPS_ENQ_LAST", 2},
	{"SCX_OPS_ENQ_EXITING", 4},
	{"SCX_OPS_SWITCH_PARTIAL", 8},
	{"SCX_OPS_ENQ_MIGRATION_DISABLED", 16},
	{"SCX_OPS_ALL_FLAGS", 31},
};

static void test_same_kernel_keeps_flags(void **state)
{
	struct btf *b = enum_btf(built_flags, 6), *k = enum_btf(built_flags, 6);
	uint64_t out;

	(void)state;
	assert_int_equal(scxk_ops_flags_translate(b, k, 0x16, false, &out), 0);
	assert_int_equal(out, 0x16);
	btf__free(b);
	btf__free(k);
}

/* The bug: --partial wrote 0x8 over brisk's 0x16. */
static void test_partial_is_ored_in(void **state)
{
	struct btf *b = enum_btf(built_flags, 6), *k = enum_btf(built_flags, 6);
	uint64_t out;

	(void)state;
	assert_int_equal(scxk_ops_flags_translate(b, k, 0x16, true, &out), 0);
	assert_int_equal(out, 0x1e);
	assert_int_equal(scxk_ops_flags_translate(b, k, 0, true, &out), 0);
	assert_int_equal(out, 0x8);
	btf__free(b);
	btf__free(k);
}

/* A kernel that numbers the flags differently gets its own values. */
static void test_renumbered_kernel(void **state)
{
	static const struct flag kernel_flags[] = {
		{"SCX_OPS_ENQ_EXITING", 1 << 5},
		{"SCX_OPS_ENQ_LAST", 1 << 7},
		{"SCX_OPS_SWITCH_PARTIAL", 1 << 9},
		{"SCX_OPS_ENQ_MIGRATION_DISABLED", 1ULL << 40},
	};
	struct btf *b = enum_btf(built_flags, 6), *k = enum_btf(kernel_flags, 4);
	uint64_t out;

	(void)state;
	assert_int_equal(scxk_ops_flags_translate(b, k, 0x16, true, &out), 0);
	assert_int_equal(out, (1 << 5) | (1 << 7) | (1 << 9) | (1ULL << 40));
	btf__free(b);
	btf__free(k);
}

/* An older kernel without a flag runs without it (6.12 lacks ENQ_MIGRATION_DISABLED). */
static void test_unknown_flag_dropped(void **state)
{
	static const struct flag old_flags[] = {
		{"SCX_OPS_KEEP_BUILTIN_IDLE", 1},
		{"SCX_OPS_ENQ_LAST", 2},
		{"SCX_OPS_ENQ_EXITING", 4},
		{"SCX_OPS_SWITCH_PARTIAL", 8},
	};
	struct btf *b = enum_btf(built_flags, 6), *k = enum_btf(old_flags, 4);
	uint64_t out;

	(void)state;
	assert_int_equal(scxk_ops_flags_translate(b, k, 0x16, false, &out), 0);
	assert_int_equal(out, 0x6);
	btf__free(b);
	btf__free(k);
}

static void test_errors(void **state)
{
	static const struct flag no_partial[] = {{"SCX_OPS_ENQ_LAST", 2}};
	struct btf *b = enum_btf(built_flags, 6), *k = enum_btf(no_partial, 1);
	struct btf *empty = btf__new_empty();
	uint64_t out;

	(void)state;
	/* --partial on a kernel that cannot do it: refuse, never load without it */
	assert_int_equal(scxk_ops_flags_translate(b, k, 0x2, true, &out), -EOPNOTSUPP);
	/* a kernel without sched_ext's enum */
	assert_int_equal(scxk_ops_flags_translate(b, empty, 0x2, false, &out), -EOPNOTSUPP);
	/* an object whose flags cannot be named */
	assert_int_equal(scxk_ops_flags_translate(empty, k, 0x2, false, &out), -ENOENT);
	/* a bit with no name */
	assert_int_equal(scxk_ops_flags_translate(b, b, 1ULL << 33, false, &out), -EINVAL);
	btf__free(b);
	btf__free(k);
	btf__free(empty);
}

/*
 * Every scheduler object of this build carries the enum (common/sched/uei):
 * without it no flag could be translated. OBJ_DIR is the build root.
 */
static void test_built_objects_name_their_flags(void **state)
{
	static const char *const objs[] = {"minimal", "brisk", "cadence", "balance", "strata"};
	size_t i, opened = 0;

	(void)state;
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		char path[512];
		struct bpf_object *obj;
		uint64_t flags, out;

		snprintf(path, sizeof(path), "%s/%s.linked.bpf.o", OBJ_DIR, objs[i]);
		obj = bpf_object__open_file(path, NULL);
		if (!obj) {
			print_message("%s: not built here, skipped\n", path);
			continue;
		}
		assert_int_equal(scxk_obj_get_ops_field(obj, "flags", &flags), 0);
		assert_int_equal(scxk_ops_flags_translate(bpf_object__btf(obj),
							  bpf_object__btf(obj), flags, true, &out),
				 0);
		assert_true((out & flags) == flags);
		bpf_object__close(obj);
		opened++;
	}
	assert_true(opened > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_kernel_keeps_flags),
		cmocka_unit_test(test_partial_is_ored_in),
		cmocka_unit_test(test_renumbered_kernel),
		cmocka_unit_test(test_unknown_flag_dropped),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_built_objects_name_their_flags),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
