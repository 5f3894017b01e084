# SPDX-License-Identifier: GPL-2.0-only
# scx_brisk on a 2-node SMT machine: attach, mixed load and a hackbench
# storm without ejection, every mode flag, stats, clean detach.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
diag "$(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) nodes"

scx_brisk -m 99-100 >/tmp/bad.out 2>&1
is "primary domain naming absent CPUs exits 2" $? 2
scx_brisk -m bogus >/dev/null 2>&1
is "unknown primary domain exits 2" $? 2
scx_brisk -L 9000 -s 1000 >/dev/null 2>&1
is "min slice above max slice exits 2" $? 2
is "bad input leaves the kernel untouched" "$(state)" disabled

check "attaches with defaults" start_sched scx_brisk
like "root/ops names it" "$(ops)" "^brisk"
line=$(stats_line scx_brisk)
like "stats readable with --monitor" "$line" "nr_running=[0-9]+ nr_cpus=$(nproc) "
check "survives 30 s of mixed load" mixed_workload 30
check "survives a hackbench storm" timeout 120 hackbench -g 8 -l 400
check "not ejected" sched_alive
line=$(stats_line scx_brisk)
diag "stats after load: $line"
stop_sched INT
	is "SIGINT detaches with exit 0" "$SCHED_RC" 0

# Every flag that changes a code path, each with a short load.
for flags in "-p" "-k" "-w" "-S" "-t 500" "-f" "-m performance" "-m powersave" \
	"-m turbo" "-m all" "-m 0-3" "-m 0xc" "--disable-smt" "--disable-numa" \
	"--no-preempt" "-s 20000 -L 1000 -l 5000"; do
	mode_run brisk 4 $flags
done

# -I sets each CPU's resume-latency QoS and restores it on exit.
q=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
if [ -w $q ]; then
	before=$(cat $q)
	check "attaches with -I 20" start_sched scx_brisk -I 20
	# The loader sets it just after the kernel reports the attach.
	qos_is() { [ "$(cat $q)" = "$1" ]; }
	check "-I applied" wait_for 5 qos_is 20 || diag "QoS is $(cat $q)"
	stop_sched INT
	is "-I run detaches" "$SCHED_RC" 0
	is "-I restored on exit" "$(cat $q)" "$before"
else
	diag "no PM QoS file in this guest; -I checked on the fake tree in brisk-hybrid"
fi
done_testing
