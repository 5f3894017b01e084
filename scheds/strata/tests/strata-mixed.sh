# SPDX-License-Identifier: GPL-2.0-only
# strata-mixed.sh [REPS] [HOGS] - scx_strata --run-example through the
# sequence of issue 22, REPS times in one attach (default 3): a 1 kHz
# periodic task (cyclictest --policy=other) beside 4 CPU hogs, a frame
# chain (scxk-frames) beside 4 hogs, hackbench, 2 hogs, two cgroups of
# cpu.weight 100 and 300 running 2 hogs each, and 2 hogs at nice 0 beside
# 2 at nice 5. HOGS is sh (busy shell loops, which no layer of the example
# singles out), stress-ng (caught by the example's "stress-ng" layer), or
# mix (default: alternate per repetition). The scheduler must stay
# attached through every step; when the kernel ejects it, its exit report
# is printed (the console log holds the kernel's dump).
#
# Before the fix, the first nice step ejected it (runnable task stall) in
# every run: the nice-5 hogs woke the "batch" layer, idle until then and so
# minutes behind on the layer clock, and the catch-all layer's tasks waited
# behind it on the one CPU the "stress-ng" layer left to the shared layers.
#
# First, work that no layer singles out (2 busy shell loops in the
# catch-all layer) must get most of the machine: at least MIN_SHARE % of
# its CPU time, from /proc/PID/stat (the default scheduler gives 99 %).
. ./lib.sh
need_sched strata
reps=${1:-3}
mode=${2:-mix}
diag "$(nproc) CPUs, $reps repetitions, hogs: $mode, kernel $(uname -r)"

HOG_PIDS=
# hogs N [NICE] [CGROUP] : N CPU hogs of the current kind, in the background
hogs() {
	_hn=$1 _ni=${2:-0} _cg=${3:-}
	if [ "$kind" = stress-ng ]; then
		sh -c "[ -n '$_cg' ] && echo \$\$ >/sys/fs/cgroup/$_cg/cgroup.procs
			renice -n $_ni -p \$\$ >/dev/null; exec stress-ng --cpu $_hn -q" &
		HOG_PIDS="$HOG_PIDS $!"
		return
	fi
	_i=0
	while [ $_i -lt "$_hn" ]; do
		sh -c "[ -n '$_cg' ] && echo \$\$ >/sys/fs/cgroup/$_cg/cgroup.procs
			renice -n $_ni -p \$\$ >/dev/null; exec sh -c 'while :; do :; done'" &
		HOG_PIDS="$HOG_PIDS $!"
		_i=$((_i + 1))
	done
}
stop_hogs() {
	[ -n "$HOG_PIDS" ] || return 0
	kill $HOG_PIDS 2>/dev/null
	wait $HOG_PIDS 2>/dev/null
	HOG_PIDS=
}

ejected=
# step NAME : after a step, the scheduler must still be attached
step() {
	if sched_alive; then
		diag "rep $rep $kind: $1 done at $(cut -d' ' -f1 /proc/uptime)s"
		return 0
	fi
	ejected="rep $rep ($kind hogs), step $1"
	return 1
}

rep_once() {
	hogs 4
	cyclictest --policy=other -i 1000 -t 1 -D 14 -q >/tmp/cyclic.out 2>&1
	stop_hogs
	step "cyclictest beside 4 hogs" || return 1
	hogs 4
	scxk-frames -f 100 -c 6 -b 200 -d 12 >/tmp/frames.out 2>&1
	stop_hogs
	step "frames beside 4 hogs" || return 1
	hackbench -g 4 -l 300 >/dev/null 2>&1
	step "hackbench" || return 1
	hogs 2
	sleep 8
	stop_hogs
	step "2 hogs" || return 1
	hogs 2 0 w100
	hogs 2 0 w300
	sleep 8
	stop_hogs
	step "cgroups of weight 100 and 300" || return 1
	hogs 2
	hogs 2 5
	sleep 8
	stop_hogs
	step "nice 0 beside nice 5" || return 1
}

# Made once: under multi-threaded TCG, creating and removing cgroups in a
# loop flips static keys, and a CPU caught in the text patching oopsed.
mkdir -p /sys/fs/cgroup/w100 /sys/fs/cgroup/w300
echo 100 >/sys/fs/cgroup/w100/cpu.weight
echo 300 >/sys/fs/cgroup/w300/cpu.weight
check "attaches with the built-in example" start_sched scx_strata --run-example
MIN_SHARE=80
kind=sh
hogs 2
sleep 1
set -- $HOG_PIDS
t0=$(($(cpu_ticks $1) + $(cpu_ticks $2))) w0=$(uptime_cs)
sleep 8
t1=$(($(cpu_ticks $1) + $(cpu_ticks $2))) w1=$(uptime_cs)
stop_hogs
share=$(((t1 - t0) * 100 / ($(nproc) * (w1 - w0))))
check "2 busy loops of the catch-all layer get >= $MIN_SHARE% of the machine (${share}%)" \
	[ "$share" -ge $MIN_SHARE ]
rep=1
while [ $rep -le "$reps" ]; do
	case $mode in
	mix) [ $((rep % 2)) = 1 ] && kind=stress-ng || kind=sh ;;
	*) kind=$mode ;;
	esac
	rep_once || break
	diag "$(stats_line scx_strata)"
	rep=$((rep + 1))
done
stop_hogs
rmdir /sys/fs/cgroup/w100 /sys/fs/cgroup/w300
if [ -n "$ejected" ]; then
	nok "stays attached through $reps repetitions (ejected in $ejected)"
	diag "state $(state); scx_strata's output:"
	sed 's/^/#   /' $SCHED_LOG | head -n 120
	SCHED_PID=
else
	ok "stays attached through $reps repetitions"
	stop_sched INT
	is "detaches with exit 0" "$SCHED_RC" 0
fi
done_testing
