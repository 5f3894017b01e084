# SPDX-License-Identifier: GPL-2.0-only
# The README's first command inside the VM: a scheduler with live stats
# beside a demo workload. Arguments: NAME SECONDS [SCHEDULER ARGS...]
. ./lib.sh
name=$1; secs=$2; shift 2
echo "== scx_$name on $(uname -r), $(nproc) CPUs; stats every second =="
scx_$name --stats 1 "$@" &
pid=$!
wait_for 30 state_is enabled || { echo "scheduler did not attach"; exit 1; }
echo "== sched_ext state: $(state), ops: $(ops); starting stress-ng and hackbench =="
stress-ng --cpu "$(nproc)" --timeout "$((secs - 2))s" -q &
( end=$(($(date +%s) + secs - 2)); while [ "$(date +%s)" -lt $end ]; do hackbench -g 2 -l 100 >/dev/null; done ) &
sleep "$secs"
kill -INT $pid
wait $pid
rc=$?
echo "== scx_$name exited with $rc; sched_ext state: $(state) =="
exit $rc
