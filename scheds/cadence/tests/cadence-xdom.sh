# SPDX-License-Identifier: GPL-2.0-only
# cpu.weight across compute domains (two LLCs): a cgroup at cpu.weight 300
# whose CPU burners start on the first socket's CPUs and one at 100 whose
# burners start on the second's, as many burners per group as CPUs. Once
# the affinity is lifted, each domain's queue is fair only to itself and
# stealing by queue length sees two equal domains, so the split stays 1:1
# unless tasks behind their share move to the other domain
# (steal_earlier() in placement.bpf.c). Asserted: the ratio of CPU time
# (cpu.stat) within TOL percent (default 10) of 3.
. ./lib.sh
tol=${1:-10}
[ -d $SCX ] || skip_all "kernel without sched_ext"
grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null || skip_all "no cgroup2 cpu controller"
n=$(nproc)
half=$((n / 2))
diag "$n CPUs, LLCs: $(cat /sys/devices/system/cpu/cpu*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | tr '\n' ' ')"

check "attaches" start_sched scx_cadence
cg_siblings xdom a=300 b=100
pids=
for i in $(seq 1 $n); do
	cg_run xdom/a taskset -c 0-$((half - 1)) sh -c 'while :; do :; done'
	pids="$pids $!"
	cg_run xdom/b taskset -c $half-$((n - 1)) sh -c 'while :; do :; done'
	pids="$pids $!"
done
sleep 1
for p in $pids; do taskset -p -c 0-$((n - 1)) $p >/dev/null; done
usage() { cg_usage xdom/$1; }
sleep 2
t0=$(cut -d' ' -f1 /proc/uptime)
a0=$(usage a) b0=$(usage b)
sleep 5
a1=$(usage a) b1=$(usage b)
t1=$(cut -d' ' -f1 /proc/uptime)
kill $pids 2>/dev/null
for p in $pids; do wait $p 2>/dev/null; done
ratio=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", b ? a / b : 0 }')
diag "CPU ms $(((a1 - a0) / 1000)) : $(((b1 - b0) / 1000)) in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s (5 s asked)"
check "cpu.weight 300 vs 100 across domains: ratio $ratio, ideal 3" \
	awk -v r=$ratio -v t=$tol 'BEGIN { e = (r > 3 ? r - 3 : 3 - r) * 100 / 3; exit !(e <= t) }'
rmdir /sys/fs/cgroup/xdom/a /sys/fs/cgroup/xdom/b /sys/fs/cgroup/xdom 2>/dev/null
check "not ejected" sched_alive
stop_sched INT
is "detaches with exit 0" "$SCHED_RC" 0
done_testing
