/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched.h - the life cycle every scxkit loader shares.
 *
 * A scheduler's main.c fills a struct scxk_sched with its option table and
 * a few hooks, and hands it to scxk_sched_main(), which parses options,
 * checks the system (sched_ext present, privileges, no other scheduler),
 * opens the skeleton, writes topology and common settings, loads, attaches,
 * serves stats, waits for a signal or a kernel-side exit, reports the exit
 * info and restarts in-process when the kernel asks for it (CPU hotplug).
 */
#ifndef __SCXKIT_SCHED_H
#define __SCXKIT_SCHED_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <scxkit/cli.h>
#include <scxkit/stats_ids.h>
#include <scxkit/topo_data.h>
#include <scxkit/uei.h>

struct bpf_map;
struct bpf_object;
struct bpf_object_open_opts;
struct btf;
struct bpf_object_skeleton;
struct bpf_link;
struct scxk_topo;
struct scxk_stat_desc;
struct scxk_stats_read;
struct scxk_sched_stats_server;
struct scxk_run;

#define SCXK_TICK_RESTART 1

struct scxk_sched {
	const char *name; /* the ops' .name, e.g. "minimal" */
	const struct scxk_cli *cli;
	/* Checks between options, after parsing: 0 or -EINVAL (exit 2). */
	int (*validate)(struct scxk_run *run);
	/* Open the skeleton and set run->skel, run->obj and run->skeleton. */
	int (*open)(struct scxk_run *run);
	/* Before load: write rodata and map sizes from options and topology. */
	int (*configure)(struct scxk_run *run);
	/* After attach (optional). */
	int (*attached)(struct scxk_run *run);
	/*
	 * Periodic user-space work every tick_ms while attached (optional).
	 * Returns 0, a negative errno (logged, the scheduler keeps running),
	 * or SCXK_TICK_RESTART to detach and start again in-process with the
	 * same options (e.g. after a power profile change).
	 */
	int (*tick)(struct scxk_run *run);
	unsigned int tick_ms;
	/* Free the skeleton (scx_<name>__destroy). */
	void (*destroy)(struct scxk_run *run);
	/* The stats this scheduler serves on its socket (optional). */
	const struct scxk_sched_stats *stats;
};

/*
 * The stats a scheduler serves: its table, which is the stats list of its
 * intf.h expanded with SCXK_STAT_DESC (scxkit/stats_ids.h), and a hook for
 * the values (VAL) only the scheduler can compute. libscxkit does the rest:
 * it sums the BPF counters, keeps each client's previous read, serves CNT
 * fields as deltas and TOT fields as totals, and answers stats_meta.
 */
struct scxk_sched_stats {
	const char *name; /* the struct name in stats_meta, e.g. "Metrics" */
	const char *desc; /* one line about it */
	const struct scxk_stat_desc *fields;
	size_t nr_fields;
	size_t state_size; /* the scheduler's own state per client (r->state); 0 for none */
	/* the structs its DICT fields hold (stats_meta declares them) */
	const struct scxk_stats_struct *subs;
	size_t nr_subs;
	/* targets besides "top"; their collect()'s ctx is the struct scxk_run * */
	const struct scxk_stats_target *targets;
	size_t nr_targets;
	/*
	 * Optional: set the VAL fields with scxk_stats_set*(); r->delta holds
	 * the counters' deltas for values derived from them. 0 or -errno (the
	 * response's errno). Runs on the stats thread, so anything it shares
	 * with the main thread needs its own locking.
	 */
	int (*collect)(struct scxk_run *run, struct scxk_stats_read *r);
};

struct scxk_run {
	const struct scxk_sched *sched;
	struct scxk_common_opts common;
	struct scxk_topo *topo;
	void *skel;
	struct bpf_object *obj;
	struct bpf_object_skeleton *skeleton;
	struct bpf_link *link;
	volatile struct scxk_uei *uei; /* mmaped .data.uei, valid after load */
	unsigned int restarts;
	/* The scheduler's own state for the loaded object: set in configure, freed in destroy. */
	void *priv;
};

