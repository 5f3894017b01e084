# SPDX-License-Identifier: GPL-2.0-only
# rel-hotplug.sh NAME [FLAGS...] - what a CPU
# hotplug costs under load.
# The load: a fork storm, cgroup churn (lib.sh), nice churn on CPU hogs and
# a SCHED_FIFO hog pinned to CPU 0. The last CPU goes offline and back:
#   - a scheduler that handles hotplug in place (ops.cpu_online/offline;
#     it has a "hotplug" counter) never leaves: the state reads "enabled" at
#     every 50 ms poll, enable_seq is unchanged, the loader never restarts,
#     and its hotplug counter counted both changes; one with a "dom_cpus"
#     stat (scx_balance) counted the CPU out of its domains and back in;
#   - any other must be attached again (state "enabled", enable_seq moved)
#     within $bound_cs of online=1, polled every 50 ms from a nice -20 shell.
# Then the scheduler's counters move, and $cycles more off/on cycles leave
# the loader's open files and resident memory where they were, and the CPU
# raising irq_work interrupts again after each online (none queued while it
# went down stays stuck there).
. ./lib.sh
name=${1:-minimal}
[ $# -gt 0 ] && shift
flags="$*"
need_sched $name
ncpu=$(nproc)
[ "$ncpu" -ge 3 ] || skip_all "needs 3 CPUs or more (CPU 0 takes the RT hog, the last goes offline)"
online=/sys/devices/system/cpu/cpu$((ncpu - 1))/online
[ -w $online ] || skip_all "no hotplug control $online"
# Schedulers whose BPF side implements ops.cpu_online and ops.cpu_offline.
inplace=
# A scheduler that handles hotplug in place says so with a "hotplug" counter.
$bin $flags --help-stats 2>/dev/null | grep -q '^hotplug ' && inplace=yes
# One that keeps online CPUs per domain (scx_balance's "dom_cpus", what its
# balancer shares load by) must see the CPU leave and come back.
domcpus=
$bin $flags --help-stats 2>/dev/null | grep -q '^dom_cpus ' && domcpus=yes
# One that reports its online CPUs ("nr_cpus": scx_brisk, scx_cadence) must
# follow the change; one that also reports the CPUs it keeps active
# ("nr_active_cpus": scx_cadence's compaction) must not count an offline one.
nrcpus=
$bin $flags --help-stats 2>/dev/null | grep -q '^nr_cpus ' && nrcpus=yes
nractive=
$bin $flags --help-stats 2>/dev/null | grep -q '^nr_active_cpus ' && nractive=yes
# The issue's bound on re-attaching, in centiseconds (/proc/uptime's unit).
bound_cs=200
# Off/on cycles for the leak check: two restarts each, kept under the
# loader's limit of 16 restarts a minute together with the measured cycle.
cycles=5
# Resident memory a loader may gain over $cycles cycles (allocator slack).
rss_slack_kb=1024
diag "$bin $flags on $ncpu CPUs, kernel $(uname -r), hotplug in place: ${inplace:-no}"

restarts() { grep -c "restarting in-process" $SCHED_LOG; }
# restarted_since N : the loader logged more than N restarts (says how many if not)
restarted_since() {
	[ "$(restarts)" -gt "$1" ] && return 0
	echo "restarts logged: $(restarts), before: $1; state $(state)"
	return 1
}
seq_now() { cat $SCX/enable_seq; }
# The loader's open files, the fewest of 5 readings 0.2 s apart: a stats
# connection or a directory scan open at one instant is not a leak.
fds() {
	_m=
	for _i in 1 2 3 4 5; do
		_v=$(ls /proc/$SCHED_PID/fd | wc -l)
		[ -z "$_m" ] || [ "$_v" -lt "$_m" ] && _m=$_v
		sleep 0.2
	done
	echo "$_m"
}
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$SCHED_PID/status; }
dom_cpus() { stat_of "$(stats_line $bin)" dom_cpus; }
# nr_cpus_is N : the scheduler reports N online CPUs, and no more active ones
nr_cpus_is() {
	_l=$(stats_line $bin)
	_nc=$(stat_of "$_l" nr_cpus)
	_na=$(stat_of "$_l" nr_active_cpus)
	[ "$_nc" = "$1" ] && { [ -z "$nractive" ] || [ "${_na:-99999}" -le "$1" ]; } && return 0
	echo "nr_cpus '$_nc' nr_active_cpus '$_na', want $1 online"
	return 1
}
# dom_cpus_is N : the per-domain online counts add up to N (says what they were if not)
dom_cpus_is() {
	_dc=$(dom_cpus)
	[ "$(echo "$_dc" | tr ',' '\n' | awk '{ s += $1 } END { print s + 0 }')" = "$1" ] && return 0
	echo "dom_cpus '$_dc', want $1 in all"
	return 1
}

