// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exit info, copied out of the kernel when the scheduler is disabled. The
 * dump buffer sits in its own section so that user space can resize it to
 * --exit-dump-len before load; scxk_uei_dump_len is set to the same size
 * and, being read-only data, is a known constant for the verifier.
 */
#include <scxkit/common.bpf.h>
#include <scxkit/uei.bpf.h>

struct scxk_uei scxk_uei SEC(".data.uei");
char scxk_uei_dump[SCXK_UEI_DUMP_DFL_LEN] SEC(".data.uei_dump");
const volatile u32 scxk_uei_dump_len = SCXK_UEI_DUMP_DFL_LEN;

/*
 * Never called: its signature puts enum scx_ops_flags into every
 * scheduler's BTF (a variable would put it in the skeleton, which user
 * space cannot compile), so the loader can translate the ops table's
 * flags, compiled against one kernel's values, to the running kernel's by
 * name (scxk_obj_fit_kernel()). libbpf loads no code for it.
 */
__weak int scxk_ops_flags_btf(enum scx_ops_flags f)
{
	return f != 0;
}

__hidden void scxk_uei_record(struct scx_exit_info *ei)
{
	bpf_probe_read_kernel_str(scxk_uei.reason, sizeof(scxk_uei.reason), ei->reason);
	bpf_probe_read_kernel_str(scxk_uei.msg, sizeof(scxk_uei.msg), ei->msg);
	bpf_probe_read_kernel_str(scxk_uei_dump, scxk_uei_dump_len, ei->dump);
	scxk_uei.exit_code = ei->exit_code;
	/* exit_cpu is newer than 6.19: -1 (unknown) there. */
	scxk_uei.exit_cpu = bpf_core_field_exists(ei->exit_cpu) ? BPF_CORE_READ(ei, exit_cpu) : -1;
	/* kind last: user space polls it and then trusts the other fields */
	asm volatile("" ::: "memory");
	scxk_uei.kind = ei->kind;
}
