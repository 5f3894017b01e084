// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU counters, summed by scxk_counters_read() in libscxkit. */
#include <scxkit/common.bpf.h>
#include <scxkit/stats.bpf.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCXK_MAX_COUNTERS);
	__type(key, u32);
	__type(value, u64);
} scxk_counters SEC(".maps");

__hidden void scxk_stat_add(u32 idx, u64 val)
{
	u64 *cnt = bpf_map_lookup_elem(&scxk_counters, &idx);

	if (cnt)
		*cnt += val;
}
