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

struct bpf_map *scxk_obj_ops_map(struct bpf_object *obj)
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
	struct bpf_map *map = scxk_obj_ops_map(obj);
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
