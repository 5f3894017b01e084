// SPDX-License-Identifier: GPL-2.0-only
/*
 * A real scheduler object (scx_brisk's, as built) fitted to made-up kernels:
 * one with everything it references, one without a kfunc it calls
 * unchecked (refused), one whose kfunc takes another argument (refused, as
 * 7.2.x's scx_bpf_get_idle_smtmask), one without a kfunc it checks with
 * bpf_ksym_exists() (runs), one without a callback it defines (left out).
 * OBJ_DIR is the build root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scxkit/sched.h>

#define OBJ OBJ_DIR "/brisk.linked.bpf.o"

struct fixture {
	void *elf;
	size_t elf_sz;
	struct btf *built; /* the object's BTF as compiled */
	struct bpf_object *obj;
};

/* What a kernel lacks or changes, by name. */
struct kernel_diff {
	const char *no_member; /* of sched_ext_ops */
	const char *no_func;
	const char *extra_arg_func;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	FILE *fp = fopen(OBJ, "rb");

	assert_non_null(f);
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	f->elf_sz = (size_t)ftell(fp);
	rewind(fp);
	f->elf = malloc(f->elf_sz);
	assert_int_equal(fread(f->elf, 1, f->elf_sz, fp), f->elf_sz);
	fclose(fp);
	f->built = btf__parse_elf(OBJ, NULL);
	assert_non_null(f->built);
	f->obj = bpf_object__open_mem(f->elf, f->elf_sz, NULL);
	assert_non_null(f->obj);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	bpf_object__close(f->obj);
	btf__free(f->built);
	free(f->elf);
	free(f);
	return 0;
}

static size_t essential_len(const char *name)
{
	const char *p = name, *last = NULL;

	while ((p = strstr(p, "___"))) {
		if (p > name && p[-1] != '_' && p[3] && p[3] != '_')
			last = p;
		p++;
	}
	return last ? (size_t)(last - name) : strlen(name);
}

/*
 * A kernel BTF holding, by name, what @f's object references: enum
 * scx_ops_flags, the members of struct sched_ext_ops, and each kfunc (with
 * as many arguments) and kernel variable of its .ksyms, less @d.
 */
static struct btf *make_kernel(struct fixture *f, const struct kernel_diff *d)
{
	const struct btf *b = f->built;
	struct btf *k = btf__new_empty();
	const struct btf_type *t;
	int int_id, id, i, j;

	assert_non_null(k);
	int_id = btf__add_int(k, "int", 4, BTF_INT_SIGNED);
	assert_true(int_id > 0);

	id = btf__find_by_name_kind(b, "scx_ops_flags", BTF_KIND_ENUM64);
	assert_true(id > 0);
	t = btf__type_by_id(b, id);
	assert_true(btf__add_enum64(k, "scx_ops_flags", 8, false) > 0);
	for (i = 0; i < btf_vlen(t); i++)
		assert_int_equal(
			btf__add_enum64_value(k, btf__name_by_offset(b, btf_enum64(t)[i].name_off),
					      btf_enum64_value(btf_enum64(t) + i)),
			0);

	id = btf__find_by_name_kind(b, "sched_ext_ops", BTF_KIND_STRUCT);
	assert_true(id > 0);
	t = btf__type_by_id(b, id);
	assert_true(btf__add_struct(k, "sched_ext_ops", 4 * btf_vlen(t)) > 0);
	for (i = 0, j = 0; i < btf_vlen(t); i++) {
		const char *m = btf__name_by_offset(b, btf_members(t)[i].name_off);

		if (d->no_member && !strcmp(m, d->no_member))
			continue;
		assert_int_equal(btf__add_field(k, m, int_id, 32 * j++, 0), 0);
	}

	id = btf__find_by_name_kind(b, ".ksyms", BTF_KIND_DATASEC);
	assert_true(id > 0);
	t = btf__type_by_id(b, id);
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *v = btf__type_by_id(b, btf_var_secinfos(t)[i].type);
		const char *full = btf__name_by_offset(b, v->name_off);
		char name[128];
		int proto, n, a;

		snprintf(name, sizeof(name), "%.*s", (int)essential_len(full), full);
		if (btf__find_by_name(k, name) > 0 || (d->no_func && !strcmp(name, d->no_func)))
			continue;
		if (!btf_is_func(v)) {
			assert_true(btf__add_var(k, name, BTF_VAR_GLOBAL_ALLOCATED, int_id) > 0);
			continue;
		}
		n = btf_vlen(btf__type_by_id(b, v->type));
		if (d->extra_arg_func && !strcmp(name, d->extra_arg_func))
			n++;
		proto = btf__add_func_proto(k, int_id);
		assert_true(proto > 0);
		for (a = 0; a < n; a++)
			assert_int_equal(btf__add_func_param(k, "a", int_id), 0);
		assert_true(btf__add_func(k, name, BTF_FUNC_GLOBAL, proto) > 0);
	}
	return k;
}

/*
 * The --features table of @f's object against @k; its verdict (0, or
 * SCXK_ERR_KERNEL for a kernel the loader refuses) must be @verdict.
 */
