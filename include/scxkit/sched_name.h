/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched_name.h - the one limit on a scheduler's name, declared once.
 *
 * A scheduler NAME runs as the binary scx_NAME, and scxctl finds running
 * schedulers by their comm, which the kernel cuts to TASK_COMM_LEN - 1 = 15
 * characters: "scx_" leaves 11. Read by scxctl (registry.c), by meson (every
 * entry of scheds/meson.build is checked at configure time) and by
 * tools/new-scheduler and packaging/gen-packaging, which parse this line.
 */
#ifndef __SCXKIT_SCHED_NAME_H
#define __SCXKIT_SCHED_NAME_H

#define SCXK_SCHED_NAME_MAX 11

#endif /* __SCXKIT_SCHED_NAME_H */
