// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a scheduler's BPF object asks of the kernel, matched by name against
 * the running kernel's BTF, as the kernel's own compat.h does: its ops
 * flags, the sched_ext_ops callbacks it defines, and the kfuncs and kernel
 * variables its code references. One walk serves the load (flags and
 * callbacks the kernel lacks are left out with a notice; a required kfunc
 * it lacks is refused before libbpf gets to it) and --features, which
 * lists the result without loading anything.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <scxkit/log.h>
#include <scxkit/sched.h>

/* --- ops flags ----------------------------------------------------------- */

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

/* --- callbacks ----------------------------------------------------------- */

static bool struct_has_member(const struct btf *btf, const char *sname, const char *mname)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_member *m;
	const struct btf_type *t;
	int i;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), mname))
			return true;
	return false;
}

/*
 * Call @fn for each callback the object's ops table defines: after open,
 * libbpf's "shadow" copy of the table holds a struct bpf_program pointer
 * in each function-pointer member that names a program.
 */
static int for_each_callback(struct bpf_object *obj,
			     int (*fn)(const char *name, void **slot, void *ctx), void *ctx)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = scxk_obj_ops_map(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	size_t size;
	char *data;
	int id, i, err;

	if (!map || !btf)
		return -ENOENT;
	data = bpf_map__initial_value(map, &size);
	id = btf__find_by_name_kind(btf, "sched_ext_ops", BTF_KIND_STRUCT);
	if (!data || id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(btf, m->type);
		size_t off = btf_member_bit_offset(t, i) / 8;

		while (mt && (btf_is_typedef(mt) || btf_is_mod(mt)))
			mt = btf__type_by_id(btf, mt->type);
		if (!mt || !btf_is_ptr(mt) || off + sizeof(void *) > size)
			continue;
		if (!*(void **)(data + off))
			continue;
		if ((err = fn(btf__name_by_offset(btf, m->name_off), (void **)(data + off), ctx)))
			return err;
	}
	return 0;
}

static int drop_missing_callback(const char *name, void **slot, void *ctx)
{
	const struct btf *kernel = ctx;

	if (struct_has_member(kernel, "sched_ext_ops", name))
		return 0;
	/* libbpf then skips the member and does not load its program. */
	*slot = NULL;
	scxk_info("this kernel has no ops.%s; running without it", name);
	return 0;
}

/* --- kfuncs and kernel variables ----------------------------------------- */

/* libbpf's rule for flavoured names: "name___flavour" stands for "name". */
static size_t essential_len(const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = (int)n - 5; i >= 0; i--)
		if (name[i] != '_' && !strncmp(name + i + 1, "___", 3) && name[i + 4] != '_')
			return i + 1;
	return n;
}

struct ksym {
	char *name;	    /* as in the object, with its flavour */
	size_t len;	    /* of the name the kernel knows it by */
	int nr_args;	    /* a kfunc's, as the object calls it */
	int kernel_nr_args; /* as the kernel's BTF declares it; -1: no such kfunc */
	bool func;
	bool optional; /* the code asks bpf_ksym_exists() and has a fallback */
	bool found;
};

struct ksyms {
	struct ksym *v;
	int n;
};