/**
 * scxk_open_opts - libbpf's open options from the command line (upstream's
 *                  --relaxed-maps, --pin-root-path, --kconfig,
 *                  --btf-custom-path, --bpf-token-path); unset ones keep
 *                  libbpf's defaults
 */
void scxk_open_opts(const struct scxk_common_opts *c, struct bpf_object_open_opts *opts);

/**
 * SCXK_SKEL_OPEN - define a scheduler's .open hook for its bpftool skeleton
 * @fn: the hook's name
 * @skel_t: the skeleton's type, e.g. scx_minimal (bpftool gen skeleton)
 *
 * Every scheduler opens its skeleton and records it in the run the same
 * way; only the skeleton's type differs, and that is a name, so this is a
 * macro. It needs <scxkit/log.h> for scxk_err() and <bpf/libbpf.h>.
 */
#define SCXK_SKEL_OPEN(fn, skel_t)                                                                 \
	static int fn(struct scxk_run *run)                                                        \
	{                                                                                          \
		LIBBPF_OPTS(bpf_object_open_opts, opts);                                           \
		struct skel_t *skel;                                                               \
                                                                                                   \
		scxk_open_opts(&run->common, &opts);                                               \
		skel = skel_t##__open_opts(&opts);                                                 \
                                                                                                   \
		if (!skel)                                                                         \
			return scxk_err(-errno, "cannot open the BPF skeleton");                   \
		run->skel = skel;                                                                  \
		run->obj = skel->obj;                                                              \
		run->skeleton = skel->skeleton;                                                    \
		return 0;                                                                          \
	}

/**
 * scxk_sched_main - the whole life of a scheduler binary
 * @s: the scheduler's description
 * @argc, @argv: from main()
 *
 * Return: the process exit status (SCXK_EXIT_*).
 */
int scxk_sched_main(const struct scxk_sched *s, int argc, char **argv);

/**
 * scxk_check_system - refuse early, with a clear message, when this
 *                     machine cannot take a scheduler now
 *
 * Checks for /sys/kernel/sched_ext (CONFIG_SCHED_CLASS_EXT), root
 * privileges, and that no other sched_ext scheduler is enabled.
 * Return: 0, or a negative errno after logging the reason.
 */
int scxk_check_system(void);

/** scxk_obj_ops_map - the object's struct_ops map (its sched_ext_ops), or NULL */
struct bpf_map *scxk_obj_ops_map(struct bpf_object *obj);

/**
 * scxk_obj_set_var - write global variable @var of section @sec (".rodata",
 *                    ".bss", ...) before load
 * Return: 0, -ENOENT if the section or variable does not exist, -EINVAL on
 * a size mismatch.
 */
int scxk_obj_set_var(struct bpf_object *obj, const char *sec, const char *var, const void *val,
		     size_t size);

/**
 * scxk_obj_set_ops_field - write member @field of the scheduler's
 *                          sched_ext_ops before load; integer members only
 * Return: 0, -ENOENT if the member does not exist in this build's BTF.
 */
int scxk_obj_set_ops_field(struct bpf_object *obj, const char *field, uint64_t val);

/**
 * scxk_obj_get_ops_field - read integer member @field of the scheduler's
 *                          sched_ext_ops before load
 * Return: 0, -ENOENT if the member does not exist in this build's BTF.
 */
int scxk_obj_get_ops_field(struct bpf_object *obj, const char *field, uint64_t *val);

/**
 * scxk_ops_flags_translate - ops flags compiled against one kernel's values,
 *                            as the running kernel spells them
 * @built: the BPF object's BTF (where enum scx_ops_flags gives the names)
 * @kernel: the running kernel's BTF
 * @flags: the ops table's flags as compiled
 * @partial: also set SCX_OPS_SWITCH_PARTIAL (--partial)
 * @out: the flags to load
 *
 * Each bit is matched by name, so a kernel that renumbered a flag gets its
 * own value, and a flag an older kernel lacks is dropped (logged), as the
 * kernel's compat.h does with its "enum or zero" lookups.
 * Return: 0 or a negative errno (logged).
 */
int scxk_ops_flags_translate(const struct btf *built, const struct btf *kernel, uint64_t flags,
			     bool partial, uint64_t *out);