static char *features_v(struct fixture *f, const struct btf *k, int verdict)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	assert_int_equal(scxk_obj_print_btf(f->obj, f->elf, f->elf_sz, k, out), verdict);
	fclose(out);
	assert_non_null(strstr(buf, verdict ? "\nverdict: refused" : "\nverdict: runs"));
	return buf;
}

static char *features(struct fixture *f, const struct btf *k)
{
	return features_v(f, k, 0);
}

/* The row of @name in @table, up to its end of line. */
static const char *row_of(const char *table, const char *kind, const char *name)
{
	static char line[256];
	const char *p = table;
	char want[160];

	snprintf(want, sizeof(want), "%s ", kind);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char k_[32], n_[128];

		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		if (sscanf(line, "%31s %127s", k_, n_) == 2 && !strcmp(k_, kind) &&
		    !strcmp(n_, name))
			return line;
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* scxk_obj_fit_btf() against @k, with what it logged to stderr in @log. */
static int fit_logged(struct fixture *f, const struct btf *k, char *log, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDERR_FILENO), ret;
	size_t n;

	assert_non_null(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	ret = scxk_obj_fit_btf(f->obj, f->elf, f->elf_sz, k, "test", false);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(log, 1, len - 1, tmp);
	log[n] = 0;
	fclose(tmp);
	return ret;
}

static void test_kernel_with_everything(void **state)
{
	struct fixture *f = *state;
	struct kernel_diff d = {0};
	struct btf *k = make_kernel(f, &d);
	char *t = features(f, k), log[1024];

	assert_non_null(strstr(t, "\n0 of the features above missing"));
	assert_non_null(row_of(t, "kfunc", "scx_bpf_kick_cpu"));
	assert_non_null(row_of(t, "callback", "ops.enqueue"));
	/* Flavoured names are listed as the kernel spells them. */
	assert_null(strstr(t, "___scxk"));
	/* Nothing missing, nothing to say. */
	assert_int_equal(fit_logged(f, k, log, sizeof(log)), 0);
	assert_string_equal(log, "");
	free(t);
	btf__free(k);
}

static void test_required_kfunc_missing(void **state)
{
	struct fixture *f = *state;
	struct kernel_diff d = {.no_func = "scx_bpf_kick_cpu"};
	struct btf *k = make_kernel(f, &d);
	char *t = features_v(f, k, SCXK_ERR_KERNEL);
	const char *r = row_of(t, "kfunc", "scx_bpf_kick_cpu");

	assert_non_null(r);
	assert_non_null(strstr(r, "no: REQUIRED"));
	assert_int_equal(scxk_obj_fit_btf(f->obj, f->elf, f->elf_sz, k, "test", false),
			 SCXK_ERR_KERNEL);
	free(t);
	btf__free(k);
}

static void test_kfunc_with_other_arguments(void **state)
{
	struct fixture *f = *state;
	struct kernel_diff d = {.extra_arg_func = "scx_bpf_get_idle_smtmask"};
	struct btf *k = make_kernel(f, &d);
	char *t = features_v(f, k, SCXK_ERR_KERNEL);
	const char *r = row_of(t, "kfunc", "scx_bpf_get_idle_smtmask");

	assert_non_null(r);
	assert_non_null(strstr(r, "no: REQUIRED"));
	assert_int_equal(scxk_obj_fit_btf(f->obj, f->elf, f->elf_sz, k, "test", false),
			 SCXK_ERR_KERNEL);
	free(t);
	btf__free(k);
}

static void test_checked_kfunc_missing(void **state)
{
	struct fixture *f = *state;
	struct kernel_diff d = {.no_func = "scx_bpf_now"};
	struct btf *k = make_kernel(f, &d);
	char *t = features(f, k);
	const char *r = row_of(t, "kfunc", "scx_bpf_now");

	assert_non_null(r);
	char log[1024];

	assert_non_null(strstr(r, "no: a fallback is used"));
	assert_non_null(strstr(t, "\n1 of the features above missing"));
	/* One notice names what runs on its fallback. */
	assert_int_equal(fit_logged(f, k, log, sizeof(log)), 0);
	assert_non_null(strstr(log, "this kernel has no scx_bpf_now; running with the fallbacks"));
	free(t);
	btf__free(k);
}

static void test_callback_missing(void **state)
{
	struct fixture *f = *state;
	struct kernel_diff none = {0}, d = {.no_member = "cpu_release"};
	struct btf *full = make_kernel(f, &none), *k = make_kernel(f, &d);
	char *before = features(f, k), *after;
	const char *r = row_of(before, "callback", "ops.cpu_release");

	assert_non_null(r);
	assert_non_null(strstr(r, "no: left out at load"));
	assert_int_equal(scxk_obj_fit_btf(f->obj, f->elf, f->elf_sz, k, "test", false), 0);
	/* Left out: the table no longer names it, the others are still there. */
	after = features(f, full);
	assert_null(row_of(after, "callback", "ops.cpu_release"));
	assert_non_null(row_of(after, "callback", "ops.enqueue"));
	free(before);
	free(after);
	btf__free(full);
	btf__free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_with_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_required_kfunc_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kfunc_with_other_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checked_kfunc_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_missing, setup, teardown),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