check "$bin attaches" start_sched $bin $flags || done_testing

# ---- the load ----
load_s=150
stress-ng --fork 2 --timeout ${load_s}s -q &
fork_pid=$!
stress-ng --cpu "$ncpu" --timeout ${load_s}s -q &
cpu_pid=$!
stress-ng --cpu 1 --taskset 0 --sched fifo --sched-prio 10 --timeout ${load_s}s -q &
rt_pid=$!
sleep 1
cgroup_churn $load_s $cpu_pid $(cat /proc/$cpu_pid/task/*/children 2>/dev/null) &
churn_pid=$!
(
	_i=0
	while kill -0 $cpu_pid 2>/dev/null; do
		for _p in $(cat /proc/$cpu_pid/task/*/children 2>/dev/null); do
			renice -n $((_i % 20)) -p $_p >/dev/null 2>&1
		done
		_i=$((_i + 7))
		sleep 0.2
	done
) &
nice_pid=$!
# The measuring shell must not be what is slow.
renice -n -20 -p $$ >/dev/null
sleep 2
check "the FIFO hog runs as SCHED_FIFO" sh -c \
	"grep -l 'policy.*: *1\$' /proc/[0-9]*/sched | sed 's,sched\$,comm,' | xargs cat | grep -q stress-ng"
check "attached under the load" sched_alive
# How many irq_work interrupts the last CPU raises in 2 s before any
# hotplug: the after-online check below needs a scheduler that raises
# them steadily under this load (its kicks); one that kicks rarely
# (scx_minimal never does) would look wedged.
last=$((ncpu - 1))
_w0=$(irq_work_count $last)
sleep 2
_w1=$(irq_work_count $last)
iwi_base=$((${_w1:-0} - ${_w0:-0}))
iwi_min=40

# ---- one measured off/on cycle ----
seq0=$(seq_now)
r0=$(restarts)
left=0
echo 0 >$online
if [ -n "$inplace" ]; then
	# Watch the state the whole time the CPU is off, and then after online=1.
	_t=$(($(uptime_cs) + 100))
	while [ "$(uptime_cs)" -lt $_t ]; do state_is enabled || left=1; sleep 0.05; done
	if [ -n "$nrcpus" ]; then
		# The active CPUs at the next compaction round (10 ms), the count at once.
		wait_for 5 nr_cpus_is $((ncpu - 1))
		check "in place: $((ncpu - 1)) online CPUs reported${nractive:+, none more active}" \
			nr_cpus_is $((ncpu - 1))
	fi
	# At its next balancing round (every 2 s by default).
	if [ -n "$domcpus" ]; then
		wait_for 10 dom_cpus_is $((ncpu - 1))
		check "in place: the domains count $((ncpu - 1)) online CPUs" dom_cpus_is $((ncpu - 1))
	fi
else
	wait_for 60 restarted_since $r0
	check "offline: the loader restarted in-process" restarted_since $r0
	check "offline: attached again" wait_for 60 state_is enabled
fi
seq1=$(seq_now)
echo 1 >$online
t0=$(uptime_cs)
if [ -n "$inplace" ]; then
	while [ $(($(uptime_cs) - t0)) -lt $bound_cs ]; do state_is enabled || left=1; sleep 0.05; done
	is "in place: state 'enabled' at every 50 ms poll through offline and online" $left 0
	is "in place: enable_seq unchanged" "$(seq_now)" "$seq0"
	is "in place: the loader never restarted" "$(restarts)" "$r0"
	line=$(stats_line $bin)
	is "in place: the scheduler counted both CPU changes" "$(stat_of "$line" hotplug)" 2
	if [ -n "$nrcpus" ]; then
		wait_for 5 nr_cpus_is $ncpu
		check "in place: $ncpu online CPUs reported again" nr_cpus_is $ncpu
	fi
	if [ -n "$domcpus" ]; then
		wait_for 10 dom_cpus_is $ncpu
		check "in place: the domains count $ncpu online CPUs again" dom_cpus_is $ncpu
	fi
	# A scheduler that sizes over the CPUs no higher class holds (strata's
	# held_cpus) must have left out CPU 0, which the FIFO hog holds.
	_h=$(stat_of "$line" held_cpus)
	[ -z "$_h" ] || check "CPU 0 (the FIFO hog's) left out of the sizing (held_cpus=$_h)" [ "$_h" -ge 1 ]