static void ksyms_free(struct ksyms *k)
{
	int i;

	for (i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
	k->v = NULL;
	k->n = 0;
}

/* A flavoured name (name___x): the spelling for kernels that lack another. */
static bool alternative(const struct ksym *k)
{
	return k->len != strlen(k->name);
}

static bool kernel_has(const struct btf *kernel, struct ksym *k)
{
	const struct btf_type *t;
	char buf[128];
	int id;

	k->kernel_nr_args = -1;
	if (k->len >= sizeof(buf))
		return false;
	memcpy(buf, k->name, k->len);
	buf[k->len] = 0;
	id = btf__find_by_name_kind(kernel, buf, k->func ? BTF_KIND_FUNC : BTF_KIND_VAR);
	if (id < 0)
		return false;
	if (!k->func)
		return true;
	/*
	 * libbpf binds a kfunc only to a kernel prototype like the one called.
	 * Debian's 7.1.x and 7.2.x builds declare some kfuncs (which ones
	 * varies by release: scx_bpf_kick_cpu, the idle masks, pick_idle_cpu,
	 * create_dsq...) with the verifier's implicit "aux" argument and no
	 * prototype without it, so those calls stay unresolved; the number of
	 * arguments tells them apart.
	 */
	t = btf__type_by_id(kernel, btf__type_by_id(kernel, id)->type);
	k->kernel_nr_args = t ? btf_vlen(t) : -1;
	return t && btf_vlen(t) == k->nr_args;
}

/*
 * Which externs the code checks before use. bpf_ksym_exists(f) loads f's
 * address, a relocation at a 64-bit immediate load (BPF_LD | BPF_IMM |
 * BPF_DW); a plain call is a relocation at a call instruction. A kfunc with
 * such a check has a fallback, and so has a flavoured one (name___flavour,
 * libbpf's spelling for "this kernel's other name for it", which the code
 * calls where the check failed). Any other kfunc is required, whatever its
 * ELF binding (vmlinux.h declares every kfunc __weak). A kernel variable is
 * always loaded by address: it is optional when declared __weak.
 */
static void mark_optional(Elf *elf, struct ksyms *ks)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int i;

	for (i = 0; i < ks->n; i++)
		ks->v[i].optional = ks->v[i].func && alternative(&ks->v[i]);

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *target, *symscn;
		Elf_Data *rd, *td, *sd;
		GElf_Shdr symsh;
		size_t j;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_REL || !sh.sh_entsize ||
		    !(target = elf_getscn(elf, sh.sh_info)) ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(rd = elf_getdata(scn, NULL)) || !(td = elf_getdata(target, NULL)) ||
		    !(sd = elf_getdata(symscn, NULL)))
			continue;
		for (j = 0; j < sh.sh_size / sh.sh_entsize; j++) {
			GElf_Rel rel;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrel(rd, (int)j, &rel) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(rel.r_info), &sym) ||
			    sym.st_shndx != SHN_UNDEF ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)))
				continue;
			for (i = 0; i < ks->n; i++) {
				struct ksym *k = &ks->v[i];

				if (strcmp(k->name, name))
					continue;
				if (!k->func)
					k->optional = GELF_ST_BIND(sym.st_info) == STB_WEAK;
				else if (rel.r_offset < td->d_size &&
					 ((const uint8_t *)td->d_buf)[rel.r_offset] ==
						 (BPF_LD | BPF_IMM | BPF_DW))
					k->optional = true;
			}
		}
	}
}

/*
 * The object's .ksyms externs as compiled, from the object file's bytes
 * (the skeleton's): its BTF says which are functions and how they are
 * called, its relocations which are checked (mark_optional()). libbpf's own
 * copy cannot tell: at open it rewrites the section and drops the linkage.
 */
static int ksyms_read(const void *elf_data, size_t elf_sz, const struct btf *kernel,
		      struct ksyms *out)
{
	struct btf *built = NULL;
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;
	int id, i, err = 0;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_memory((char *)elf_data, elf_sz);
	if (!elf)
		return -EINVAL;
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return -EINVAL;
	}
	/* .BTF: the types as compiled. */
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".BTF") || !(d = elf_getdata(scn, NULL)))
			continue;
		built = btf__new(d->d_buf, d->d_size);
		break;
	}
	if (!built || libbpf_get_error(built)) {
		elf_end(elf);
		return -ENOENT;
	}
	id = btf__find_by_name_kind(built, ".ksyms", BTF_KIND_DATASEC);
	sec = id < 0 ? NULL : btf__type_by_id(built, id);
	if (sec && !(out->v = calloc(btf_vlen(sec), sizeof(*out->v))))
		err = -ENOMEM;
	for (i = 0, vs = sec ? btf_var_secinfos(sec) : NULL; !err && sec && i < btf_vlen(sec);
	     i++, vs++) {
		const struct btf_type *v = btf__type_by_id(built, vs->type);
		struct ksym *k = &out->v[out->n];

		if (!(k->name = strdup(btf__name_by_offset(built, v->name_off)))) {
			err = -ENOMEM;
			break;
		}
		k->len = essential_len(k->name);
		k->func = btf_is_func(v);
		if (k->func)
			k->nr_args = btf_vlen(btf__type_by_id(built, v->type));
		k->found = kernel_has(kernel, k);
		out->n++;
	}
	if (!err)
		mark_optional(elf, out);
	btf__free(built);
	elf_end(elf);
	if (err)
		ksyms_free(out);
	return err;
}

