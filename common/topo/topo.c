// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPU topology from sysfs. Only cpu/possible is mandatory: everything else
 * (topology/, cache/, cpufreq/, node/) may be missing on some kernels,
 * virtual machines or for offline CPUs, and is then replaced by the most
 * conservative guess. Malformed content is an error, though, because it
 * means we are not reading what we think we are reading.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scxkit/fileio.h>
#include <scxkit/log.h>
#include <scxkit/topo.h>

/* Larger than any cpulist or hex mask sysfs prints for 8192 CPUs. */
#define SYSFS_BUF_LEN 8192
/* Small files (levels, types, frequencies). */
#define SYSFS_SMALL_LEN 64
/* No CPU has this many cache leaves; bounds the scan of cache/indexN. */
#define MAX_CACHE_INDEX 32
/* The level that is the LLC on nearly every machine (L4 eDRAM is a victim cache). */
#define LLC_PREFERRED_LEVEL 3
#define DECIMAL_BASE	    10

struct reader {
	char prefix[PATH_MAX]; /* root without trailing slashes; "" for "/" */
	char path[PATH_MAX];   /* last path built, for error messages */
};

static int vbuild_path(struct reader *r, const char *fmt, va_list ap)
{
	char rel[PATH_MAX];
	int n;

	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = snprintf(r->path, sizeof(r->path), "%s/sys/devices/system/%s", r->prefix, rel);
	if (n < 0 || (size_t)n >= sizeof(r->path))
		return -ENAMETOOLONG;
	return 0;
}

/* Read a whole file into @buf as a string. Return: 0 or -errno (not logged). */
static int read_whole(const char *path, char *buf, size_t len)
{
	ssize_t n = scxk_read_file(path, buf, len);

	if (n < 0)
		return (int)n;
	if ((size_t)n == len - 1)
		return -EFBIG; /* sysfs never prints this much into the files we read */
	return 0;
}

static int vread_text(struct reader *r, char *buf, size_t len, const char *fmt, va_list ap)
{
	int err = vbuild_path(r, fmt, ap);

	if (err) {
		scxk_warn("sysfs path too long under %s", r->prefix);
		return err;
	}
	return read_whole(r->path, buf, len);
}

