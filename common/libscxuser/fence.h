/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libscxuser's seccomp fence (internal): after it, the calling thread may
 * no longer create mappings (brk, mmap and mremap fail with EPERM), so an
 * allocation that would need fresh, faulting memory fails instead of
 * stalling the scheduling thread. Other threads are not affected (no TSYNC).
 */
#ifndef SCXU_FENCE_H
#define SCXU_FENCE_H

#include <linux/filter.h>

/*
 * The filter for this build's architecture, or NULL when libscxuser has no
 * syscall table for it (the library then runs unfenced and says so).
 */
const struct sock_fprog *scxu_fence_prog(void);

/*
 * Installs the filter on the calling thread: 0, -ENOSYS without a syscall
 * table for this architecture, -EOPNOTSUPP in sanitizer builds, or the
 * negative errno of seccomp(2).
 */
int scxu_fence_install(void);

#endif