/* --- at load --------------------------------------------------------------- */

static struct btf *load_kernel_btf(void)
{
	struct btf *kernel = btf__load_vmlinux_btf();

	if (!kernel)
		scxk_err(-errno, "cannot read the running kernel's BTF "
				 "(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	return kernel;
}

int scxk_obj_fit_btf(struct bpf_object *obj, const void *elf, size_t elf_sz,
		     const struct btf *kernel, const char *release, bool partial)
{
	struct ksyms ks;
	uint64_t flags, out;
	char missing[512] = "", fallback[sizeof(missing)] = "";
	int err, i;

	if (btf__find_by_name_kind(kernel, "sched_ext_ops", BTF_KIND_STRUCT) < 0)
		return scxk_err(-EOPNOTSUPP, "the kernel's BTF has no struct sched_ext_ops");
	if ((err = ksyms_read(elf, elf_sz, kernel, &ks)))
		return scxk_err(err, "cannot read the kernel symbols the BPF object uses");
	for (i = 0; i < ks.n; i++) {
		const struct ksym *k = &ks.v[i];
		char *to = !k->optional ? missing : alternative(k) ? NULL : fallback;

		if (k->found || !to)
			continue;
		snprintf(to + strlen(to), sizeof(missing) - strlen(to), "%s%.*s", to[0] ? ", " : "",
			 (int)k->len, k->name);
		if (k->kernel_nr_args >= 0)
			snprintf(to + strlen(to), sizeof(missing) - strlen(to),
				 " (declared with %d argument%s, called with %d)",
				 k->kernel_nr_args, k->kernel_nr_args == 1 ? "" : "s", k->nr_args);
		else if (to == missing)
			snprintf(to + strlen(to), sizeof(missing) - strlen(to), " (absent)");
	}
	ksyms_free(&ks);
	/* One line for what the code replaces; other spellings are no news. */
	if (fallback[0] && !missing[0])
		scxk_info("this kernel has no %s; running with the fallbacks", fallback);
	if (missing[0]) {
		scxk_log(SCXK_LOG_ERROR,
			 "this kernel (%s) cannot provide kfuncs the scheduler calls: %s. Kernels "
			 "known to have them: 6.12 to 7.0, 7.3 and newer; not Debian's 7.1.x and "
			 "7.2.x builds (docs/kernel-matrix.md)",
			 release, missing);
		return SCXK_ERR_KERNEL;
	}
	err = scxk_obj_get_ops_field(obj, "flags", &flags);
	if (!err)
		err = scxk_ops_flags_translate(bpf_object__btf(obj), kernel, flags, partial, &out);
	if (!err)
		err = scxk_obj_set_ops_field(obj, "flags", out);
	if (!err && out != flags)
		scxk_dbg("ops flags 0x%llx as built, 0x%llx on this kernel",
			 (unsigned long long)flags, (unsigned long long)out);
	if (!err)
		err = for_each_callback(obj, drop_missing_callback, (void *)kernel);
	return err;
}

int scxk_obj_fit_kernel(struct bpf_object *obj, const void *elf, size_t elf_sz, bool partial)
{
	struct btf *kernel = load_kernel_btf();
	struct utsname u;
	int err;

	if (!kernel)
		return -ENOENT;
	uname(&u);
	err = scxk_obj_fit_btf(obj, elf, elf_sz, kernel, u.release, partial);
	btf__free(kernel);
	return err;
}

/* --- --features ------------------------------------------------------------ */

struct print_ctx {
	const struct btf *kernel;
	FILE *out;
	unsigned int missing;
};

static void row(struct print_ctx *c, const char *kind, const char *name, int namelen, bool found,
		const char *if_missing)
{
	fprintf(c->out, "%-9s %-40.*s %s%s%s\n", kind, namelen, name, found ? "yes" : "no",
		found ? "" : ": ", found ? "" : if_missing);
	c->missing += !found;
}

static int print_callback(const char *name, void **slot, void *ctx)
{
	struct print_ctx *c = ctx;
	char full[64];

	(void)slot;
	snprintf(full, sizeof(full), "ops.%s", name);
	row(c, "callback", full, (int)strlen(full),
	    struct_has_member(c->kernel, "sched_ext_ops", name), "left out at load");
	return 0;
}

/* The ops flags the table sets, and --partial's, by name from the object. */
static void print_ops_flags(struct bpf_object *obj, struct print_ctx *c)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *bt = find_enum(btf, "scx_ops_flags");
	const struct btf_type *kt = find_enum(c->kernel, "scx_ops_flags");
	uint64_t flags = 0, kv;
	int i;