__attribute__((format(printf, 4, 5))) static int read_text(struct reader *r, char *buf, size_t len,
							   const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vread_text(r, buf, len, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * Optional CPU list: *@present says whether it could be read. Any read
 * error counts as absent, since cpufreq answers -EBUSY for the policy of
 * an offline CPU and other optional files behave similarly.
 * Return: 0, or a logged parse error.
 */
__attribute__((format(printf, 5, 6))) static int read_mask_opt(struct reader *r,
							       struct scxk_cpumask *m, int nr_cpus,
							       bool *present, const char *fmt, ...)
{
	char buf[SYSFS_BUF_LEN];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vread_text(r, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*present = !err;
	if (err)
		return 0;
	err = scxk_cpulist_parse(buf, m, nr_cpus);
	if (err)
		return scxk_err(err, "malformed CPU list in %s", r->path);
	return 0;
}

/* Optional unsigned number, same conventions as read_mask_opt(). */
__attribute__((format(printf, 4, 5))) static int read_uint_opt(struct reader *r, unsigned long *v,
							       bool *present, const char *fmt, ...)
{
	char buf[SYSFS_SMALL_LEN] = "", *end;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vread_text(r, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	*present = !err;
	if (err)
		return 0;
	errno = 0;
	*v = strtoul(buf, &end, DECIMAL_BASE);
	while (*end == ' ' || *end == '\n')
		end++;
	if (buf[0] < '0' || buf[0] > '9' || *end || errno)
		return scxk_err(-EINVAL, "malformed number in %s", r->path);
	return 0;
}

/* Dense id of @m among @groups, appending it when new. */
static int group_id(struct scxk_cpumask *groups, int *nr, const struct scxk_cpumask *m)
{
	for (int i = 0; i < *nr; i++)
		if (scxk_cpumask_equal(&groups[i], m))
			return i;
	groups[*nr] = *m;
	return (*nr)++;
}

static int read_cpu_masks(struct reader *r, struct scxk_topo *t)
{
	char buf[SYSFS_BUF_LEN];
	int err;

	err = read_text(r, buf, sizeof(buf), "cpu/possible");
	if (err)
		return scxk_err(err, "cannot read %s", r->path);
	err = scxk_cpulist_parse(buf, &t->possible, SCXK_MAX_CPUS);
	if (err == -ERANGE)
		return scxk_err(err, "%s lists CPUs beyond the supported %d", r->path,
				SCXK_MAX_CPUS);
	if (err)
		return scxk_err(err, "malformed CPU list in %s", r->path);
	if (scxk_cpumask_empty(&t->possible))
		return scxk_err(-EINVAL, "%s lists no CPU", r->path);
	t->nr_cpu_ids = scxk_cpumask_last(&t->possible) + 1;

	err = read_text(r, buf, sizeof(buf), "cpu/online");
	if (err) {
		scxk_dbg("cannot read %s, assuming every possible CPU is online", r->path);
		t->online = t->possible;
		return 0;
	}
	err = scxk_cpulist_parse(buf, &t->online, t->nr_cpu_ids);
	if (err)
		return scxk_err(err, "malformed CPU list in %s", r->path);
	scxk_cpumask_and(&t->online, &t->online, &t->possible);
	return 0;
}

static int alloc_arrays(struct scxk_topo *t)
{
	size_t n = t->nr_cpu_ids;

	t->core_id = calloc(n, sizeof(*t->core_id));
	t->llc_id = calloc(n, sizeof(*t->llc_id));
	t->node_id = calloc(n, sizeof(*t->node_id));
	t->capacity = calloc(n, sizeof(*t->capacity));
	t->max_freq_khz = calloc(n, sizeof(*t->max_freq_khz));
	t->big = calloc(n, sizeof(*t->big));
	/* every CPU starts at most one core and one LLC */
	t->core_cpus = calloc(n, sizeof(*t->core_cpus));
	t->llc_cpus = calloc(n, sizeof(*t->llc_cpus));
	t->llc_node = calloc(n, sizeof(*t->llc_node));
	if (!t->core_id || !t->llc_id || !t->node_id || !t->capacity || !t->max_freq_khz ||
	    !t->big || !t->core_cpus || !t->llc_cpus || !t->llc_node)
		return scxk_err(-ENOMEM, "cannot allocate the topology of %zu CPUs", n);
	for (size_t i = 0; i < n; i++)
		t->core_id[i] = t->llc_id[i] = t->node_id[i] = -1;
	return 0;
}

static int single_node(struct scxk_topo *t)
{
	int cpu;

	free(t->node_cpus);
	free(t->node_sysfs_id);
	t->node_cpus = calloc(1, sizeof(*t->node_cpus));
	t->node_sysfs_id = calloc(1, sizeof(*t->node_sysfs_id));
	if (!t->node_cpus || !t->node_sysfs_id)
		return scxk_err(-ENOMEM, "cannot allocate the node table");
	t->nr_nodes = 1;
	/* like the per-node cpulist files on x86, which drop offline CPUs */
	t->node_cpus[0] = t->online;
	scxk_cpumask_for_each (cpu, &t->possible)
		t->node_id[cpu] = 0;
	return 0;
}

/*
 * Numbers N of the nodeN directories. The kernel caps MAX_NUMNODES at 1024,
 * so a CPU-sized bitmap holds them and yields them in numeric order.
 */
static int list_node_dirs(struct reader *r, struct scxk_cpumask *ids)
{
	const size_t pfx = strlen("node");
	struct dirent *de;
	DIR *d;
	int n;

	scxk_cpumask_zero(ids);
	n = snprintf(r->path, sizeof(r->path), "%s/sys/devices/system/node", r->prefix);
	if (n < 0 || (size_t)n >= sizeof(r->path))
		return scxk_err(-ENAMETOOLONG, "sysfs path too long under %s", r->prefix);
	d = opendir(r->path);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return scxk_err(-errno, "cannot open %s", r->path);
	}
	while ((de = readdir(d))) {
		const char *s = de->d_name;
		char *end;
		long id;

		if (strncmp(s, "node", pfx) || s[pfx] < '0' || s[pfx] > '9')
			continue;
		id = strtol(s + pfx, &end, DECIMAL_BASE);
		if (*end)
			continue;
		if (id >= SCXK_MAX_CPUS)
			scxk_warn("ignoring %s/%s: node number too large", r->path, s);
		else
			scxk_cpumask_set(ids, (int)id);
	}
	closedir(d);
	return 0;
}

/*
 * Nodes without CPUs (memory-only, CXL) get no dense id: schedulers only
 * care about nodes they can run tasks on.
 */
static int read_nodes(struct reader *r, struct scxk_topo *t)
{
	struct scxk_cpumask ids;
	int nr, id, err, cpu;

	if ((err = list_node_dirs(r, &ids)))
		return err;
	nr = scxk_cpumask_weight(&ids);
	if (!nr) {
		scxk_dbg("no NUMA node directory under %s, assuming one node", r->prefix);
		return single_node(t);
	}
	t->node_cpus = calloc(nr, sizeof(*t->node_cpus));
	t->node_sysfs_id = calloc(nr, sizeof(*t->node_sysfs_id));
	if (!t->node_cpus || !t->node_sysfs_id)
		return scxk_err(-ENOMEM, "cannot allocate the node table");
	scxk_cpumask_for_each (id, &ids) {
		struct scxk_cpumask m;
		bool present;

		err = read_mask_opt(r, &m, t->nr_cpu_ids, &present, "node/node%d/cpulist", id);
		if (err)
			return err;
		if (!present || scxk_cpumask_empty(&m))
			continue;
		t->node_sysfs_id[t->nr_nodes] = id;
		t->node_cpus[t->nr_nodes] = m;
		scxk_cpumask_for_each (cpu, &m) {
			if (t->node_id[cpu] < 0)
				t->node_id[cpu] = t->nr_nodes;
		}
		t->nr_nodes++;
	}
	if (!t->nr_nodes)
		return single_node(t);
	/* x86 drops offline CPUs from the node lists; with one node there is no doubt */
	if (t->nr_nodes == 1) {
		scxk_cpumask_for_each (cpu, &t->possible)
			t->node_id[cpu] = 0;
	}
	return 0;
}

static int read_core(struct reader *r, struct scxk_topo *t, int cpu)
{
	struct scxk_cpumask m;
	bool present;
	int err;

	err = read_mask_opt(r, &m, t->nr_cpu_ids, &present, "cpu/cpu%d/topology/core_cpus_list",
			    cpu);
	if (!err && !present)
		err = read_mask_opt(r, &m, t->nr_cpu_ids, &present,
				    "cpu/cpu%d/topology/thread_siblings_list", cpu);
	if (err)
		return err;
	if (!present) {
		if (!scxk_cpumask_test(&t->online, cpu))
			return 0; /* offline: unknown, core_id stays -1 */
		scxk_dbg("cpu%d has no topology, treating it as a core of its own", cpu);
		scxk_cpumask_zero(&m);
	}
	/* an offline CPU's own directory may list only online siblings */
	scxk_cpumask_set(&m, cpu);
	t->core_id[cpu] = group_id(t->core_cpus, &t->nr_cores, &m);
	return 0;
}

/* Index N of cpu@cpu/cache/indexN holding the LLC, or -1 without cache info. */
static int find_llc_index(struct reader *r, int cpu, int *index)
{
	unsigned long best_level = 0;
	int err;

	*index = -1;
	for (int i = 0; i < MAX_CACHE_INDEX; i++) {
		char type[SYSFS_SMALL_LEN];
		unsigned long level;
		bool present;

		err = read_uint_opt(r, &level, &present, "cpu/cpu%d/cache/index%d/level", cpu, i);
		if (err)
			return err;
		if (!present)
			break; /* the kernel numbers the leaves without holes */
		if (!read_text(r, type, sizeof(type), "cpu/cpu%d/cache/index%d/type", cpu, i) &&
		    !strncmp(type, "Instruction", strlen("Instruction")))
			continue;
		if (best_level == LLC_PREFERRED_LEVEL)
			continue;
		if (level == LLC_PREFERRED_LEVEL || level > best_level) {
			best_level = level;
			*index = i;
		}
	}
	return 0;
}

static int read_llc(struct reader *r, struct scxk_topo *t, int cpu)
{
	struct scxk_cpumask m;
	bool present = false;
	int idx, err;

	if ((err = find_llc_index(r, cpu, &idx)))
		return err;
	if (idx >= 0)
		err = read_mask_opt(r, &m, t->nr_cpu_ids, &present,
				    "cpu/cpu%d/cache/index%d/shared_cpu_list", cpu, idx);
	/* without cache info, the package is the best available guess */
	if (!err && !present)
		err = read_mask_opt(r, &m, t->nr_cpu_ids, &present,
				    "cpu/cpu%d/topology/package_cpus_list", cpu);
	if (!err && !present)
		err = read_mask_opt(r, &m, t->nr_cpu_ids, &present,
				    "cpu/cpu%d/topology/core_siblings_list", cpu);
	if (err)
		return err;
	if (!present) {
		if (!scxk_cpumask_test(&t->online, cpu))
			return 0; /* offline: unknown, llc_id stays -1 */
		scxk_dbg("cpu%d has no cache information, using its core as LLC", cpu);
		if (t->core_id[cpu] >= 0)
			m = t->core_cpus[t->core_id[cpu]];
		else
			scxk_cpumask_zero(&m);
	}
	scxk_cpumask_set(&m, cpu);
	t->llc_id[cpu] = group_id(t->llc_cpus, &t->nr_llcs, &m);
	return 0;
}

static int read_capacities(struct reader *r, struct scxk_topo *t)
{
	struct scxk_cpumask have_cap, have_freq;
	unsigned long v, top_freq = 0;
	unsigned int lo = SCXK_CAPACITY_MAX, hi = 0;
	bool present;
	int cpu, err;

	scxk_cpumask_zero(&have_cap);
	scxk_cpumask_zero(&have_freq);
	scxk_cpumask_for_each (cpu, &t->possible) {
		if ((err = read_uint_opt(r, &v, &present, "cpu/cpu%d/cpu_capacity", cpu)))
			return err;
		if (present) {
			t->capacity[cpu] = v > SCXK_CAPACITY_MAX ? SCXK_CAPACITY_MAX : v;
			scxk_cpumask_set(&have_cap, cpu);
		}
		err = read_uint_opt(r, &v, &present, "cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
		if (err)
			return err;
		if (present && v && v <= UINT_MAX) {
			t->max_freq_khz[cpu] = v;
			scxk_cpumask_set(&have_freq, cpu);
			if (v > top_freq)
				top_freq = v;
		}
	}

	scxk_cpumask_for_each (cpu, &t->possible) {
		/* a CPU the chosen source says nothing about: offline ones stay unknown */
		unsigned int unknown = scxk_cpumask_test(&t->online, cpu) ? SCXK_CAPACITY_MAX : 0;

		if (!scxk_cpumask_empty(&have_cap)) {
			if (!scxk_cpumask_test(&have_cap, cpu))
				t->capacity[cpu] = unknown;
		} else if (top_freq) {
			uint64_t f = t->max_freq_khz[cpu];

			if (scxk_cpumask_test(&have_freq, cpu))
				t->capacity[cpu] =
					(f * SCXK_CAPACITY_MAX + top_freq / 2) / top_freq;
			else
				t->capacity[cpu] = unknown;
			if (f && !t->capacity[cpu])
				t->capacity[cpu] = 1;
		} else {
			t->capacity[cpu] = SCXK_CAPACITY_MAX;
		}
		if (t->capacity[cpu] && t->capacity[cpu] < lo)
			lo = t->capacity[cpu];
		if (t->capacity[cpu] > hi)
			hi = t->capacity[cpu];
	}
	t->hybrid = hi && lo < hi;
	scxk_cpumask_for_each (cpu, &t->possible)
		t->big[cpu] = t->hybrid && t->capacity[cpu] == hi;
	return 0;
}

static void finish(struct scxk_topo *t)
{
	for (int i = 0; i < t->nr_cores; i++)
		if (scxk_cpumask_weight(&t->core_cpus[i]) > 1)
			t->smt = true;
	for (int i = 0; i < t->nr_llcs; i++) {
		int cpu;

		t->llc_node[i] = -1;
		scxk_cpumask_for_each (cpu, &t->llc_cpus[i]) {
			if (t->node_id[cpu] >= 0) {
				t->llc_node[i] = t->node_id[cpu];
				break;
			}
		}
	}
}

static int reader_init(struct reader *r, const char *root)
{
	size_t len = strlen(root);

	while (len && root[len - 1] == '/')
		len--;
	if (len >= sizeof(r->prefix))
		return scxk_err(-ENAMETOOLONG, "sysfs prefix too long: %s", root);
	memcpy(r->prefix, root, len);
	r->prefix[len] = '\0';
	r->path[0] = '\0';
	return 0;
}

int scxk_topo_read_at(const char *root, struct scxk_topo **out)
{
	struct scxk_topo *t;
	struct reader *r;
	int cpu, err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!root)
		root = "/";
	r = malloc(sizeof(*r)); /* two PATH_MAX buffers: keep them off the stack */
	t = calloc(1, sizeof(*t));
	if (!r || !t) {
		err = scxk_err(-ENOMEM, "cannot allocate the topology");
		goto out;
	}
	if ((err = reader_init(r, root)) || (err = read_cpu_masks(r, t)) ||
	    (err = alloc_arrays(t)) || (err = read_nodes(r, t)))
		goto out;
	scxk_cpumask_for_each (cpu, &t->possible) {
		if ((err = read_core(r, t, cpu)))
			goto out;
	}
	/* second pass: the LLC fallback may use the core of the CPU */
	scxk_cpumask_for_each (cpu, &t->possible) {
		if ((err = read_llc(r, t, cpu)))
			goto out;
	}
	if ((err = read_capacities(r, t)))
		goto out;
	finish(t);
	*out = t;
	t = NULL;
out:
	scxk_topo_free(t);
	free(r);
	return err;
}

int scxk_topo_read(struct scxk_topo **out)
{
	const char *prefix = getenv(SCXK_SYSFS_PREFIX_ENV);

	return scxk_topo_read_at(prefix && *prefix ? prefix : "/", out);
}

void scxk_topo_free(struct scxk_topo *t)
{
	if (!t)
		return;
	free(t->core_id);
	free(t->llc_id);
	free(t->node_id);
	free(t->capacity);
	free(t->max_freq_khz);
	free(t->big);
	free(t->core_cpus);
	free(t->llc_cpus);
	free(t->llc_node);
	free(t->node_cpus);
	free(t->node_sysfs_id);
	free(t);
}

static const char *list(const struct scxk_cpumask *m, char *buf)
{
	if (scxk_cpumask_format_list(m, buf, SCXK_CPULIST_BUF_LEN) < 0)
		return "?";
	return buf[0] ? buf : "none";
}

static void print_capacities(const struct scxk_topo *t, FILE *f, char *buf)
{
	unsigned int prev = SCXK_CAPACITY_MAX + 1;

	/* one line per distinct capacity, fastest first */
	for (;;) {
		struct scxk_cpumask m;
		unsigned int cur = 0;
		int cpu;

		scxk_cpumask_for_each (cpu, &t->possible)
			if (t->capacity[cpu] < prev && t->capacity[cpu] > cur)
				cur = t->capacity[cpu];
		if (!cur)
			break;
		scxk_cpumask_zero(&m);
		scxk_cpumask_for_each (cpu, &t->possible)
			if (t->capacity[cpu] == cur)
				scxk_cpumask_set(&m, cpu);
		fprintf(f, "  capacity %u: %s\n", cur, list(&m, buf));
		prev = cur;
	}
}

void scxk_topo_print(const struct scxk_topo *t, FILE *f)
{
	char buf[SCXK_CPULIST_BUF_LEN];
	struct scxk_cpumask offline;

	if (!t || !f)
		return;
	scxk_cpumask_andnot(&offline, &t->possible, &t->online);
	fprintf(f, "CPUs: %d possible (%s)", scxk_cpumask_weight(&t->possible),
		list(&t->possible, buf));
	if (!scxk_cpumask_empty(&offline))
		fprintf(f, ", offline %s", list(&offline, buf));
	fprintf(f, "\ncores: %d%s\n", t->nr_cores, t->smt ? " (SMT)" : "");
	fprintf(f, "LLCs: %d\n", t->nr_llcs);
	for (int i = 0; i < t->nr_llcs; i++)
		fprintf(f, "  llc %d: %s (node %d)\n", i, list(&t->llc_cpus[i], buf),
			t->llc_node[i]);
	fprintf(f, "nodes: %d\n", t->nr_nodes);
	for (int i = 0; i < t->nr_nodes; i++)
		fprintf(f, "  node %d (sysfs node%d): %s\n", i, t->node_sysfs_id[i],
			list(&t->node_cpus[i], buf));
	if (t->hybrid) {
		fprintf(f, "hybrid:\n");
		print_capacities(t, f, buf);
	}
}
