/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intf.h - what scx_relay serves beside libscxuser's own stats. Relay has
 * no BPF of its own (libscxuser brings it), so this is only its stats
 * list, here so that the loader and the unit tests expand the same one.
 */
#ifndef __RELAY_INTF_H
#define __RELAY_INTF_H

#include <scxkit/stats_ids.h>

/* One line each, after the library's (SCXU_STATS); the columns: scxkit/stats_ids.h. */
#define RELAY_STATS(S)                                                                             \
	S(VAL, RELAY_IDLE_PICKS, "idle_picks", U64, "",                                            \
	  "tasks placed on an idle CPU claimed from user space")                                   \
	S(VAL, RELAY_DISPATCH_ANY, "dispatch_any", U64, "",                                        \
	  "tasks sent to the shared deadline-ordered queue")                                       \
	S(VAL, RELAY_DISPATCH_LOCAL, "dispatch_local", U64, "",                                    \
	  "tasks kept on their CPU (pinned or --percpu-local)")                                    \
	S(VAL, RELAY_SLICE_US, "slice_us", U64, "", "the longest slice (--slice-us)")              \
	S(VAL, RELAY_SLICE_US_MIN, "slice_us_min", U64, "", "the shortest slice (--slice-us-min)")

enum relay_value { RELAY_STATS(SCXK_STAT_VALUE) RELAY_NR_VALUES };

#endif /* __RELAY_INTF_H */
