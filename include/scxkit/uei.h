/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uei.h - user exit info: what the BPF side copies out of the kernel's
 * struct scx_exit_info in ops.exit(), for the loader to print.
 */
#ifndef __SCXKIT_UEI_H
#define __SCXKIT_UEI_H

#include <scxkit/types.h>

#define SCXK_UEI_REASON_LEN   128
#define SCXK_UEI_MSG_LEN      1024  /* SCX_EXIT_MSG_LEN */
#define SCXK_UEI_DUMP_DFL_LEN 32768 /* SCX_EXIT_DUMP_DFL_LEN */

/* Exit code bits of the kernel ABI (enum scx_exit_code, since 6.12). */
#define SCXK_ECODE_RSN_HOTPLUG (1ULL << 32)
#define SCXK_ECODE_ACT_RESTART (1ULL << 48)

/* enum scx_exit_kind values (ABI): below 1024 is a normal exit. */
#define SCXK_EXIT_NONE	      0
#define SCXK_EXIT_DONE	      1
#define SCXK_EXIT_UNREG	      64
#define SCXK_EXIT_UNREG_BPF   65
#define SCXK_EXIT_UNREG_KERN  66
#define SCXK_EXIT_SYSRQ	      67
#define SCXK_EXIT_ERROR	      1024
#define SCXK_EXIT_ERROR_BPF   1025
#define SCXK_EXIT_ERROR_STALL 1026

struct scxk_uei {
	s32 kind; /* 0 until the scheduler has exited */
	s32 exit_cpu;
	s64 exit_code;
	char reason[SCXK_UEI_REASON_LEN];
	char msg[SCXK_UEI_MSG_LEN];
};

#endif /* __SCXKIT_UEI_H */
