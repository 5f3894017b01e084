# SPDX-License-Identifier: GPL-2.0-only
# rel-storm.sh NAME [FLAGS...] - one scheduler through every storm and
# churn the reliability issue lists, in one VM boot:
#   fork/exit storm, hackbench storm, CPU hogs at 8x the CPU count (plain
#   and nice 19 beside an interactive load), affinity churn with pinned
#   tasks, cgroup create/move/destroy churn with cpu.weight changes, a
#   SCHED_FIFO hog pinned to CPU 0, per-CPU kthread traffic from tmpfs I/O,
#   and CPU hotplug off/on (in-process restart with the same options); then
#   a settle period longer than the watchdog timeout with one canary per CPU.
# Each storm asserts that its workload completed (the tool's exit status
# and its own completion report) and that the scheduler is still attached;
# at the end: never ejected (loader log, kernel log, enable count), clean
# detach with exit 0. Works for any scxkit scheduler: scx_NAME FLAGS...
. ./lib.sh
name=${1:-minimal}
[ $# -gt 0 ] && shift
flags="$*"
need_sched $name
ncpu=$(nproc)
hogs=$((8 * ncpu))
sock=/run/rel-$name/stats
diag "$bin $flags on $ncpu CPUs, kernel $(uname -r)"
# How fast this guest runs: TCG on a loaded host can be 10x slower than on
# an idle one, and the watchdog's 30 s are wall time. Printed so that an
# ejection can be read against it; compare it between runs.
_t0=$(cut -d' ' -f1 /proc/uptime)
_i=0
while [ $_i -lt 100000 ]; do _i=$((_i + 1)); done
diag "guest speed: 100k shell loop iterations in $(echo "$(cut -d' ' -f1 /proc/uptime) - $_t0" | bc) s"

# sng TAG STRESS-NG-ARGS... : stress-ng must exit 0 and report completion
sng() {
	_l=/tmp/sng.$1.log
	shift
	stress-ng "$@" --metrics-brief >$_l 2>&1
	_r=$?
	if [ $_r != 0 ] || ! grep -q "successful run completed" $_l; then
		echo "stress-ng $* exited $_r"
		tail -n 8 $_l
		return 1
	fi
	return 0
}

# storm DESC CMD... : the workload completes and the scheduler survives it
storm() {
	_sd=$1
	shift
	check "$_sd: workload completed" "$@"
	check "$_sd: scheduler still attached" sched_alive && return 0
	# Ejected: the rest would only repeat it. Say why, then stop.
	diag "ejected during \"$_sd\"; the loader said:"
	grep -E 'EXIT|stall|error' $SCHED_LOG | head -n 5 | sed 's/^/#   /'
	stop_sched INT
	done_testing
}

seq0=$(cat $SCX/enable_seq 2>/dev/null || echo 0)
dmesg -c >/dev/null 2>&1
# A watchdog the settle period below can outlast.
export SCX_TIMEOUT_MS=$SETTLE_TIMEOUT_MS
check "attaches" start_sched $bin $flags --stats-socket $sock || { done_testing; }

storm "fork/exit storm" sng fork --fork "$ncpu" --vfork "$ncpu" --timeout 10s
storm "hackbench storm" timeout 180 hackbench -g 8 -l 200
storm "stress-ng -c at 8x CPUs" sng cpu --cpu $hogs --timeout 10s

# Niced hogs beside an interactive load: both must finish.
nice_hogs() {
	# busybox has no nice(1): renice the shell, then exec (children inherit it).
	sh -c "renice -n 19 -p \$\$ >/dev/null && exec stress-ng --cpu $hogs --timeout 12s \
		--metrics-brief" >/tmp/nice.log 2>&1 &
	_p=$!
	sleep 1
	_ni=$(awk '{print $19}' /proc/$_p/stat 2>/dev/null)
	[ "$_ni" = 19 ] || { echo "hogs run at nice '$_ni', not 19"; return 1; }
	timeout 120 hackbench -g 2 -l 100 >/dev/null 2>&1 || { echo "hackbench beside nice hogs failed"; return 1; }
	wait $_p || { echo "niced stress-ng failed"; tail -n 5 /tmp/nice.log; return 1; }
	grep -q "successful run completed" /tmp/nice.log
}
storm "nice 19 hogs at 8x CPUs beside hackbench" nice_hogs

# Affinity churn: tasks changing their mask continuously beside pinned hogs.
affinity_churn() {
	stress-ng --cpu "$ncpu" --taskset "$((ncpu - 1))" --timeout 10s -q &
	_p=$!
	sng affinity --affinity "$ncpu" --affinity-rand --timeout 10s || return 1
	sng affinity-pin --affinity "$ncpu" --affinity-pin --timeout 5s || return 1
	wait $_p
}
storm "affinity churn beside pinned hogs" affinity_churn

# Cgroups created, filled, re-weighted, emptied and removed in a loop.
cgroup_storm() {
	stress-ng --cpu "$ncpu" --fork 1 --timeout 10s --metrics-brief >/tmp/cg.log 2>&1 &
	_p=$!
	sleep 1
	# A fixed number of rounds, not a duration: under a loaded TCG host a
	# round can take seconds.
	_i=0
	_moved=0
	while [ $_i -lt 4 ]; do
		_g=/sys/fs/cgroup/rel-$_i
		mkdir $_g || { echo "mkdir $_g failed"; return 1; }
		echo $((1 + (_i * 997) % 10000)) >$_g/cpu.weight || { echo "cpu.weight failed"; return 1; }
		# The stress-ng parent and its workers (they rename themselves).
		for _t in $_p $(pidof stress-ng-cpu stress-ng-fork 2>/dev/null); do
			echo "$_t" >$_g/cgroup.procs 2>/dev/null
		done
		# Not "test -s": cgroupfs files always report size 0.
		[ -n "$(cat $_g/cgroup.procs)" ] && _moved=$((_moved + 1))
		echo $((1 + (_i * 331) % 10000)) >$_g/cpu.weight
		sleep 0.2
		# Children forked meanwhile land in $_g too, and exiting tasks
		# keep it busy for a moment: empty it until rmdir succeeds.
		_try=0
		until rmdir $_g 2>/dev/null; do
			for _t in $(cat $_g/cgroup.procs); do
				echo "$_t" >/sys/fs/cgroup/cgroup.procs 2>/dev/null
			done
			_try=$((_try + 1))
			[ $_try -lt 50 ] || { echo "cannot remove $_g: $(cat $_g/cgroup.procs)"; return 1; }
			sleep 0.1
		done
		_i=$((_i + 1))
	done
	wait $_p || { tail -n 5 /tmp/cg.log; return 1; }
	echo "$_i cgroups created and removed, $_moved of them held tasks"
	[ $_moved -ge 1 ] && grep -q "successful run completed" /tmp/cg.log
}
storm "cgroup create/move/destroy churn with cpu.weight" cgroup_storm

# A SCHED_FIFO hog owns CPU 0; everything else must get done elsewhere.
fifo_hog() {
	stress-ng --cpu 1 --taskset 0 --sched fifo --sched-prio 10 --timeout 15s -q &
	_p=$!
	sleep 1
	fifo_task_named stress-ng || { echo "the stress-ng hog is not SCHED_FIFO"; return 1; }
	timeout 120 hackbench -g 4 -l 100 >/dev/null 2>&1 || { echo "hackbench beside the FIFO hog failed"; return 1; }
	sng cpu-beside-fifo --cpu "$ncpu" --fork 1 --timeout 6s || return 1
	wait $_p
}
storm "SCHED_FIFO hog pinned to CPU 0" fifo_hog

# tmpfs I/O: page cache, writeback and per-CPU kworkers.
storm "tmpfs I/O (per-CPU kthread traffic)" sng io --hdd 2 --hdd-bytes 8M --seek 1 --dentry 1 \
	--temp-path /tmp --timeout 10s

# CPU hotplug: the kernel asks for a restart on each change; the loader
# restarts in-process with the same options (the custom stats socket proves
# it) and the pid never changes. A scheduler with ops.cpu_online/offline
# (it has a "hotplug" counter) stays attached instead, with no restart.
inplace=
# A scheduler that handles hotplug in place says so with a "hotplug" counter.
$bin $flags --help-stats 2>/dev/null | grep -q '^hotplug ' && inplace=yes
hotplug() {
	_cpu=/sys/devices/system/cpu/cpu$((ncpu - 1))/online
	[ -w $_cpu ] || { echo "no hotplug control $_cpu"; return 1; }
	_pid=$SCHED_PID
	_r0=$(grep -c "restarting in-process" $SCHED_LOG)
	hackbench -g 2 -l 300 >/dev/null 2>&1 &
	_hb=$!
	for _v in 0 1; do
		echo $_v >$_cpu || { echo "cannot write $_v to $_cpu"; return 1; }
		if [ -n "$inplace" ]; then
			sleep 1
			state_is enabled || { echo "left after online=$_v: $(state)"; return 1; }
			[ "$(grep -c 'restarting in-process' $SCHED_LOG)" = "$_r0" ] ||
				{ echo "restarted after online=$_v"; return 1; }
			continue
		fi
		_r0=$((_r0 + 1))
		wait_for 60 sh -c "[ \$(grep -c 'restarting in-process' $SCHED_LOG) -ge $_r0 ]" ||
			{ echo "no in-process restart after online=$_v"; return 1; }
		wait_for 60 state_is enabled || { echo "not re-attached after online=$_v"; return 1; }
	done
	[ "$SCHED_PID" = "$_pid" ] && kill -0 "$_pid" || { echo "loader pid changed"; return 1; }
	timeout 20 $bin --monitor 0.2 --monitor-count 1 --stats-socket $sock >/tmp/mon.out 2>&1 ||
		{ echo "no stats on $sock after the restarts"; cat /tmp/mon.out; return 1; }
	wait $_hb || { echo "hackbench during hotplug failed"; return 1; }
}
if [ "$ncpu" -ge 2 ]; then
	hp_desc="in-process restart with the same options"
	[ -n "$inplace" ] && hp_desc="handled in place, no restart"
	storm "CPU hotplug off/on: $hp_desc" hotplug
else
	diag "one CPU: no hotplug"
fi

storm "settle: one canary per CPU progresses for longer than the watchdog timeout" \
	settle $((SETTLE_TIMEOUT_MS / 1000 + 1))
# Printed on success too: the margin is what says whether a slow CI host
# is close to failing the one-wakeup-a-second bar.
sed 's/^/# /' /tmp/settle.report
diag "stats after settle: $(timeout 20 $bin --monitor 0.2 --monitor-count 1 --stats-socket $sock 2>/dev/null | tail -n 1)"

restarts=$(grep -c "restarting in-process" $SCHED_LOG)
seq1=$(cat $SCX/enable_seq 2>/dev/null || echo 0)
is "enabled exactly once plus once per hotplug restart" "$((seq1 - seq0))" "$((1 + restarts))"
check "loader never reported an error exit" sh -c "! grep -E 'error: EXIT|stall|scx_bpf_error' $SCHED_LOG"
check "kernel never ejected it" sh -c "! dmesg | grep -iE 'sched_ext.*(errored|stall|error)'"
stop_sched INT
is "SIGINT detaches cleanly with exit 0" "$SCHED_RC" 0
is "state back to disabled" "$(state)" disabled
check "stats socket removed on exit" sh -c "! [ -e $sock ]"
[ $_fail = 0 ] || show_loader_log
done_testing
