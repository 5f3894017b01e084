/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * topo.h - the machine's CPU topology as read from sysfs: SMT cores, last
 * level caches, NUMA nodes and CPU capacities, with dense ids so that
 * schedulers can index arrays by them.
 *
 * Everything is read under a prefix so that tests (and debugging of other
 * people's machines) can point it at a copied sysfs tree.
 *
 * Offline CPUs: the kernel removes their topology/ and cache/ directories and
 * drops them from the sibling, cache and (on x86) node lists, so their core
 * and LLC cannot be known. Such CPUs stay in @possible, get core_id and
 * llc_id -1, node_id -1 unless the machine has a single node (then 0), and
 * capacity 0 ("unknown") unless their cpu_capacity or cpufreq files are
 * still readable. Their entries are refreshed by reading the topology again
 * after a hotplug event. The core, LLC and node masks hold what sysfs lists,
 * which (on x86 at least) is online CPUs only: an offline CPU may have a
 * node_id >= 0 yet be absent from node_cpus[node_id]. Code building
 * masks from the per-CPU ids must therefore also test @online.
 */
#ifndef __SCXKIT_TOPO_H
#define __SCXKIT_TOPO_H

#include <stdbool.h>
#include <stdio.h>

#include <scxkit/cpumask.h>

/* Capacity of the fastest CPU, as the kernel scales cpu_capacity. */
#define SCXK_CAPACITY_MAX 1024

/* Environment variable holding the sysfs prefix for scxk_topo_read(). */
#define SCXK_SYSFS_PREFIX_ENV "SCX_SYSFS_PREFIX"

struct scxk_topo {
	int nr_cpu_ids; /* highest possible CPU + 1; per-CPU arrays have this size */
	int nr_cores;
	int nr_llcs;
	int nr_nodes;
	bool smt;    /* some core has more than one CPU */
	bool hybrid; /* known CPU capacities differ */

	struct scxk_cpumask possible;
	struct scxk_cpumask online;

	/* Per CPU, indexed by CPU id; -1 (or 0 for capacity) = unknown. */
	int *core_id;		    /* dense 0..nr_cores-1, unique across packages */
	int *llc_id;		    /* dense 0..nr_llcs-1 */
	int *node_id;		    /* dense 0..nr_nodes-1 */
	unsigned int *capacity;	    /* 1..SCXK_CAPACITY_MAX, 0 = unknown */
	unsigned int *max_freq_khz; /* cpuinfo_max_freq, 0 = no cpufreq */
	bool *big;		    /* hybrid and capacity == the highest capacity */

	/* Per core: its SMT siblings, as sysfs lists them (online CPUs). */
	struct scxk_cpumask *core_cpus;
	/* Per LLC: the CPUs sharing it, and the dense node of its first CPU. */
	struct scxk_cpumask *llc_cpus;
	int *llc_node;
	/* Per node: its CPUs, and N of the sysfs directory nodeN (0 without node/). */
	struct scxk_cpumask *node_cpus;
	int *node_sysfs_id;
};

/**
 * scxk_topo_read_at - read the topology from the sysfs tree under @root
 * @root: prefix, "/" for the running machine; files are read from
 *        @root/sys/devices/system/{cpu,node}/...
 * @out: receives the topology on success, NULL on error; free it with
 *       scxk_topo_free()
 *
 * The LLC of a CPU is its level 3 data/unified cache (cache/index3 on x86
 * and most arm64) or, without L3, its highest-level data/unified cache;
 * without cache information the package is used. Capacities come from
 * cpu_capacity when any CPU has it, else from cpuinfo_max_freq relative to
 * the fastest CPU, else every CPU gets SCXK_CAPACITY_MAX.
 * Errors are logged with the path involved.
 *
 * Return: 0; -ENOENT (or another read errno) if cpu/possible cannot be read;
 * -EINVAL or -ERANGE for malformed sysfs content; -ENOMEM.
 */
int scxk_topo_read_at(const char *root, struct scxk_topo **out);

/**
 * scxk_topo_read - scxk_topo_read_at() under the prefix in the environment
 *                  variable SCX_SYSFS_PREFIX (unset or empty means "/")
 * @out: receives the topology; free it with scxk_topo_free()
 *
 * Return: as scxk_topo_read_at().
 */
int scxk_topo_read(struct scxk_topo **out);

/**
 * scxk_topo_free - release a topology; NULL is allowed
 * @t: topology from scxk_topo_read() or scxk_topo_read_at()
 */
void scxk_topo_free(struct scxk_topo *t);

/**
 * scxk_topo_print - write a short human-readable summary (CPUs, cores, LLCs,
 *                   nodes, capacities when hybrid) for debug output
 * @t: the topology
 * @f: destination stream
 */
void scxk_topo_print(const struct scxk_topo *t, FILE *f);

#endif /* __SCXKIT_TOPO_H */
