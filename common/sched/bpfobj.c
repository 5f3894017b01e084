// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic access to a scheduler's BPF object before and after load, by
 * name through BTF, so libscxkit can set common fields without knowing
 * each scheduler's skeleton type.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <scxkit/log.h>
#include <scxkit/sched.h>

static struct bpf_map *find_map(struct bpf_object *obj, const char *name)
{
	/* Internal maps match their section name (".rodata", ".data.uei"). */
	return bpf_object__find_map_by_name(obj, name);
}

int scxk_obj_set_var(struct bpf_object *obj, const char *sec, const char *var, const void *val,
		     size_t size)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = find_map(obj, sec);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	size_t map_size;
	char *data;
	int id, i;

	if (!map || !btf)
		return -ENOENT;
	data = bpf_map__initial_value(map, &map_size);
	id = btf__find_by_name_kind(btf, sec, BTF_KIND_DATASEC);
	if (!data || id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vs++) {
		const struct btf_type *v = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, v->name_off), var))
			continue;
		if (vs->size != size || vs->offset + size > map_size)
			return -EINVAL;
		memcpy(data + vs->offset, val, size);
		return 0;
	}
	return -ENOENT;
}

static struct bpf_map *ops_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map (map, obj) {
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			return map;
	}
	return NULL;
}

/* The scheduler's sched_ext_ops member @field in the ops map's initial value. */
static int ops_member(struct bpf_object *obj, const char *field, char **ptr, size_t *len)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = ops_map(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	size_t size;
	char *data;
	int id, i;

	if (!map || !btf)
		return -ENOENT;
	data = bpf_map__initial_value(map, &size);
	id = btf__find_by_name_kind(btf, "sched_ext_ops", BTF_KIND_STRUCT);
	if (!data || id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		size_t off = btf_member_bit_offset(t, i) / 8;
		long msize;

		if (strcmp(btf__name_by_offset(btf, m->name_off), field))
			continue;
		msize = btf__resolve_size(btf, m->type);
		if (msize <= 0 || msize > 8 || off + msize > size)
			return -EINVAL;
		*ptr = data + off;
		*len = msize;
		return 0;
	}
	return -ENOENT;
}

int scxk_obj_set_ops_field(struct bpf_object *obj, const char *field, uint64_t val)
{
	size_t len;
	char *p;
	int err = ops_member(obj, field, &p, &len);

	if (err)
		return err;
	/* Little-endian: the low bytes of val are the member's value. */
	memcpy(p, &val, len);
	return 0;
}

int scxk_obj_get_ops_field(struct bpf_object *obj, const char *field, uint64_t *val)
{
	size_t len;
	char *p;
	int err = ops_member(obj, field, &p, &len);

	if (err)
		return err;
	*val = 0;
	memcpy(val, p, len);
	return 0;
}

/* enum @name of @btf, as ENUM64 (values past 32 bits, 6.13+) or ENUM. */
static const struct btf_type *find_enum(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM64);

	if (id < 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_ENUM);
	return id < 0 ? NULL : btf__type_by_id(btf, id);
}

static uint64_t enumerator_value(const struct btf_type *t, int i)
{
	if (btf_is_enum64(t))
		return btf_enum64_value(btf_enum64(t) + i);
	return (uint32_t)btf_enum(t)[i].val;
}

static const char *enumerator_name(const struct btf *btf, const struct btf_type *t, int i)
{
	return btf__name_by_offset(btf, btf_is_enum64(t) ? btf_enum64(t)[i].name_off
							 : btf_enum(t)[i].name_off);
}

static int enum_value_of(const struct btf *btf, const struct btf_type *t, const char *name,
			 uint64_t *val)
{
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		if (!strcmp(enumerator_name(btf, t, i), name)) {
			*val = enumerator_value(t, i);
			return 0;
		}
	}
	return -ENOENT;
}

static const char *enum_name_of(const struct btf *btf, const struct btf_type *t, uint64_t val)
{
	int i;

	for (i = 0; i < btf_vlen(t); i++)
		if (enumerator_value(t, i) == val)
			return enumerator_name(btf, t, i);
	return NULL;
}

int scxk_ops_flags_translate(const struct btf *built, const struct btf *kernel, uint64_t flags,
			     bool partial, uint64_t *out)
{
	const struct btf_type *bt = find_enum(built, "scx_ops_flags");
	const struct btf_type *kt = find_enum(kernel, "scx_ops_flags");
	uint64_t v;
	int bit;

	if (!kt)
		return scxk_err(-EOPNOTSUPP, "the running kernel's BTF has no enum scx_ops_flags");
	if (!bt && flags)
		return scxk_err(-ENOENT, "the BPF object's BTF has no enum scx_ops_flags "
					 "(link common/sched/uei)");
	*out = 0;
	for (bit = 0; bit < 64; bit++) {
		const char *name;

		if (!(flags & (1ULL << bit)))
			continue;
		name = enum_name_of(built, bt, 1ULL << bit);
		if (!name)
			return scxk_err(-EINVAL, "ops flag bit %d has no name in the BPF object",
					bit);
		if (enum_value_of(kernel, kt, name, &v)) {
			/* Like compat.h's "enum or zero": an older kernel lacks the
			 * feature and behaves as the flag's absence says. */
			scxk_info("this kernel has no %s; running without it", name);
			continue;
		}
		*out |= v;
	}
	if (partial) {
		if (enum_value_of(kernel, kt, "SCX_OPS_SWITCH_PARTIAL", &v))
			return scxk_err(-EOPNOTSUPP, "this kernel has no SCX_OPS_SWITCH_PARTIAL");
		*out |= v;
	}
	return 0;
}

int scxk_obj_resolve_ops_flags(struct bpf_object *obj, bool partial)
{
	struct btf *kernel = btf__load_vmlinux_btf();
	uint64_t flags, out;
	int err;

	if (!kernel)
		return scxk_err(-errno, "cannot read the running kernel's BTF "
					"(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	err = scxk_obj_get_ops_field(obj, "flags", &flags);
	if (!err)
		err = scxk_ops_flags_translate(bpf_object__btf(obj), kernel, flags, partial, &out);
	if (!err)
		err = scxk_obj_set_ops_field(obj, "flags", out);
	btf__free(kernel);
	if (!err && out != flags)
		scxk_dbg("ops flags 0x%llx as built, 0x%llx on this kernel",
			 (unsigned long long)flags, (unsigned long long)out);
	return err;
}

int scxk_map_elem_zero(struct bpf_map *map, uint32_t key)
{
	size_t size = bpf_map__value_size(map);
	void *zero = calloc(1, size);
	int err;

	if (!zero)
		return -ENOMEM;
	err = bpf_map__update_elem(map, &key, sizeof(key), zero, size, BPF_ANY);
	free(zero);
	return err;
}

int scxk_counters_read(struct bpf_object *obj, uint64_t out[SCXK_MAX_COUNTERS])
{
	struct bpf_map *map = find_map(obj, "scxk_counters");
	int nr_cpus = libbpf_num_possible_cpus();
	uint64_t *vals;
	uint32_t i;
	int c, err = 0;

	memset(out, 0, sizeof(uint64_t) * SCXK_MAX_COUNTERS);
	if (!map)
		return -ENOENT;
	if (nr_cpus <= 0)
		return nr_cpus ? nr_cpus : -EINVAL;
	vals = calloc(nr_cpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (i = 0; i < SCXK_MAX_COUNTERS; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &i, vals)) {
			err = -errno;
			break;
		}
		for (c = 0; c < nr_cpus; c++)
			out[i] += vals[c];
	}
	free(vals);
	return err;
}
