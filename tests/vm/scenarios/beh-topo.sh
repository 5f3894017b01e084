# SPDX-License-Identifier: GPL-2.0-only
# beh-topo.sh [NAME...] - topology edge cases, for every scheduler
# (default: all of them) in one boot of 4 or more CPUs:
#   - the last CPU offline when the scheduler starts: it attaches and runs
#     tasks pinned to each online CPU there, on ext; the CPU coming online
#     later is handled (the loader stays up, the kernel has a scheduler
#     enabled again, and a task pinned to that CPU runs there on ext);
#   - sparse CPU ids (CPU 1 offline at start): tasks pinned to each online
#     CPU run there, on ext; counters move.
# beh-manycpu.sh covers more than 64 CPUs.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
ncpu=$(nproc)
[ "$ncpu" -ge 4 ] || skip_all "needs 4 CPUs, have $ncpu"
scheds=${*:-$ALL_SCHEDS}
last=$((ncpu - 1))
diag "schedulers: $scheds; $ncpu CPUs, kernel $(uname -r)"

online() { echo "$2" >/sys/devices/system/cpu/cpu$1/online; }

# moves NAME : the scheduler's counters move under a short load
moves() {
	stress-ng --cpu "$ncpu" --timeout 3s -q &
	_p=$!
	sleep 1
	_dec=$(sched_decisions $1)
	wait $_p
	check "$1: places tasks ($_dec decisions)" [ "${_dec:-0}" -gt 0 ]
}

for name in $scheds; do
	have_sched $name || continue
	flags=$(sched_flags $name)

	# ---- the last CPU offline at start, online later ----
	online $last 0
	check "$name: attaches with CPU $last offline" start_sched $bin $flags || { online $last 1; continue; }
	pid=$SCHED_PID
	moves $name
	runs_on "$name, CPU $last offline" $(seq 0 $((last - 1)))
	online $last 1
	sleep 1
	check "$name: enabled again after CPU $last came online" wait_for 60 state_is enabled
	is "$name: the same loader still runs" "$(kill -0 $pid 2>/dev/null && echo $pid)" $pid
	runs_on "$name, CPU $last back" $last
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0

	# ---- sparse CPU ids: CPU 1 offline ----
	online 1 0
	check "$name: attaches with CPU 1 offline" start_sched $bin $flags || { online 1 1; continue; }
	moves $name
	runs_on "$name, CPU 1 offline" 0 $(seq 2 $last)
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
	online 1 1
	[ $_fail = 0 ] || { diag "loader log:"; tail -n 10 $SCHED_LOG | sed 's/^/#   /'; }
done
done_testing
