/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dsq.h - dispatch queue ids shared by every scheduler. User DSQ ids must
 * keep bit 63 clear (the kernel's built-in queues); the shared layer owns
 * the ranges below and leaves ids under SCXK_DSQ_PRIVATE_MAX to each
 * scheduler's intf.h.
 */
#ifndef __SCXKIT_DSQ_H
#define __SCXKIT_DSQ_H

#define SCXK_DSQ_PRIVATE_MAX (1ULL << 16)
#define SCXK_DSQ_CPU_BASE    (1ULL << 16)
/* (2ULL << 16) held per-LLC queues, which no scheduler used; free */
#define SCXK_DSQ_NODE_BASE (3ULL << 16)

#define SCXK_DSQ_CPU(cpu)   (SCXK_DSQ_CPU_BASE + (cpu))
#define SCXK_DSQ_NODE(node) (SCXK_DSQ_NODE_BASE + (node))

#endif /* __SCXKIT_DSQ_H */
