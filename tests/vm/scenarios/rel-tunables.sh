# SPDX-License-Identifier: GPL-2.0-only
# rel-tunables.sh - global tunables a loader changes come back to their
# true original after an unclean exit (common/sched/tunable.c):
#   - scx_relay (libscxuser) sets vm.compact_unevictable_allowed=0;
#   - scx_brisk -I US sets every CPU's pm_qos_resume_latency_us.
# For each: start, SIGKILL, the value stays changed (the kernel does not
# undo it), start again, stop cleanly: the value is the one from before the
# first start, not the leaked one, and no saved original is left behind.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
store=/run/scx/tunables
compact=/proc/sys/vm/compact_unevictable_allowed
# Distinct from what the loaders write, so a leaked value cannot pass for it.
compact_orig=1
qos_orig=50
qos_set=100
diag "$(nproc) CPUs, kernel $(uname -r)"

# kill_sched : SIGKILL the loader and wait for the kernel to drop it
kill_sched() {
	stop_sched KILL
	wait_for 10 state_is disabled
}

# ---- libscxuser: vm.compact_unevictable_allowed ----
if [ -w $compact ] && command -v scx_relay >/dev/null; then
	echo $compact_orig >$compact
	check "scx_relay attaches" start_sched scx_relay
	is "running: compaction of unevictable pages is off" "$(cat $compact)" 0
	is "the original is saved under $store" \
		"$(sed -n 3p $store/vm.compact_unevictable_allowed 2>&1)" "$compact_orig"
	check "SIGKILL: back to the default scheduler" kill_sched
	is "after SIGKILL the value stays changed (the kernel keeps it)" "$(cat $compact)" 0
	check "the saved original survives the SIGKILL" [ -e $store/vm.compact_unevictable_allowed ]
	check "a new start attaches" start_sched scx_relay
	like "the new start restored what the dead loader left" "$(cat $SCHED_LOG)" \
		"restoring $compact to \"$compact_orig\""
	is "running again: changed again" "$(cat $compact)" 0
	stop_sched INT
	is "clean stop exits 0" "$SCHED_RC" 0
	is "clean stop restores the true original, not the leaked 0" "$(cat $compact)" \
		"$compact_orig"
	check "no saved original left" [ ! -e $store/vm.compact_unevictable_allowed ]
else
	_report 0 "# SKIP no $compact or no scx_relay"
fi

# ---- scx_brisk -I: every CPU's resume-latency QoS ----
qos() { cat /sys/devices/system/cpu/cpu$1/power/pm_qos_resume_latency_us; }
# qos_all : the values of every online CPU, one line
qos_all() {
	for _c in $(seq 0 $(($(nproc) - 1))); do printf '%s ' "$(qos $_c)"; done
}
want() { for _c in $(seq 0 $(($(nproc) - 1))); do printf '%s ' "$1"; done; }
qos_is() { [ "$(qos_all)" = "$(want $1)" ]; }
if [ -w /sys/devices/system/cpu/cpu0/power/pm_qos_resume_latency_us ] &&
	command -v scx_brisk >/dev/null; then
	qos_boot=$(qos 0)
	for _c in $(seq 0 $(($(nproc) - 1))); do
		echo $qos_orig >/sys/devices/system/cpu/cpu$_c/power/pm_qos_resume_latency_us
	done
	is "every CPU's QoS set to the test's original" "$(qos_all)" "$(want $qos_orig)"
	check "scx_brisk -I $qos_set attaches" start_sched scx_brisk -I $qos_set
	wait_for 10 qos_is $qos_set
	is "running: every CPU's QoS is $qos_set" "$(qos_all)" "$(want $qos_set)"
	check "SIGKILL: back to the default scheduler" kill_sched
	is "after SIGKILL the QoS stays at $qos_set" "$(qos_all)" "$(want $qos_set)"
	check "a new start attaches" start_sched scx_brisk -I $qos_set
	wait_for 10 grep -q "primary domain" $SCHED_LOG
	like "the new start restored what the dead loader left" "$(cat $SCHED_LOG)" \
		"restoring .*cpu0/power/pm_qos_resume_latency_us to \"$qos_orig\""
	stop_sched INT
	is "clean stop exits 0" "$SCHED_RC" 0
	is "clean stop restores the true original $qos_orig on every CPU" "$(qos_all)" \
		"$(want $qos_orig)"
	check "no saved original left" sh -c "! ls $store/cpu* 2>/dev/null | grep -q ."

	# CPU hotplug is handled in place: the last CPU, offline at start,
	# gets the QoS when it comes online, keeps it through another off/on,
	# and the clean stop gives it back its original; no restart.
	last=$(($(nproc) - 1))
	lastonline=/sys/devices/system/cpu/cpu$last/online
	if [ "$last" -ge 1 ] && [ -w $lastonline ]; then
		echo 0 >$lastonline
		check "scx_brisk -I $qos_set attaches with CPU $last offline" \
			start_sched scx_brisk -I $qos_set
		wait_for 10 grep -q "primary domain" $SCHED_LOG
		is "CPU $last, offline at start, keeps its QoS meanwhile" "$(qos $last)" $qos_orig
		echo 1 >$lastonline
		wait_for 10 sh -c "[ \$(cat /sys/devices/system/cpu/cpu$last/power/pm_qos_resume_latency_us) = $qos_set ]"
		is "CPU $last online: its QoS is $qos_set too" "$(qos $last)" $qos_set
		echo 0 >$lastonline
		echo 1 >$lastonline
		sleep 2
		is "after another off/on CPU $last still has $qos_set" "$(qos $last)" $qos_set
		is "no restart: hotplug handled in place" "$(grep -c 'restarting in-process' $SCHED_LOG)" 0
		stop_sched INT
		is "clean stop exits 0" "$SCHED_RC" 0
		is "clean stop restores $qos_orig on every CPU, CPU $last included" "$(qos_all)" \
			"$(want $qos_orig)"
	else
		_report 0 "# SKIP one CPU or no hotplug control: no CPU to bring online"
	fi
	for _c in $(seq 0 $(($(nproc) - 1))); do
		echo "$qos_boot" >/sys/devices/system/cpu/cpu$_c/power/pm_qos_resume_latency_us 2>/dev/null
	done
else
	_report 0 "# SKIP no per-CPU resume-latency QoS or no scx_brisk"
fi
check "state disabled at the end" state_is disabled
done_testing