/*
 * scxk_obj_fit_kernel()'s "this kernel lacks a kfunc the scheduler cannot do
 * without": the loader exits SCXK_EXIT_USAGE, the kernel untouched.
 */
#define SCXK_ERR_KERNEL (-ENOPKG)

/**
 * scxk_obj_fit_kernel - fit the ops table to the running kernel before load
 * @obj: the opened object
 * @elf: the object file it was opened from (the skeleton's data)
 * @elf_sz: its size
 * @partial: --partial (SCX_OPS_SWITCH_PARTIAL)
 *
 * Refuses a kernel that lacks a kfunc or kernel variable the object needs
 * (one not declared __weak), naming each. Rewrites the flags for the
 * running kernel (scxk_ops_flags_translate()) and leaves out each callback
 * the kernel's sched_ext_ops lacks, with a one-line notice (libbpf would
 * refuse the whole table otherwise).
 * Return: 0, SCXK_ERR_KERNEL, or another negative errno (all logged).
 */
int scxk_obj_fit_kernel(struct bpf_object *obj, const void *elf, size_t elf_sz, bool partial);

/**
 * scxk_obj_fit_btf - scxk_obj_fit_kernel() against @kernel, a kernel's BTF,
 *                    named @release in messages (for tests)
 */
int scxk_obj_fit_btf(struct bpf_object *obj, const void *elf, size_t elf_sz,
		     const struct btf *kernel, const char *release, bool partial);

/**
 * scxk_obj_print_features - --features: what @obj asks of the kernel and
 *                           whether the kernel has it
 * @obj: the opened object (nothing is loaded)
 * @elf: the object file it was opened from (the skeleton's data)
 * @elf_sz: its size
 * @prog: the binary's name, for the heading
 * @btf_path: a kernel's BTF to check instead of the running kernel's (a
 *            vmlinux or raw BTF file: --btf-custom-path), or NULL
 * @out: where the table goes, one feature per line: kind, name, yes/no
 *
 * Lists the ops flags the table sets (and --partial's), the callbacks it
 * defines, and the kfuncs and kernel variables its code references, each
 * matched by name in the kernel's BTF, then a verdict line.
 * Return: 0 when the scheduler runs on that kernel, SCXK_ERR_KERNEL when
 * its loader would refuse it, another negative errno (logged) when the BTF
 * cannot be read or has no sched_ext.
 */
int scxk_obj_print_features(struct bpf_object *obj, const void *elf, size_t elf_sz,
			    const char *prog, const char *btf_path, FILE *out);

/**
 * scxk_obj_print_btf - scxk_obj_print_features()'s table and verdict
 *                      against @kernel, a kernel's BTF, without the heading
 */
int scxk_obj_print_btf(struct bpf_object *obj, const void *elf, size_t elf_sz,
		       const struct btf *kernel, FILE *out);

/**
 * scxk_counters_read - sum the per-CPU BPF counters (scxk_stat_add) over CPUs
 * @obj: the loaded object
 * @out: receives SCXK_MAX_COUNTERS values
 * Return: 0 or a negative errno.
 */
int scxk_counters_read(struct bpf_object *obj, uint64_t out[SCXK_MAX_COUNTERS]);

/**
 * scxk_sched_stats_start - serve @run's stats (run->sched->stats) on its socket
 * @run: the attached run; must outlive the server
 * @out: set to the server on success
 *
 * Checks the table first (scxk_stats_check_fields()), so a broken one is
 * reported instead of served.
 * Return: 0 or a negative errno (as scxk_stats_server_start()).
 */
int scxk_sched_stats_start(struct scxk_run *run, struct scxk_sched_stats_server **out);

/** scxk_sched_stats_stop - stop a server from scxk_sched_stats_start() (NULL is fine) */
void scxk_sched_stats_stop(struct scxk_sched_stats_server *srv);

/** scxk_sched_stats_print_meta - --help-stats: one line per served field of @st */
void scxk_sched_stats_print_meta(const struct scxk_sched_stats *st, FILE *out);

/** scxk_exiting - true once SIGINT/SIGTERM arrived (for long ticks) */
bool scxk_exiting(void);

#endif /* __SCXKIT_SCHED_H */
