// SPDX-License-Identifier: GPL-2.0-only
/*
 * scx_relay_fifo - the shortest useful user-space scheduler: every task
 * that needs a decision is sent back at once, first come first served,
 * to whichever CPU frees up first, with the library's default slice.
 * Wakeups that find an idle CPU never reach this loop (the library's BPF
 * side places them directly). Start a new user-space scheduler from here.
 */
#include <errno.h>

#include <scxuser/scxuser.h>

static struct scxk_opt opts[] = {{0}};

static const struct scxk_cli cli = {
	.prog = "scx_relay_fifo",
	.summary = "FIFO scheduling in user space: the libscxuser example",
	.opts = opts,
};

static int fifo_schedule(struct scxu *u)
{
	struct scxu_task t;

	while (scxu_dequeue(u, &t) == 0) {
		/* Any CPU, default slice, FIFO (deadline = time queued). */
		struct scxu_dispatch d = scxu_dispatch_for(&t);

		while (scxu_dispatch(u, &d) == -ENOSPC)
			scxu_notify_complete(u, 1); /* ring full: let BPF drain it */
	}
	return scxu_notify_complete(u, 0);
}

static const struct scxu_sched fifo = {
	.name = "relay_fifo",
	.cli = &cli,
	.schedule = fifo_schedule,
};

int main(int argc, char **argv)
{
	return scxu_main(&fifo, argc, argv);
}
