/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * scxuser_bpf.h - what libscxuser's BPF backend and its C half agree on
 * beyond the wire records (private to the library).
 */
#ifndef __SCXUSER_BPF_H
#define __SCXUSER_BPF_H

#include <scxkit/dsq.h>
#include <scxkit/types.h>

#define SCXU_DSQ_SCHED	0 /* the scheduling thread alone */
#define SCXU_DSQ_SHARED 1 /* answers for any CPU, by deadline */
/* answers for one CPU go to its local DSQ (SCX_DSQ_LOCAL_ON | cpu) */

/*
 * Inserts per ops.dispatch call (the ops' dispatch_max_batch). Larger
 * batches amortise the user ring's locking; the kernel's default is 32.
 */
#define SCXU_DISPATCH_BATCH 64

/*
 * The watchdog: a runnable task not scheduled for this long ejects the
 * scheduler, and that is what protects the machine when the user-space
 * side stops. Upstream user-space schedulers use 5 s. Here it is the
 * kernel's maximum, 30 s: a round trip through user space turns every
 * stall of the machine (virtual CPUs descheduled by a busy host froze the
 * test VMs for 5-10 s) into a backlog the scheduling thread must work off
 * afterwards, and shorter timeouts ejected healthy runs. SCX_TIMEOUT_MS
 * sets a shorter one on machines that do not stall.
 */
#define SCXU_TIMEOUT_MS 30000

/*
 * Heartbeat: how often BPF checks that queued work is being served and
 * whether user space asked to abort. 100 ms keeps a forgotten task's worst
 * wait far below the watchdog at negligible cost.
 */
#define SCXU_HEARTBEAT_NS (100ULL * 1000 * 1000)

/*
 * The scheduling thread waits runnable in its DSQ when idle; it is run at
 * least this often anyway, far inside any watchdog timeout (1 s, the
 * heartbeat period upstream rustland uses).
 */
#define SCXU_USERSCHED_MAX_WAIT_NS (1000ULL * 1000 * 1000)

/* Argument of the scxu_pick_idle syscall program (BPF_PROG_TEST_RUN ctx). */
struct scxu_pick_args {
	s32 pid;
	s32 prev_cpu;
	s32 cpu; /* out: claimed CPU or a negative errno */
	s32 pad;
};

#endif /* __SCXUSER_BPF_H */
