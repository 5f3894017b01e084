/* SPDX-License-Identifier: GPL-2.0-only */
/* exit.h - process exit codes of every scxkit binary. */
#ifndef __SCXKIT_EXIT_H
#define __SCXKIT_EXIT_H

#define SCXK_EXIT_OK   0 /* clean detach after SIGINT/SIGTERM */
#define SCXK_EXIT_FAIL 1 /* runtime failure or the kernel ejected the scheduler */
/* Bad option or config, or a kernel without what the scheduler needs; the
 * kernel was not touched. */
#define SCXK_EXIT_USAGE 2
#define SCXK_EXIT_SKIP	77 /* tests: cannot run here (meson's skip code) */

#endif /* __SCXKIT_EXIT_H */
