// SPDX-License-Identifier: GPL-2.0-only
/*
 * top_fixture_server SOCKET - serve the fixture stats (fixtures/top) on
 * SOCKET through the real stats server, so the host tests drive scxctl top
 * and --monitor through the same client, meta and printing code as in the
 * VM, without a sched_ext kernel. Each read counts 100 more "placed" (a
 * delta counter) and one more "hotplug" (a total). Exits on SIGTERM or
 * after 60 s, so a failed test leaves nothing behind.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fixtures/top/stats_fixture.h"

#define LIFETIME_S 60

static unsigned long reads; /* only the server thread touches it */

static int collect(json_t *out, void *state, void *arg)
{
	(void)state;
	(void)arg;
	reads++;
	return json_object_set_new(out, "placed", json_integer(100)) ||
			       json_object_set_new(out, "hotplug", json_integer(reads)) ||
			       json_object_set_new(out, "busy", json_real(42.5)) ||
			       json_object_set_new(out, "cpu_list", json_string("0-1")) ||
			       json_object_set_new(out, "layers",
						   json_pack("{s:{s:i,s:f,s:[i]},s:{s:i,s:f,s:[]}}",
							     "batch", "tasks", 4, "util", 0.5,
							     "hist", 1, "interactive", "tasks", 12,
							     "util", 1.25, "hist"))
		       ? -1
		       : 0;
}

int main(int argc, char **argv)
{
	struct scxk_stats_ops ops = fx_ops;
	struct scxk_stats_server *srv;
	sigset_t set;
	int sig;

	if (argc != 2) {
		fprintf(stderr, "usage: top_fixture_server SOCKET\n");
		return 2;
	}
	ops.collect = collect;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGALRM);
	/* blocked before the server thread starts, so it inherits the mask */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (scxk_stats_server_start(&srv, argv[1], &ops)) {
		fprintf(stderr, "top_fixture_server: cannot serve on %s\n", argv[1]);
		return 1;
	}
	alarm(LIFETIME_S);
	sigwait(&set, &sig);
	scxk_stats_server_stop(srv);
	return 0;
}
