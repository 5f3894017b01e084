/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * alloc.h - layer sizing and core allocation, pure functions of their
 * inputs (no I/O, no globals) so the host tests drive them with synthetic
 * topologies and utilisation.
 *
 * Every interval the loader measures each layer's utilisation (CPU time
 * per wall time, in CPUs), asks strata_target_cpus() how many CPUs each
 * Confined/Grouped layer should own, and strata_alloc() turns those counts
 * into whole cores picked in each layer's growth order. CPUs left over
 * belong to the Open layers (STRATA_OWNER_OPEN).
 */
#ifndef __STRATA_ALLOC_H
#define __STRATA_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include <scxkit/topo_data.h>

#include "config.h"

struct strata_alloc_layer {
	enum strata_kind kind;
	unsigned int weight;
	enum strata_growth growth;
	unsigned int min_cpus, max_cpus; /* resolved cpus_range / cpus_range_frac */
	unsigned int nr_nodes, nodes[STRATA_MAX_LIST];
	unsigned int nr_llcs, llcs[STRATA_MAX_LIST];
};

/**
 * strata_layer_bounds - the layer's [min, max] CPUs on a machine of @nr_cpus
 * cpus_range is clamped to the machine; cpus_range_frac is rounded up
 * to whole CPUs (max at least 1); neither given means [0, @nr_cpus].
 */
void strata_layer_bounds(const struct strata_layer_cfg *l, unsigned int nr_cpus,
			 unsigned int *min_cpus, unsigned int *max_cpus);

/**
 * strata_target_cpus - how many CPUs a layer should own next
 * @util: utilisation measured over the last interval, in CPUs (1.0 = one CPU busy)
 * @cur: CPUs it owns now
 * @lo, @hi: util_range, the wanted per-CPU utilisation band
 * @min_cpus, @max_cpus: from strata_layer_bounds()
 * @has_tasks: a layer with tasks keeps at least one CPU (if @max_cpus allows)
 *
 * Grows at once to ceil(@util / @hi) when the layer's CPUs are too busy,
 * shrinks towards floor(@util / @lo) when they are too idle, but only by
 * half the gap per interval (rounded up), so a brief lull does not hand
 * away CPUs that a bursty layer needs back a moment later.
 * Return: the target, within [@min_cpus, @max_cpus].
 */
unsigned int strata_target_cpus(double util, unsigned int cur, double lo, double hi,
				unsigned int min_cpus, unsigned int max_cpus, bool has_tasks);

/**
 * strata_growth_order - the layer's cores in the order it acquires them
 * @t: topology
 * @l: the layer
 * @idx, @nr_layers: the layer's position (Sticky spaces layers evenly)
 * @prev_owner: per-CPU owner before this round (locality: the node where
 *              the layer already has most cores comes first)
 * @order: receives core ids (dense, as in @t), at most t->nr_cores
 * Return: number of cores in @order (cores outside "nodes"/"llcs" are left out).
 */
unsigned int strata_growth_order(const struct scxk_topo_data *t, const struct strata_alloc_layer *l,
				 unsigned int idx, unsigned int nr_layers,
				 const uint8_t *prev_owner, unsigned int *order);

/**
 * strata_alloc - give whole cores to layers
 * @t: topology
 * @layers, @nr_layers: the layers, in config order
 * @target: CPUs each layer should own (ignored for Open layers)
 * @owner: in: each CPU's owner in the previous round (layer index or
 *         STRATA_OWNER_OPEN); out: the new owners
 *
 * Targets are rounded up to whole cores. When they do not fit, every layer
 * first gets its minimum, then cores go one at a time to the layer with
 * the fewest cores per unit of weight (a weighted water-fill). If any Open
 * layer exists one core stays unowned for it. A layer keeps the cores it
 * already had where it can, then takes free cores in its growth order.
 * Return: the number of CPUs left to the Open layers.
 */
unsigned int strata_alloc(const struct scxk_topo_data *t, const struct strata_alloc_layer *layers,
			  unsigned int nr_layers, const unsigned int *target, uint8_t *owner);

#endif /* __STRATA_ALLOC_H */
