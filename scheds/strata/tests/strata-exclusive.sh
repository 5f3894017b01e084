# SPDX-License-Identifier: GPL-2.0-only
# scx_strata's exclusive layer on one SMT pair (QEMU threads=2): while an
# exclusive task runs, its sibling takes no layer work, but a task that
# only the sibling may run (pinned there, so it waits on the fallback
# queue) still runs: the sibling serves antistall and the fallback's share
# before it honours exclusivity. Before that order, the pinned task never
# ran and the kernel's watchdog ejected the scheduler.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null)
case "$sib" in 0-1 | 0,1) ;; *) skip_all "CPU 0 has no SMT sibling (siblings '$sib')" ;; esac

cat >/tmp/excl.json <<'JSON'
[
  {"name": "excl", "comment": "a hog that wants its core to itself",
   "matches": [[{"CommPrefix": "excl-"}]],
   "kind": {"Open": {"exclusive": true}}},
  {"name": "rest", "matches": [[]], "kind": {"Open": {}}}
]
JSON
hog() { ( printf %s "$1" >/proc/self/comm; while :; do :; done ) & }

# 10 s watchdog: a starved task ejects the scheduler well inside the run.
export SCX_TIMEOUT_MS=10000
check "attaches with an exclusive layer" start_sched scx_strata f:/tmp/excl.json
hog excl-1; h=$!
sleep 2
# Work only CPU 1 may do, beside the exclusive hog.
start=$(date +%s)
check "a task pinned to the exclusive task's sibling finishes" \
	timeout 60 taskset -c 1 sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
diag "it took $(( $(date +%s) - start )) s"
# Finishing proves nothing if the kernel ejected us and ran it on the fair class.
check "still attached after the pinned task ran" sched_alive ||
	sed 's/^/#   /' $SCHED_LOG | grep -iE 'exit|stall|runnable' | head -n 5
check "message passing pinned to the sibling: hackbench -g 1 finishes" \
	timeout 60 taskset -c 1 hackbench -g 1 -l 20
line=$(stats_line scx_strata)
excl=$(echo "$line" | sed -n 's/.*"excl":{\([^}]*\)}.*/\1/p')
diag "excl: $excl"
check "the exclusive hog was counted in its layer" echo "$excl" | grep -q '"tasks":1'
check "the sibling idled for the exclusive task (excl_idle > 0)" \
	test "$(echo "$excl" | sed -n 's/.*"excl_idle":\([0-9]*\).*/\1/p')" -gt 0
check "not ejected" sched_alive
kill $h
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
done_testing