	if (!bt || scxk_obj_get_ops_field(obj, "flags", &flags))
		return;
	for (i = 0; i < btf_vlen(bt); i++) {
		const char *name = enumerator_name(btf, bt, i);
		uint64_t v = enumerator_value(bt, i);
		bool partial = !strcmp(name, "SCX_OPS_SWITCH_PARTIAL");

		/* Masks and aliases are not flags. */
		if (!v || (v & (v - 1)) || (!(flags & v) && !partial))
			continue;
		row(c, "flag", name, (int)strlen(name),
		    kt && !enum_value_of(c->kernel, kt, name, &kv),
		    partial ? "--partial is refused" : "runs without it");
	}
}

int scxk_obj_print_btf(struct bpf_object *obj, const void *elf, size_t elf_sz,
		       const struct btf *kernel, FILE *out)
{
	struct print_ctx c = {.kernel = kernel, .out = out};
	unsigned int required = 0;
	struct ksyms ks;
	int i, err;

	if ((err = ksyms_read(elf, elf_sz, kernel, &ks)))
		return scxk_err(err, "cannot read the kernel symbols the BPF object uses");
	print_ops_flags(obj, &c);
	for_each_callback(obj, print_callback, &c);
	for (i = 0; i < ks.n; i++) {
		row(&c, ks.v[i].func ? "kfunc" : "ksym", ks.v[i].name, (int)ks.v[i].len,
		    ks.v[i].found,
		    !ks.v[i].optional	    ? "REQUIRED: the scheduler cannot load"
		    : alternative(&ks.v[i]) ? "another spelling is used"
					    : "a fallback is used");
		required += !ks.v[i].found && !ks.v[i].optional;
	}
	fprintf(out, "%u of the features above missing\n", c.missing);
	ksyms_free(&ks);
	fprintf(out, "%s\n",
		required ? "verdict: refused (exit 2 at start)" : "verdict: runs on this kernel");
	return required ? SCXK_ERR_KERNEL : 0;
}

int scxk_obj_print_features(struct bpf_object *obj, const void *elf, size_t elf_sz,
			    const char *prog, const char *btf_path, FILE *out)
{
	struct btf *kernel;
	struct utsname u;
	int err;

	/* A kernel's BTF file (vmlinux or raw .BTF): check it without booting it. */
	if (btf_path) {
		kernel = btf__parse(btf_path, NULL);
		if (!kernel)
			return scxk_err(-errno,
					"cannot read BTF from %s (a vmlinux or a raw BTF file)",
					btf_path);
	} else if (!(kernel = load_kernel_btf())) {
		return -ENOENT;
	}
	if (btf__find_by_name_kind(kernel, "sched_ext_ops", BTF_KIND_STRUCT) < 0) {
		btf__free(kernel);
		return scxk_err(-EOPNOTSUPP,
				"%s has no sched_ext: it needs a kernel built with "
				"CONFIG_SCHED_CLASS_EXT=y (Linux 6.12 or newer)",
				btf_path ? btf_path : "this kernel");
	}
	uname(&u);
	fprintf(out, "%s on %s%s: kernel features, from its BTF\n", prog, btf_path ? "" : "Linux ",
		btf_path ? btf_path : u.release);
	err = scxk_obj_print_btf(obj, elf, elf_sz, kernel, out);
	btf__free(kernel);
	return err;
}
