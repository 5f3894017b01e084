# SPDX-License-Identifier: GPL-2.0-only
# Fair shares: cgroup cpu.weight (flat, live reweight, membership churn,
# three levels) and nice, measured from outside by scxk-shares
# (bench/workloads/shares.c): the CPU time the kernel charges to each
# cgroup (cpu.stat) or process, each group running as many CPU burners as
# there are CPUs, so the split is the scheduler's choice alone.
#
# Arguments: SCHED [TOL]. Every ratio must be within TOL percent (default
# 10) of the ideal the weights give. scx_minimal stayed within 2% in 6 runs
# at 2 vCPUs (two guests at once on 2 host cores); a scheduler that
# ignores cgroups gives 1.0 for the cgroup cases (scx_brisk before it
# charged through cgroups: 25-75% off),
# and scx_minimal before it charged real run time and kept an expired task
# that was still first in vtime gave 2.7 for 4.0.
#
# SCHED "fair" runs the kernel's own scheduler for comparison. It is not
# in the suite: its shares depend on where the load balancer leaves each
# group's threads (per-CPU group entities): at 2 vCPUs, 2 of 5 runs had a
# case near 1:2 instead of 1:1 or 4:3 (a different case each time), while
# every other ratio was within 1%.
. ./lib.sh
sched=${1:-minimal}
tol=${2:-10}
grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null || skip_all "no cgroup2 cpu controller"
[ "$sched" = fair ] || need_sched "$sched"
diag "$sched, $(nproc) CPUs, tolerance $tol%"

if [ "$sched" != fair ]; then
	check "attaches" start_sched scx_$sched $(sched_flags $sched)
fi
scxk-shares --warm 2 --window 5 >/tmp/shares.json 2>/tmp/shares.err
is "scxk-shares exits 0" $? 0
sed 's/^/# /' /tmp/shares.err
# One object per case: {"name":"weights","a_ms":..,"b_ms":..,"ratio":..,"ideal":..,"err_pct":..}
sed 's/.*"cases":\[//; s/\].*//; s/},{/}\n{/g' /tmp/shares.json >/tmp/shares.cases
is "six cases measured" "$(grep -c '"err_pct"' /tmp/shares.cases)" 6
field() { echo "$c" | sed "s/.*\"$1\":\"*\([^,\"}]*\).*/\1/"; }
# Not a pipe into the loop: that would run the checks in a subshell.
while read -r c; do
	diag "$(field name): CPU ms $(field a_ms) : $(field b_ms)"
	check "$(field name): ratio $(field ratio), ideal $(field ideal), $(field err_pct)% off" \
		awk -v e="$(field err_pct)" -v t="$tol" 'BEGIN { exit !(e <= t) }'
done </tmp/shares.cases

if [ "$sched" != fair ]; then
	check "not ejected" sched_alive
	stop_sched INT
	is "detaches with exit 0" "$SCHED_RC" 0
fi
done_testing
