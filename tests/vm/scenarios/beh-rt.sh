# SPDX-License-Identifier: GPL-2.0-only
# beh-rt.sh [NAME...] - an RT hog must not starve EXT tasks, for every
# scheduler (default: all of them) in one boot.
#
# A SCHED_FIFO busy loop (chrt -f 50) and an EXT busy loop are pinned to
# the same CPU. The kernel's ext DL server must still give the EXT task
# at least MIN_SHARE percent of that CPU, the bar of the kernel selftest
# rt_stall; the EXT task's CPU time comes from /proc/PID/stat over a
# window of WINDOW_S seconds of wall time.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v chrt >/dev/null || skip_all "no chrt in the guest image"
scheds=${*:-$ALL_SCHEDS}
MIN_SHARE=4
WINDOW_S=6
# A CPU other than 0, so that the loader and the shell keep a free CPU.
cpu=$(($(nproc) - 1))
diag "schedulers: $scheds; CPU $cpu, window ${WINDOW_S}s, kernel $(uname -r)"
diag "ext DL server on CPU $cpu: runtime $(cat /sys/kernel/debug/sched/ext_server/cpu$cpu/runtime 2>/dev/null) ns per $(cat /sys/kernel/debug/sched/ext_server/cpu$cpu/period 2>/dev/null) ns"

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	spin $cpu
	ext=$SPIN_PID
	chrt -f 50 taskset -c $cpu sh -c 'while :; do :; done' &
	rt=$!
	sleep 1
	check "$name: the pinned busy loop is an EXT task" on_ext $ext
	check "$name: the hog is SCHED_FIFO" grep -qE '^policy +: +1$' /proc/$rt/sched
	rt_share=$(cpu_share $rt 1)
	share=$(cpu_share $ext $WINDOW_S)
	diag "$name: EXT task got $share% of CPU $cpu beside the RT hog ($rt_share% over 1 s)"
	check "$name: the RT hog owns CPU $cpu (${rt_share}% > 50%)" [ "$rt_share" -gt 50 ]
	check "$name: the EXT task gets >= $MIN_SHARE% of CPU $cpu (${share}%)" [ "$share" -ge $MIN_SHARE ]
	is "$name: and ran on CPU $cpu" "$(last_cpu $ext)" $cpu
	kill $rt $ext
	wait $rt $ext 2>/dev/null
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
done
done_testing
