# SPDX-License-Identifier: GPL-2.0-only
# beh-exit.sh [NAME...] - sysrq-S, for every scheduler (default: all of
# them) in one boot: the kernel disables the scheduler; the loader prints
# the kernel's reason, exits 1 and does not restart; the kernel is back on
# the fair class (state "disabled", a task that was on ext no longer is,
# and it keeps running). The forced error exit (the fault switch) is in
# rel-fault.sh.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
[ -w /proc/sysrq-trigger ] || skip_all "no /proc/sysrq-trigger"
scheds=${*:-$ALL_SCHEDS}
echo 1 >/proc/sys/kernel/sysrq
diag "schedulers: $scheds; kernel $(uname -r)"

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	seq0=$(cat $SCX/enable_seq)
	spin 0
	victim=$SPIN_PID
	sleep 0.5
	check "$name: a busy task is on ext before sysrq-S" on_ext $victim
	pid=$SCHED_PID
	echo S >/proc/sysrq-trigger
	check "$name: sysrq-S disables it" wait_for 10 state_is disabled
	check "$name: the loader exits by itself" wait_for 10 sh -c "! [ -d /proc/$pid ] || grep -q '^State:.*Z' /proc/$pid/status"
	stop_sched KILL
	is "$name: the loader exits 1" "$SCHED_RC" 1
	like "$name: it prints the kernel's reason" "$(cat $SCHED_LOG)" "EXIT: disabled by sysrq-S"
	is "$name: attached once, no restart" "$(grep -c attached $SCHED_LOG)" 1
	is "$name: the kernel did not enable a scheduler again" "$(cat $SCX/enable_seq)" "$seq0"
	check "$name: the task left the ext class" off_ext $victim
	is "$name: it is SCHED_NORMAL (fair)" "$(sed -n 's/^policy *: *//p' /proc/$victim/sched)" 0
	a=$(cpu_ticks $victim)
	sleep 1
	b=$(cpu_ticks $victim)
	check "$name: and keeps running ($a -> $b ticks)" [ "$b" -gt "$a" ]
	kill $victim
	wait $victim 2>/dev/null
	[ $_fail = 0 ] || { diag "loader log:"; tail -n 10 $SCHED_LOG | sed 's/^/#   /'; }
done
done_testing