else
	# Attached again = enable_seq moved past the offline restart and enabled.
	t1=
	_end=$((t0 + 6000))
	while [ "$(uptime_cs)" -lt $_end ]; do
		if [ "$(seq_now)" -gt "$seq1" ] && state_is enabled; then t1=$(uptime_cs); break; fi
		sleep 0.05
	done
	check "online: attached again" [ -n "$t1" ]
	[ -n "$t1" ] || t1=$_end
	diag "online=1 -> enabled in $((t1 - t0))0 ms (bound ${bound_cs}0 ms)"
	check "online: attached again within ${bound_cs}0 ms ($((t1 - t0))0 ms)" [ $((t1 - t0)) -le $bound_cs ]
	grep "re-attached" $SCHED_LOG | tail -n 2 | sed 's/^/# /'
fi
check "still attached, same loader" sched_alive
# The placement counters (lib.sh's placements) of a scheduler it knows.
case " $ALL_SCHEDS " in
*" $name "*)
	line=$(timeout 10 $bin --monitor 1 --monitor-count 2 2>/dev/null | tail -n 1)
	_v=$(placements "$name" "$line") || _v=0
	check "counters move after the hotplug (placements: $_v in 1 s)" [ "$_v" -gt 0 ]
	;;
esac

# ---- repeated cycles: no leak in the loader, no wedged irq_work ----
fd0=$(fds)
rss0=$(rss_kb)
r1=$(restarts)
# After each online, the CPU's irq_work must still raise interrupts under
# this load (the kernel's and the scheduler's kicks): BPF work that queued
# an irq_work from the CPU while it went down wedges its list (see
# irq_work_count in lib.sh), which the next detach waits on forever
# (free_kick_syncs()), unless a later offline of the CPU flushes it.
wedged=
iwi=
_c=0
while [ $_c -lt $cycles ]; do
	for _v in 0 1; do
		_s=$(seq_now)
		_r=$(restarts)
		echo $_v >$online
		if [ -z "$inplace" ]; then
			wait_for 60 restarted_since $_r
			wait_for 60 sh -c "[ \$(cat $SCX/enable_seq) -gt $_s ] && [ \$(cat $SCX/state) = enabled ]"
		fi
	done
	_w0=$(irq_work_count $last)
	sleep 2
	_w1=$(irq_work_count $last)
	iwi="$iwi $((${_w1:-0} - ${_w0:-0}))"
	[ "${_w1:-0}" -gt "${_w0:-0}" ] || wedged="$wedged $((_c + 1))"
	_c=$((_c + 1))
done
diag "irq_work interrupts on CPU $last in 2 s: $iwi_base before any hotplug, after each online:$iwi"
if [ $iwi_base -ge $iwi_min ]; then
	check "irq_work runs on CPU $last after every online (wedged after cycle:${wedged:- none})" \
		[ -z "$wedged" ]
else
	_report 0 "irq_work runs on CPU $last after every online # SKIP $iwi_base irq_work interrupts in 2 s before any hotplug (fewer than $iwi_min: this scheduler rarely kicks)"
fi
check "after $cycles more off/on cycles: still attached" sched_alive
if [ -n "$inplace" ]; then
	is "no restart in $cycles cycles" "$(restarts)" "$r1"
	# Read late on purpose: a restart bumps enable_seq only once attached.
	is "in place: enable_seq unchanged after every cycle" "$(seq_now)" "$seq0"
else
	is "one in-process restart per CPU change" "$(restarts)" "$((r1 + 2 * cycles))"
fi
fd1=$(fds)
check "open files of the loader did not grow ($fd0 -> $fd1)" [ "$fd1" -le "$fd0" ]
rss1=$(rss_kb)
check "resident memory of the loader within ${rss_slack_kb} kB ($rss0 -> $rss1 kB)" \
	[ "$rss1" -le $((rss0 + rss_slack_kb)) ]

# For the record (e.g. scx_relay's nr_sched_moved: its scheduling thread
# leaving the FIFO hog's CPU).
diag "counters at the end: $(stats_line $bin | cut -c1-600)"
kill $fork_pid $cpu_pid $rt_pid $nice_pid $churn_pid 2>/dev/null
wait $fork_pid $cpu_pid $rt_pid $churn_pid 2>/dev/null
check "loader never reported an error exit" sh -c "! grep -E 'error: EXIT|giving up' $SCHED_LOG"
stop_sched INT
is "SIGINT detaches cleanly with exit 0" "$SCHED_RC" 0
[ $_fail = 0 ] || show_loader_log
done_testing
