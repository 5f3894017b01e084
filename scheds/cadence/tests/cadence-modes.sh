# SPDX-License-Identifier: GPL-2.0-only
# scx_cadence on one LLC: bad input, autopilot switching modes with load,
# core compaction at low load, the mixed workload, a hackbench storm and
# stress-ng -c at 8x the CPUs without ejection, per-task samples, the
# futex boost, and every mode flag.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
n=$(nproc)
diag "$n CPUs"

scx_cadence --slice-min-us 9000 --slice-max-us 1000 >/dev/null 2>&1
is "min slice above max slice exits 2" $? 2
scx_cadence --performance --powersave >/tmp/bad.out 2>&1
is "two power modes exit 2" $? 2
like "... and say why" "$(cat /tmp/bad.out)" "exclude each other"
scx_cadence --preempt-shift 11 >/dev/null 2>&1
is "preempt-shift out of range exits 2" $? 2
scx_cadence --monitor-sched-samples 0 >/dev/null 2>&1
is "zero samples per second exits 2" $? 2
scx_cadence --monitor-sched-samples 5 --monitor-count 1 >/dev/null 2>&1
is "sample client without a scheduler exits 1" $? 1
is "bad input leaves the kernel untouched" "$(state)" disabled

check "attaches with defaults (autopilot)" start_sched scx_cadence
like "root/ops names it" "$(ops)" "^cadence"
# The loader logs this just after the kernel reports "enabled": wait for it.
check "futex tracepoints attached" wait_for 20 grep -q "futex boost on" $SCHED_LOG

# Autopilot: an idle machine is compacted onto fewer CPUs in powersave mode.
# Under TCG even an idle guest is busy at moments (starting a stats client
# is), so judge a 4 s window: the second line of a monitor covers it.
sleep 2
line=$(timeout 30 scx_cadence --monitor 4 --monitor-count 2 2>/dev/null | tail -n 1)
diag "idle: $line"
check "idle: autopilot spends most of the time in powersave" \
	awk -v v="$(stat_of "$line" pc_powersave)" 'BEGIN { exit !(v > 50) }'
check "idle: compaction keeps fewer CPUs active on average" \
	awk -v v="$(stat_of "$line" avg_active_cpus)" -v n="$n" 'BEGIN { exit !(v < n - 1) }'

# Saturating load: every CPU active, performance mode.
stress-ng --cpu "$n" --timeout 8s -q >/dev/null 2>&1 &
sp=$!
sleep 4
line=$(stats_line scx_cadence)
diag "loaded: $line"
is "loaded: autopilot picks performance" "$(stat_of "$line" power_mode)" performance
is "loaded: every CPU active" "$(stat_of "$line" nr_active_cpus)" "$n"
wait $sp

# An interactive probe beside CPU hogs: wakeups that are not among the most
# critical still take the CPU from a hog with a much later deadline. The
# burners passed a start barrier (a FUTEX_WAIT returning 0): that must not
# leave them marked as lock holders, boosted and unpreemptible, for good.
scxk-burn -n $((2 * n)) -d 6 >/dev/null 2>&1 &
bp=$!
scxk-probe -d 4 >/dev/null 2>&1 &
pp=$!
sleep 2
out=$(timeout 20 scx_cadence --monitor-sched-samples 200 --monitor-count 40 2>&1)
diag "burner samples: $(echo "$out" | grep -c 'comm=scxk-burn'), as lock holders: $(echo "$out" | grep 'comm=scxk-burn' | grep -c 'lock_holder=1')"
check "burners seen in samples" test "$(echo "$out" | grep -c 'comm=scxk-burn')" -gt 0
is "burners are not lock holders after their start barrier" \
	"$(echo "$out" | grep 'comm=scxk-burn' | grep -c 'lock_holder=1')" 0
wait $pp $bp
line=$(stats_line scx_cadence)
check "probe wakeups preempted hogs by deadline" test "$(stat_of "$line" nr_dl_preempt)" -gt 0

