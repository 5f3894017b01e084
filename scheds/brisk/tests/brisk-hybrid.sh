# SPDX-License-Identifier: GPL-2.0-only
# scx_brisk on a hybrid layout (faked through SCX_SYSFS_PREFIX on 8 vCPUs):
# the performance/powersave domains pick the right cores, "-m auto" follows
# the power profile live, -I goes through the same tree, nothing ejects.
. ./lib.sh
use_fake_hybrid

check "attaches with -m performance" start_sched scx_brisk -m performance
line=$(stats_line scx_brisk)
is "performance domain is the P-cores" "$(stat_of "$line" primary)" "0-3"
check "mixed load on a hybrid layout" mixed_workload 15
check "not ejected" sched_alive
stop_sched INT
	is "detach" "$SCHED_RC" 0

check "attaches with -m powersave" start_sched scx_brisk -m powersave
line=$(stats_line scx_brisk)
is "powersave domain is the E-cores" "$(stat_of "$line" primary)" "4-7"
stress-ng --cpu 8 --timeout 4s -q
check "not ejected (powersave)" sched_alive
stop_sched INT
	is "detach (powersave)" "$SCHED_RC" 0

check "attaches with -m auto and -I 30" start_sched scx_brisk -m auto -I 30
line=$(stats_line scx_brisk)
is "auto on a balanced profile uses all CPUs" "$(stat_of "$line" mode)" all
is "-I applied through the prefix" "$(cat $fake/sys/devices/system/cpu/cpu5/power/pm_qos_resume_latency_us)" 30
echo low-power >$fake/sys/firmware/acpi/platform_profile
check "auto follows a switch to low-power" wait_for 15 sh -c \
	"scx_brisk --monitor 0.2 --monitor-count 1 2>/dev/null | grep -q 'mode=powersave'"
line=$(stats_line scx_brisk)
is "... and uses the E-cores" "$(stat_of "$line" primary)" "4-7"
echo performance >$fake/sys/firmware/acpi/platform_profile
check "auto follows a switch to performance" wait_for 15 sh -c \
	"scx_brisk --monitor 0.2 --monitor-count 1 2>/dev/null | grep -q 'mode=performance'"
like "the loader logged the restart" "$(cat $SCHED_LOG)" "power profile changed"
check "still attached after two restarts" sched_alive
stop_sched INT
	is "detach (auto)" "$SCHED_RC" 0
is "-I restored on exit" "$(cat $fake/sys/devices/system/cpu/cpu5/power/pm_qos_resume_latency_us)" 0
done_testing
