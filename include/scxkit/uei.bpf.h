/* SPDX-License-Identifier: GPL-2.0-only */
/* uei.bpf.h - record why the kernel stopped the scheduler (common/sched/uei.bpf.c). */
#ifndef __SCXKIT_UEI_BPF_H
#define __SCXKIT_UEI_BPF_H

#include <scxkit/uei.h>

/**
 * scxk_uei_record - copy the kernel's exit info for the loader to report
 * @ei: the argument of ops.exit()
 *
 * Call it from every scheduler's ops.exit(); it is the only way the loader
 * learns the exit kind, the reason, the message and the debug dump.
 */
void scxk_uei_record(struct scx_exit_info *ei);

#endif /* __SCXKIT_UEI_BPF_H */
