// SPDX-License-Identifier: GPL-2.0-only
/*
 * scxk-ext CMD [ARGS...] - run CMD under the SCHED_EXT policy.
 *
 * With --partial a scheduler takes only tasks whose policy is SCHED_EXT, so
 * a test that runs ordinary workloads under --partial checks nothing: the
 * scheduler schedules none of them. This sets the policy and execs; the
 * children of CMD inherit it. Exits 1 when the kernel refuses the policy
 * (no sched_ext), 127 when CMD cannot be run.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* include/uapi/linux/sched.h; glibc's headers do not name it yet. */
#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif

int main(int argc, char **argv)
{
	struct sched_param param = {.sched_priority = 0};

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: scxk-ext CMD [ARGS...]\n");
		return argc < 2 ? 2 : 0;
	}
	if (sched_setscheduler(0, SCHED_EXT, &param)) {
		fprintf(stderr, "scxk-ext: cannot set SCHED_EXT: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "scxk-ext: cannot run %s: %s\n", argv[1], strerror(errno));
	return 127;
}
