# SPDX-License-Identifier: GPL-2.0-only
# scx_minimal end to end: bad input, attach, refusal of a second instance,
# stats over the socket, 30 s of mixed load, clean detach, SIGKILL recovery.
# Argument: "vtime" (default) or "fifo".
. ./lib.sh
mode=${1:-vtime}
flags=
[ "$mode" = fifo ] && flags=--fifo
[ -d $SCX ] || skip_all "kernel without sched_ext"
diag "mode $mode, $(nproc) CPUs"

is "starts disabled" "$(state)" disabled
scx_minimal --slice-us=abc >/tmp/bad.out 2>&1
is "bad option exits 2" $? 2
like "bad option names the problem" "$(cat /tmp/bad.out)" "slice-us"
is "bad option leaves the kernel untouched" "$(state)" disabled
scx_minimal --no-such-flag >/dev/null 2>&1
is "unknown option exits 2" $? 2

check "attaches" start_sched scx_minimal $flags
is "state is enabled" "$(state)" enabled
like "root/ops names it" "$(ops)" "^minimal"

scx_minimal >/tmp/second.out 2>&1
is "second instance exits 1" $? 1
like "second instance says why" "$(cat /tmp/second.out)" "already enabled.*minimal"
check "first instance still attached" sched_alive

out=$(timeout 20 scx_minimal --monitor 0.5 --monitor-count 2 2>&1)
is "--monitor exits 0" $? 0
like "--monitor prints the stats" "$out" "local=[0-9]+.*global=[0-9]+"

check "survives 30 s of mixed load" mixed_workload 30
check "not ejected by the mixed load" sched_alive

stop_sched INT
	is "SIGINT detaches with exit 0" "$SCHED_RC" 0
is "state back to disabled" "$(state)" disabled
like "loader reported the detach" "$(cat $SCHED_LOG)" "detached|unregistered"

check "attaches again" start_sched scx_minimal $flags
hackbench -g 2 -l 100 >/dev/null 2>&1
stop_sched KILL
check "SIGKILL returns the kernel to its default scheduler" wait_for 10 state_is disabled
check "a new start succeeds at once" start_sched scx_minimal $flags
stop_sched TERM
	is "second stop exits 0" "$SCHED_RC" 0
done_testing
