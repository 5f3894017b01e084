# SPDX-License-Identifier: GPL-2.0-only
# scx_strata's layers in the real kernel: a batch layer confined to one CPU
# (cpus_range [1,1]) keeps its hogs there, checked from per-CPU busy time,
# the hogs' CPUs and the stats' CPU list; tasks join it when renamed, moved
# into a matching cgroup or reniced; a preempting latency layer preempts
# the hogs of an Open layer when no CPU is idle.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
diag "$(nproc) CPUs"

cat >/tmp/layers.json <<'JSON'
[
  {"name": "lat", "comment": "latency-sensitive, matched by name",
   "matches": [[{"CommPrefix": "lat-"}]],
   "kind": {"Open": {"preempt": true, "slice_us": 5000}}},
  {"name": "batch", "comment": "hogs: by name, by cgroup, or reniced to 19",
   "matches": [[{"CommPrefix": "batch-"}], [{"CgroupPrefix": "batch.slice/"}],
               [{"NiceEquals": 19}, {"IsKthread": false}]],
   "kind": {"Confined": {"util_range": [0.5, 0.9], "cpus_range": [1, 1]}}},
  {"name": "rest", "matches": [[]], "kind": {"Open": {}}}
]
JSON

# hog NAME : a CPU hog that renames itself to NAME (the echo is the rename)
hog() { ( [ -n "$1" ] && printf %s "$1" >/proc/self/comm; while :; do :; done ) & }
# cpu_of PID : the CPU it last ran on (field 39 of stat; the name may hold anything)
cpu_of() { tr -d '\n' </proc/$1/stat 2>/dev/null | sed 's/.*) //' | awk '{ print $37 }'; }
# busy_pct_all SECONDS : "cpu busy%" per CPU over SECONDS, from /proc/stat
busy_pct_all() {
	grep '^cpu[0-9]' /proc/stat >/tmp/s1; sleep "$1"; grep '^cpu[0-9]' /proc/stat >/tmp/s2
	paste /tmp/s1 /tmp/s2 | awk '{ n = (NF - 2) / 2; t1 = 0; t2 = 0
		for (i = 2; i <= n + 1; i++) t1 += $i; for (i = n + 3; i <= NF; i++) t2 += $i
		i1 = $5 + $6; i2 = $(n + 6) + $(n + 7); d = t2 - t1
		printf "%s %d\n", $1, d ? 100 * (d - (i2 - i1)) / d : 0 }'
}
# on_cpu PID CPU : the task last ran on CPU, checked a few times
on_cpu() { for _i in 1 2 3 4 5; do [ "$(cpu_of $1)" = "$2" ] || return 1; sleep 0.2; done; }
layer_json() { echo "$1" | sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p"; }

check "attaches with the two-layer config" start_sched scx_strata f:/tmp/layers.json
hog batch-1; h1=$!
hog batch-2; h2=$!
hog batch-3; h3=$!
sleep 3
line=$(stats_line scx_strata)
batch=$(layer_json "$line" batch)
diag "batch: $batch"
like "batch owns exactly one CPU" "$batch" '"cpus":1,"cpu_list":"[0-9]+"'
bcpu=$(echo "$batch" | sed -n 's/.*"cpu_list":"\([0-9]*\)".*/\1/p')
like "batch counts its three hogs" "$batch" '"tasks":([3-9]|[1-9][0-9])'
check "hog 1 runs on the batch CPU $bcpu" on_cpu $h1 "$bcpu"
check "hog 2 runs on the batch CPU" on_cpu $h2 "$bcpu"
check "hog 3 runs on the batch CPU" on_cpu $h3 "$bcpu"
busy=$(busy_pct_all 4)
diag "$(echo $busy)"
b=$(echo "$busy" | awk -v c="cpu$bcpu" '$1 == c { print $2 }')
check "the batch CPU is busy (${b}%)" [ "${b:-0}" -ge 70 ]
others=$(echo "$busy" | awk -v c="cpu$bcpu" '$1 != c && $2 > m { m = $2 } END { print m + 0 }')
check "every other CPU is mostly idle (max ${others}%)" [ "$others" -le 40 ]

kill $h1 $h2 $h3 2>/dev/null

# Re-matching: rename, cgroup move, renice.
# A task may only rename itself (/proc/PID/comm of another process is EINVAL):
# this one waits 2 s as "sh", then renames itself and spins.
( sleep 2; printf %s batch-renamed >/proc/self/comm; while :; do :; done ) &
r=$!
sleep 3
is "the late task renamed itself" "$(cat /proc/$r/comm)" batch-renamed
check "a renamed task joins batch and its CPU" wait_for 5 on_cpu $r "$bcpu"
hog "" ; c=$!
mkdir -p /sys/fs/cgroup/batch.slice/job
echo $c >/sys/fs/cgroup/batch.slice/job/cgroup.procs
check "a task moved into batch.slice/job joins batch" wait_for 5 on_cpu $c "$bcpu"
hog "" ; n=$!
renice -n 19 -p $n >/dev/null
check "a task reniced to 19 joins batch" wait_for 5 on_cpu $n "$bcpu"
line=$(stats_line scx_strata)
diag "$line"
like "stats count the re-matches" "$line" 'rematch=[1-9]'
like "batch still owns one CPU" "$(layer_json "$line" batch)" "\"cpus\":1,\"cpu_list\":\"$bcpu\""
kill $r $c $n 2>/dev/null
wait $h1 $h2 $h3 $r $c $n 2>/dev/null
rmdir /sys/fs/cgroup/batch.slice/job /sys/fs/cgroup/batch.slice

# Preemption: Open hogs fill every CPU; a lat- task waking every 2 ms preempts them.
hogs=
for i in 1 2 3 4 5 6; do hog ""; hogs="$hogs $!"; done
sleep 1
stats_line scx_strata >/dev/null
( echo lat-probe >/proc/self/comm; i=0; while [ $i -lt 300 ]; do usleep 2000; i=$((i + 1)); done ) &
lp=$!
wait $lp
line=$(stats_line scx_strata)
lat=$(layer_json "$line" lat)
diag "lat: $lat"
like "the lat layer preempted the hogs" "$lat" '"preempt":[1-9]'
kill $hogs 2>/dev/null
check "still attached" sched_alive
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
done_testing
