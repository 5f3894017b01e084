# SPDX-License-Identifier: GPL-2.0-only
# scx_strata's NumaNode and AvgRuntime matchers on a 2-node guest, as
# scx_layered defines them, checked with the layers' task counts:
#   - NumaNode: a task belongs when its affinity lies within that node's
#     CPUs. Pinned to node 1 a sleep joins layer "node1", allowed
#     everywhere or pinned to node 0 it leaves (ops.set_cpumask re-matches
#     it at each affinity change);
#   - AvgRuntime [min, max) us: stress-ng's CPU worker (runs whole slices)
#     joins layer "long" (tasks are re-matched as their average moves) and
#     the layer is empty again once stress-ng is gone; no task was in it
#     before.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
[ -d /sys/devices/system/node/node1 ] || skip_all "needs 2 NUMA nodes"
n1=$(cat /sys/devices/system/node/node1/cpulist)
diag "$(nproc) CPUs, node 1: CPUs $n1"

cat >/tmp/numa.json <<'JSON'
[
  {"name": "node1", "comment": "sleeps that may only run on node 1",
   "matches": [[{"NumaNode": 1}, {"CommPrefix": "sleep"}]],
   "kind": {"Grouped": {"util_range": [0.2, 0.8], "nodes": [1]}}},
  {"name": "long", "comment": "runs of 5 ms or more on average",
   "matches": [[{"AvgRuntime": [5000, 1000000000]}, {"CommPrefix": "stress-ng"}]],
   "kind": {"Open": {}}},
  {"name": "rest", "comment": null, "matches": [[]], "kind": {"Open": {}}}
]
JSON


check "attaches with NumaNode and AvgRuntime layers" start_sched scx_strata f:/tmp/numa.json
# Single-threaded tasks that never fork (a forked child would carry its
# parent's name and affinity until its exec); the scenario's own short
# sleeps may run anywhere, so they never match NumaNode 1.
sleep 600 &
a=$!
sleep 600 &
b=$!
check "no sleep is in node1 while both may run anywhere" layer_settle node1 0
taskset -p -c "$n1" $a >/dev/null
check "one pinned to node 1 ($n1): it joins node1" layer_settle node1 1
taskset -p -c "$n1" $b >/dev/null
check "the other too: node1 counts 2" layer_settle node1 2
taskset -p -c 0-$(($(nproc) - 1)) $a >/dev/null
check "the first allowed everywhere again: back to 1" layer_settle node1 1
taskset -p -c 0 $b >/dev/null
check "the other pinned to node 0: node1 is empty" layer_settle node1 0
kill $a $b 2>/dev/null

# ---- AvgRuntime: stress-ng's CPU worker runs whole slices, its parent waits ----
check "no stress-ng task yet" layer_settle long 0
stress-ng --cpu 1 --timeout 120s -q &
sn=$!
# count_at_least LAYER N : the layer counts N tasks or more
count_at_least() { _c=$(strata_tasks_in "$1"); [ "${_c:-0}" -ge "$2" ] && return 0; echo "layer $1 counts '$_c' tasks, want $2 or more"; return 1; }
check "the CPU worker joins layer long" wait_for 5 count_at_least long 1
# The parent's average comes from its start-up runs (long under TCG), and
# it keeps that average while it waits: it may be in "long" too, as in
# scx_layered, where the average also moves only when the task runs.
kill $sn
check "stress-ng gone: long is empty" layer_settle long 0
check "still attached" sched_alive
stop_sched INT
is "detaches with exit 0" "$SCHED_RC" 0
[ $_fail = 0 ] || show_loader_log
done_testing
