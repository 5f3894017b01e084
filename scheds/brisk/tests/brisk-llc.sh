# SPDX-License-Identifier: GPL-2.0-only
# scx_brisk on one NUMA node with two LLCs (two sockets, the shape of a
# desktop CPU with two core complexes): a task waking while its own LLC is
# busy runs on the other LLC's idle CPU, with and without --disable-numa,
# seen in the CPU it reports from /proc/self/stat.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
n=$(nproc)
llcs=$(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')
nodes=$(ls -d /sys/devices/system/node/node* | wc -l)
diag "$n CPUs, $nodes node(s), LLCs: $llcs"
[ "$n" = 4 ] && [ "$nodes" = 1 ] && [ "$(echo $llcs)" = "0-1 2-3" ] ||
	skip_all "needs 4 CPUs in one NUMA node and two LLCs (0-1, 2-3)"

# wake_run DESC : with one hog pinned on each CPU of LLC 0, a task that
# last ran on CPU 0 (started there, then allowed everywhere) sleeps 20 ms
# and reports the CPU it woke on; 20 times. Its own LLC has no idle CPU
# and the other one is idle: at least 16 of the 20 must wake in LLC 1,
# not queue behind or preempt a hog (a rule that keeps the search inside
# the wakee's LLC got 0 and 1 of 20).
wake_run() {
	taskset -c 0 scxk-burn -n 1 -d 120 >/dev/null 2>&1 &
	h0=$!
	taskset -c 1 scxk-burn -n 1 -d 120 >/dev/null 2>&1 &
	h1=$!
	sleep 1
	: >/tmp/wake.cpus
	for _i in $(seq 20); do
		taskset -c 0 sh -c 'taskset -p -c 0-3 $$ >/dev/null; sleep 0.02
			read -r l </proc/$$/stat; set -- ${l##*) }; shift 36; echo $1' >>/tmp/wake.cpus
	done
	kill $h0 $h1
	wait $h0 $h1
	far=$(grep -c '^[23]$' /tmp/wake.cpus)
	diag "$1: woke on CPUs $(tr '\n' ' ' </tmp/wake.cpus)"
	check "$1: a wakee whose LLC is busy wakes on the idle LLC ($far of 20)" test "$far" -ge 16
}

check "attaches" start_sched scx_brisk
wake_run "default"
line=$(stats_line scx_brisk)
diag "stats: $line"
check "not ejected" sched_alive
stop_sched INT
is "detaches with exit 0" "$SCHED_RC" 0

# --disable-numa on one node changes nothing here: same result.
check "attaches with --disable-numa" start_sched scx_brisk --disable-numa
wake_run "--disable-numa"
check "not ejected" sched_alive
stop_sched INT
is "detaches with exit 0" "$SCHED_RC" 0
done_testing