# A frame pipeline beside CPU hogs: each stage (300 us, under
# --slice-min-us) wakes the next and then waits, so the next is handed
# off onto its CPU (nr_handoff) instead of preempting a hog elsewhere.
h0=$(stat_of "$line" nr_handoff)
scxk-burn -n $((2 * n)) -d 5 >/dev/null 2>&1 &
bp=$!
scxk-frames -f 60 -c 4 -b 300 -d 4 >/dev/null 2>&1
wait $bp
h1=$(stat_of "$(stats_line scx_cadence)" nr_handoff)
check "frame stages are handed off on the waker's CPU ($h0 -> $h1)" test "$((h1 - h0))" -gt 0

out=$(timeout 20 scx_cadence --monitor-sched-samples 200 --monitor-count 5 2>&1)
is "sample client exits 0" $? 0
like "samples carry criticality" "$out" "pid=[0-9]+ comm=.* lat_cri=[0-9]+ "
is "five samples" "$(echo "$out" | grep -c '^pid=')" 5

check "survives 15 s of mixed load" mixed_workload 15
check "survives a hackbench storm" timeout 120 hackbench -g 8 -l 200
check "survives stress-ng -c at 8x the CPUs" \
	timeout 60 stress-ng --cpu $((8 * n)) --pipe 2 --timeout 10s -q
# Futex traffic: contended waits make lock holders.
stress-ng --futex 2 --mutex 2 --timeout 4s -q >/dev/null 2>&1
check "not ejected" sched_alive
line=$(stats_line scx_cadence)
diag "after load: $line"
check "schedules counted" test "$(stat_of "$line" nr_sched)" -gt 0
check "latency-critical share in range" awk -v v="$(stat_of "$line" pc_lc)" 'BEGIN { exit !(v > 0 && v <= 100) }'
check "lock holders were boosted" test "$(stat_of "$line" lock_boost)" -gt 0
check "criticality threshold set" test "$(stat_of "$line" thr_lat_cri)" -gt 0
stop_sched INT
	is "SIGINT detaches with exit 0" "$SCHED_RC" 0

# Every flag that changes a code path, grouped to keep attaches few (each
# costs ~30 s of verification under TCG), each group with a short load.
# (--autopower is exercised live in cadence-hybrid.)
for flags in "--performance --no-freq-scaling --no-wake-sync --slice-max-us 20000 --slice-min-us 1000 --preempt-shift 2" \
	"--powersave --no-slice-boost --no-preemption" \
	"--balanced --no-core-compaction --no-futex-boost --no-deadline-preempt"; do
	if start_sched scx_cadence $flags; then
		stress-ng --cpu "$n" --pipe 2 --timeout 2s -q >/dev/null 2>&1
		hackbench -g 2 -l 30 >/dev/null 2>&1
		scxk-burn -n $((2 * n)) -d 3 >/dev/null 2>&1 &
		bp=$!
		scxk-frames -f 60 -c 4 -b 300 -d 2 >/dev/null 2>&1 &
		fp=$!
		scxk-probe -d 2 >/dev/null 2>&1
		wait $bp $fp
		line=$(stats_line scx_cadence)
		case "$flags" in
		--performance*) is "--performance: mode and all CPUs active" \
			"$(stat_of "$line" power_mode)/$(stat_of "$line" nr_active_cpus)" "performance/$n" ;;
		--powersave*) is "--powersave: mode" "$(stat_of "$line" power_mode)" powersave
			is "--no-preemption: no preemptions" \
				"$(stat_of "$line" nr_preempt)/$(stat_of "$line" nr_yield)/$(stat_of "$line" nr_dl_preempt)/$(stat_of "$line" nr_handoff)" "0/0/0/0" ;;
		--balanced*) is "--balanced with --no-core-compaction: mode and all CPUs" \
			"$(stat_of "$line" power_mode)/$(stat_of "$line" nr_active_cpus)" "balanced/$n"
			is "--no-futex-boost: tracepoints off" "$(stat_of "$line" futex_boost)" 0
			is "--no-deadline-preempt: no deadline preemptions" "$(stat_of "$line" nr_dl_preempt)" 0 ;;
		esac
		alive=0; sched_alive || alive=1
		stop_sched INT; rc=$SCHED_RC
		is "cadence $flags: ran load and detached cleanly" "$alive/$rc" "0/0"
	else
		_report 1 "cadence $flags: attaches"
		stop_sched KILL
	fi
done
done_testing
