// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_cadence: sampling. While the loader asks for it (cadence_smp_ctl),
 * ops.running() writes one record of the task's criticality and placement
 * per interval and CPU to a ring buffer, which the loader prints; off, it
 * costs one map lookup per schedule.
 */
#include "cadence.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} cadence_samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct cadence_sample_ctl);
} cadence_smp_ctl SEC(".maps");

__hidden void emit_sample(struct task_struct *p, struct task_ctx *tctx, struct cpu_ctx *c, s32 cpu,
			  u64 now)
{
	struct cadence_sample_ctl *ctl;
	struct cadence_sample *s;
	u32 zero = 0;

	ctl = bpf_map_lookup_elem(&cadence_smp_ctl, &zero);
	if (!ctl || !scxk_time_before(bpf_ktime_get_ns(), ctl->until_ns) ||
	    now - c->last_sample < ctl->interval_ns)
		return;
	c->last_sample = now;
	s = bpf_ringbuf_reserve(&cadence_samples, sizeof(*s), 0);
	if (!s)
		return;
	s->ts = now;
	s->pid = p->pid;
	s->cpu = cpu;
	__builtin_memcpy(s->comm, p->comm, sizeof(s->comm));
	s->lat_cri = tctx->lat_cri;
	s->perf_cri = tctx->perf_cri;
	s->wait_freq = tctx->wait_freq;
	s->wake_freq = tctx->wake_freq;
	s->avg_runtime_ns = tctx->avg_runtime;
	s->slice_ns = p->scx.slice;
	s->dl_delta_ns = tctx->dl_delta;
	s->norm_lat_cri = cadence_normalize(tctx->lat_cri, sys.max_lat_cri);
	s->dom = dom_of(cpu);
	s->big = scxk_cpu_is_big(cpu);
	s->lock_holder = tctx->lock_held;
	/* A wakeup from a CPU going down would never run (scxk_this_cpu_online()). */
	bpf_ringbuf_submit(s, scxk_this_cpu_online() ? 0 : BPF_RB_NO_WAKEUP);
}
