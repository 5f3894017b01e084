# SPDX-License-Identifier: GPL-2.0-only
# beh-preempt.sh [NAME...] - a task that wakes up to run briefly preempts
# a CPU hog instead of waiting for the hog's slice to end (brisk, cadence
# balance and relay by default; include/scxkit/preempt.bpf.h has the rule).
#
# Two busy loops and cyclictest (SCHED_OTHER, 1 ms period, LOOPS wakeups)
# are pinned to the same CPU, so no idle CPU can take the waking task and
# only a preemption gets it on the CPU before a slice ends. Asserted: the
# scheduler's own preemption counter grew by at least half of the wakeups
# (before the shared rule: 63 for brisk, 43 for cadence). The hogs'
# involuntary switches (nonvoluntary_ctxt_switches) are only reported:
# every wakeup that waits for a slice end switches a hog out too.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v cyclictest >/dev/null || skip_all "no cyclictest in the guest image"
scheds=${*:-brisk cadence balance relay}
LOOPS=3000
cpu=$(($(nproc) - 1))

# preempts NAME BEFORE AFTER : wakeup preemptions between two stats reads
# (balance serves placements as a total since the previous read and shares)
preempts() {
	case $1 in
	brisk) echo $(($(stat_of "$3" preempt) - $(stat_of "$2" preempt))) ;;
	cadence) echo $(($(stat_of "$3" nr_dl_preempt) + $(stat_of "$3" nr_preempt) -
		$(stat_of "$2" nr_dl_preempt) - $(stat_of "$2" nr_preempt))) ;;
	relay) echo $(($(stat_of "$3" nr_preempt_dispatches) - $(stat_of "$2" nr_preempt_dispatches))) ;;
	balance) echo "$(stat_of "$3" total) $(stat_of "$3" preempt)" |
		awk '{ printf "%d", $1 * $2 / 100 }' ;;
	esac
}
nvcsw() { awk '/^nonvoluntary_ctxt_switches/ { print $2 }' /proc/$1/status; }

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	spin $cpu; h1=$SPIN_PID
	spin $cpu; h2=$SPIN_PID
	sleep 0.5
	s0=$(stats_line $bin); n0=$(($(nvcsw $h1) + $(nvcsw $h2)))
	cyclictest -m -q -t 1 -a $cpu -i 1000 -l $LOOPS --policy=other >/dev/null 2>&1
	rc=$?
	s1=$(stats_line $bin); n1=$(($(nvcsw $h1) + $(nvcsw $h2)))
	kill $h1 $h2; wait $h1 $h2 2>/dev/null
	is "$name: cyclictest ran to the end" $rc 0
	p=$(preempts $name "$s0" "$s1")
	n=$((n1 - n0))
	diag "$name: $p preemptions, hogs switched out involuntarily $n times, for $LOOPS wakeups"
	check "$name: preemptions >= half the wakeups ($p >= $((LOOPS / 2)))" [ $p -ge $((LOOPS / 2)) ]
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
done
done_testing
