# SPDX-License-Identifier: GPL-2.0-only
# scx_cadence on two LLCs (two sockets): one compute domain per LLC,
# stealing between domains under uneven load, the mixed workload and a
# hackbench storm without ejection.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
n=$(nproc)
diag "$n CPUs, LLCs: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')"

check "attaches" start_sched scx_cadence
like "one compute domain per LLC" "$(cat $SCHED_LOG)" "$n CPUs in 2 compute domain"

# Uneven load: hogs started on the first socket's CPUs spread out once
# their affinity is lifted, through the other domain's stealing.
stress-ng --cpu $((2 * n)) --taskset 0,1 --timeout 8s -q >/dev/null 2>&1 &
sp=$!
sleep 2
for p in $(pgrep stress-ng); do taskset -a -p -c 0-$((n - 1)) "$p" >/dev/null 2>&1; done
hackbench -g 4 -l 100 >/dev/null 2>&1
wait $sp
line=$(stats_line scx_cadence)
diag "after uneven load: $line"
check "tasks were stolen across domains" test "$(stat_of "$line" steal)" -gt 0
check "domain queues were used" test "$(stat_of "$line" dom)" -gt 0

check "survives 15 s of mixed load" mixed_workload 15
check "survives a hackbench storm" timeout 120 hackbench -g 8 -l 200
check "survives stress-ng -c at 8x the CPUs" timeout 60 stress-ng --cpu $((8 * n)) --timeout 6s -q
check "not ejected" sched_alive
stop_sched INT
	is "SIGINT detaches with exit 0" "$SCHED_RC" 0

check "attaches with --powersave" start_sched scx_cadence --powersave
stress-ng --cpu 2 --timeout 3s -q >/dev/null 2>&1
hackbench -g 2 -l 50 >/dev/null 2>&1
check "not ejected (powersave, 2 LLCs)" sched_alive
stop_sched INT
	is "powersave detach" "$SCHED_RC" 0
done_testing
