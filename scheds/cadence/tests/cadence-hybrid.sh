# SPDX-License-Identifier: GPL-2.0-only
# scx_cadence on a hybrid layout (faked through SCX_SYSFS_PREFIX on 8
# vCPUs: 0-3 big, 4-7 little): big-core placement of a heavy thread even in
# powersave mode, --autopower following live power-profile switches, and
# the time share of each mode in the stats.
. ./lib.sh
use_fake_hybrid

# on_big PID SECONDS: how many of 10 samples per second found PID on CPUs 0-3
on_big() {
	_b=0; _i=0
	while [ $_i -lt $(($2 * 10)) ]; do
		_c=$(awk '{ print $39 }' /proc/$1/stat 2>/dev/null)
		[ -n "$_c" ] && [ "$_c" -lt 4 ] && _b=$((_b + 1))
		sleep 0.1
		_i=$((_i + 1))
	done
	echo $_b
}

check "attaches with --powersave" start_sched scx_cadence --powersave
like "hybrid layout: two compute domains" "$(cat $SCHED_LOG)" "8 CPUs in 2 compute domain.*hybrid"
# Powersave compacts onto the little cores first, yet a single heavy
# thread must not stay on a little core while big cores idle.
stress-ng --cpu 1 --timeout 8s -q >/dev/null 2>&1 &
sp=$!
sleep 2
hog=$(pgrep -n stress-ng)
big=$(on_big "$hog" 4)
diag "heavy thread on a big core in $big of 40 samples"
check "powersave: the heavy thread runs on big cores" test "$big" -ge 32
line=$(stats_line scx_cadence)
diag "powersave: $line"
is "powersave mode reported" "$(stat_of "$line" power_mode)" powersave
check "schedules on big cores are counted" awk -v v="$(stat_of "$line" pc_big)" 'BEGIN { exit !(v > 0) }'
wait $sp
check "mixed load on a hybrid layout" mixed_workload 12
check "not ejected" sched_alive
stop_sched INT
	is "detach (powersave)" "$SCHED_RC" 0

# --autopower: the profile decides the mode, live.
check "attaches with --autopower" start_sched scx_cadence --autopower
line=$(stats_line scx_cadence)
is "balanced profile: balanced mode" "$(stat_of "$line" power_mode)" balanced
echo low-power >$fake/sys/firmware/acpi/platform_profile
check "a switch to low-power shows as powersave" wait_for 15 sh -c \
	"scx_cadence --monitor 0.2 --monitor-count 1 2>/dev/null | grep -q 'power_mode=powersave'"
echo performance >$fake/sys/firmware/acpi/platform_profile
check "a switch to performance shows as performance" wait_for 15 sh -c \
	"scx_cadence --monitor 0.2 --monitor-count 1 2>/dev/null | grep -q 'power_mode=performance'"
like "the loader logged the switches" "$(cat $SCHED_LOG)" "power profile changed: powersave -> performance"
# A fresh stats connection reports the time share since the start.
line=$(stats_line scx_cadence)
diag "autopower: $line"
for m in balanced powersave performance; do
	check "time in $m mode is in the stats" awk -v v="$(stat_of "$line" pc_$m)" 'BEGIN { exit !(v > 0) }'
done
is "performance: every CPU active" "$(stat_of "$line" nr_active_cpus)" 8
stress-ng --cpu 8 --timeout 3s -q
check "still attached" sched_alive
stop_sched INT
	is "detach (autopower)" "$SCHED_RC" 0
done_testing
