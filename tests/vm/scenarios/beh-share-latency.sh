# SPDX-License-Identifier: GPL-2.0-only
# beh-share-latency.sh [NAME...] - interactivity within a cgroup's share
# (issue 23, item 4), for the schedulers with interactivity rules (brisk
# and cadence by default):
#
#  1. a heavy cgroup cannot starve an interactive task in a light one:
#     two busy loops in a cgroup of cpu.weight 900 and cyclictest
#     (SCHED_OTHER, 1 ms period) in a sibling of weight 100 share one CPU;
#     the waking task must still preempt the hogs (the scheduler's own
#     preemption counter grows by at least half the wakeups, as in
#     beh-preempt). It needs a few µs per millisecond, far inside the
#     light cgroup's 10%, so nothing but the policy can keep it waiting.
#  2. a light cgroup's interactive-looking tasks cannot take more than
#     its share by waking often: scxk-probe with 4 threads per CPU (each
#     sleeps 0.2-0.6 ms and works 0.2 ms, so together they want more than
#     the machine) in the weight-100 cgroup, one busy loop per CPU in the
#     weight-900 one. The light cgroup's part of the CPU time (cpu.stat) must
#     stay within SHARE_MAX percent; its share is 10%. A scheduler that
#     let sleep credit or wakeup preemption ignore cgroup weights gives it
#     half or more.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v cyclictest >/dev/null || skip_all "no cyclictest in the guest image"
grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null || skip_all "no cgroup2 cpu controller"
scheds=${*:-brisk cadence}
LOOPS=3000
SHARE_MAX=15
cpu=$(($(nproc) - 1))
cg=share-lat

preempts() {
	case $1 in
	brisk) echo $(($(stat_of "$3" preempt) - $(stat_of "$2" preempt))) ;;
	cadence) echo $(($(stat_of "$3" nr_dl_preempt) + $(stat_of "$3" nr_preempt) -
		$(stat_of "$2" nr_dl_preempt) - $(stat_of "$2" nr_preempt))) ;;
	esac
}

cg_siblings $cg heavy=900 light=100

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue

	cg_run $cg/heavy taskset -c $cpu sh -c 'while :; do :; done'; h1=$!
	cg_run $cg/heavy taskset -c $cpu sh -c 'while :; do :; done'; h2=$!
	sleep 0.5
	s0=$(stats_line $bin)
	cg_run $cg/light cyclictest -m -q -t 1 -a $cpu -i 1000 -l $LOOPS --policy=other
	wait $!
	rc=$?
	s1=$(stats_line $bin)
	kill $h1 $h2; wait $h1 $h2 2>/dev/null
	is "$name: cyclictest in the light cgroup ran to the end" $rc 0
	p=$(preempts $name "$s0" "$s1")
	diag "$name: $p preemptions of the heavy cgroup's hogs for $LOOPS wakeups in the light one"
	check "$name: preemptions >= half the wakeups ($p >= $((LOOPS / 2)))" [ $p -ge $((LOOPS / 2)) ]

	hogs=
	for _c in $(seq $(nproc)); do
		cg_run $cg/heavy sh -c 'while :; do :; done'; hogs="$hogs $!"
	done
	n=$((4 * $(nproc)))
	cg_run $cg/light scxk-probe -t $n --sleep-min-us 200 --sleep-max-us 600 --work-us 200 -d 8 >/dev/null
	pr=$!
	sleep 2
	h0=$(cg_usage $cg/heavy); l0=$(cg_usage $cg/light)
	sleep 4
	h1=$(cg_usage $cg/heavy); l1=$(cg_usage $cg/light)
	kill $hogs $pr 2>/dev/null; wait $hogs $pr 2>/dev/null
	share=$(awk -v h=$((h1 - h0)) -v l=$((l1 - l0)) 'BEGIN { printf "%.1f", h + l ? 100 * l / (h + l) : 100 }')
	diag "$name: light cgroup's probe $((l1 - l0)) us, heavy cgroup's hogs $((h1 - h0)) us of CPU"
	check "$name: light cgroup got $share% (share 10%, at most $SHARE_MAX%)" \
		awk -v s=$share -v m=$SHARE_MAX 'BEGIN { exit !(s <= m) }'

	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
done
rmdir /sys/fs/cgroup/$cg/heavy /sys/fs/cgroup/$cg/light /sys/fs/cgroup/$cg 2>/dev/null
done_testing
