# SPDX-License-Identifier: GPL-2.0-only
# scx_balance end to end on 2 NUMA nodes (one LLC domain each): bad input,
# attach, refusal of a second instance, stats, mixed load, every mode flag
# with a short load, clean detach, SIGKILL recovery.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
diag "$(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) nodes"

is "starts disabled" "$(state)" disabled
for bad in "--interval=abc" "--interval 0" "--tune-interval 0.01" "-l 0" \
	"-o 30000 -u 20000" "-D 101" "--perf 2000" "-C 99" "-C bogus" "--no-such-flag"; do
	scx_balance $bad >/tmp/bad.out 2>&1
	is "'$bad' exits 2" $? 2
done
scx_balance --interval=abc >/tmp/bad.out 2>&1
like "bad option names the problem" "$(cat /tmp/bad.out)" "interval"
is "bad input leaves the kernel untouched" "$(state)" disabled

check "attaches" start_sched scx_balance
like "root/ops names it" "$(ops)" "^balance"
scx_balance >/tmp/second.out 2>&1
is "second instance exits 1" $? 1
like "second instance says why" "$(cat /tmp/second.out)" "already enabled.*balance"

out=$(timeout 20 scx_balance --monitor 0.5 --monitor-count 2 2>&1)
is "--monitor exits 0" $? 0
like "--monitor prints the stats" "$out" "slice_us=[0-9]+ cpu_busy=[0-9.]+ load="
like "one domain per LLC" "$out" "doms=[0-9-]+@0;[0-9-]+@1 "
check "survives 15 s of mixed load" mixed_workload 15
check "not ejected by the mixed load" sched_alive
line=$(stats_line scx_balance)
diag "stats after load: $line"
check "the balancer ran" test "$(stat_of "$line" lb_rounds)" -ge 5
check "tasks were placed" test "$(stat_of "$line" total)" -gt 0
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
is "state back to disabled" "$(state)" disabled

# Every flag that changes a code path, grouped so that each group is one
# attach with a short load (a BPF load costs ~10 s under TCG).
for flags in "-f -k -b --perf 512" "--no-load-balance -g 0 -D 50 -K 50" \
	"-r --greedy-threshold-x-numa 1 -u 5000 -o 500 -I 0.05 -i 0.3 -l 0.3"; do
	mode_run balance 3 $flags
done

check "attaches again" start_sched scx_balance
hackbench -g 2 -l 50 >/dev/null 2>&1
stop_sched KILL
check "SIGKILL returns the kernel to its default scheduler" wait_for 10 state_is disabled
check "a new start succeeds at once" start_sched scx_balance
stop_sched TERM
is "SIGTERM detaches with exit 0" "$SCHED_RC" 0
done_testing
