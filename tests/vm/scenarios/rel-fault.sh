# SPDX-License-Identifier: GPL-2.0-only
# rel-fault.sh NAME [survive|eject] [FLAGS...] - how scx_NAME fails, in one
# VM boot:
#   - every option with malformed values exits 2 and leaves the kernel
#     untouched (rel-badinput.sh --strict);
#   - the stats socket and its directory are root-only, and an unprivileged
#     user cannot read stats;
#   - SIGKILL of the loader: the kernel goes back to its default scheduler
#     and a new start succeeds at once;
#   - SIGSTOP of the loader for longer than the watchdog timeout: a
#     scheduler whose decisions are all in BPF survives ("survive", the
#     default); one that needs user space ("eject") is ejected within the
#     timeout and says so once it runs again;
#   - the test-only fault switch (builds with -Dfault_injection=true): a
#     task that is never dispatched makes the watchdog eject the scheduler;
#     the loader prints the kernel's reason and debug dump, exits 1, and
#     does not restart.
. ./lib.sh
name=${1:-minimal}
sigstop=${2:-survive}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
flags="$*"
need_sched $name
ncpu=$(nproc)
# Short watchdog so that stalls show within seconds (the kernel's default is 30 s).
timeout_ms=3000
diag "$bin $flags on $ncpu CPUs, kernel $(uname -r), SIGSTOP expectation: $sigstop"

exited() { ! [ -d /proc/$1 ] || grep -q '^State:.*Z' /proc/$1/status 2>/dev/null; }
cpu_ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null; }

# ---- bad input, inside the real kernel ----
seq0=$(cat $SCX/enable_seq 2>/dev/null || echo 0)
sh scenarios/rel-badinput.sh --strict $bin >/tmp/badinput.tap 2>&1
rc=$?
is "bad input: every option refuses malformed values with exit 2 ($(grep -c '^ok' /tmp/badinput.tap) checks)" $rc 0
[ $rc = 0 ] || grep -v '^ok' /tmp/badinput.tap | head -n 20 | sed 's/^/#   /'
is "bad input left the kernel untouched (state)" "$(state)" disabled
is "bad input never enabled a scheduler (enable_seq)" "$(cat $SCX/enable_seq 2>/dev/null || echo 0)" "$seq0"

# ---- stats socket permissions ----
check "attaches" start_sched $bin $flags || { done_testing; }
wait_for 10 test -S /var/run/scx/root/stats
is "stats socket directory is root-only" "$(stat -L -c '%a %u' /var/run/scx/root)" "700 0"
is "stats socket is root-only" "$(stat -L -c '%a %u' /var/run/scx/root/stats)" "600 0"
# busybox's setpriv has no --reuid; su as root needs no password.
is "su runs a command as nobody" "$(su -s /bin/sh nobody -c 'id -u' 2>&1)" 65534
su -s /bin/sh nobody -c "$bin --monitor 0.2 --monitor-count 1" >/tmp/nobody.out 2>&1
rc=$?
check "an unprivileged user cannot read stats (exit $rc)" [ $rc != 0 ]
like "refused for lack of permission" "$(cat /tmp/nobody.out)" "[Pp]ermission denied"
out=$(timeout 20 $bin --monitor 0.2 --monitor-count 1 2>&1)
is "root reads stats" $? 0

# ---- SIGKILL and an immediate restart ----
stop_sched KILL
check "SIGKILL: the kernel returns to its default scheduler" wait_for 10 state_is disabled
check "a new start succeeds at once (stale socket replaced)" start_sched $bin $flags
out=$(timeout 20 $bin --monitor 0.2 --monitor-count 1 2>&1)
is "stats served again after the restart" $? 0

# ---- SIGSTOP longer than the watchdog ----
stop_sched INT
export SCX_TIMEOUT_MS=$timeout_ms
start_sched $bin $flags
unset SCX_TIMEOUT_MS
# CPU hogs for the whole stop, so that tasks keep coming back to the
# scheduler at every slice end: with only a short burst of work, a
# user-space scheduler whose queue drained before the stop has nothing
# the watchdog could find waiting.
stress-ng --cpu $((2 * ncpu)) --timeout $((timeout_ms / 1000 * 2 + 4))s -q >/dev/null 2>&1 &
hogs=$!
hackbench -g 2 -l 200 >/dev/null 2>&1 &
hb=$!
sleep 0.5
kill -STOP $SCHED_PID
sleep $((timeout_ms / 1000 * 2))
# An ejection started by then may still be finishing (state "disabling"
# while CPU hogs compete with the kernel's disable work): give it time,
# with the loader still stopped, so the kernel alone must complete it.
[ "$sigstop" = survive ] || wait_for 30 state_is disabled || true
st=$(state)
kill -CONT $SCHED_PID
wait $hb
is "work went on while the loader was stopped" $? 0
wait $hogs
is "the CPU hogs completed" $? 0
if [ "$sigstop" = survive ]; then
	is "SIGSTOP for 2x the watchdog timeout: still enabled (BPF-only decisions)" "$st" enabled
	check "still attached after SIGCONT" sched_alive
	stop_sched INT
	is "clean detach after SIGCONT" "$SCHED_RC" 0
else
	is "SIGSTOP for 2x the watchdog timeout: ejected" "$st" disabled
	wait_for 10 exited $SCHED_PID
	stop_sched INT
	check "the loader exits non-zero after the ejection (exit $SCHED_RC)" [ "$SCHED_RC" != 0 ]
	like "the loader reports the kernel's reason" "$(cat $SCHED_LOG)" "EXIT: "
fi

# ---- the fault switch ----
if ! $bin --help | grep -q -- '--fault-starve-tgid'; then
	diag "SKIP fault switch: build without -Dfault_injection=true"
	echo "ok $((_n + 1)) # SKIP fault switch needs -Dfault_injection=true"
	_n=$((_n + 1))
	done_testing
fi
# The victim spins, so it is runnable all the time; hogs beside it make
# sure it goes back through ops.enqueue at each slice end.
sh -c 'while :; do :; done' &
victim=$!
stress-ng --cpu "$ncpu" --timeout 60s -q &
hogs=$!
sleep 0.5
t0=$(date +%s)
SCX_TIMEOUT_MS=$timeout_ms $bin $flags --fault-starve-tgid $victim >/tmp/fault.log 2>&1 &
fpid=$!
check "the watchdog ejects it and the loader exits within 60 s" wait_for 60 exited $fpid
wait $fpid
frc=$?
t1=$(date +%s)
diag "loader exited after $((t1 - t0)) s with $frc"
is "the loader exits 1 after the ejection" $frc 1
log=$(cat /tmp/fault.log)
like "it printed the kernel's reason" "$log" "EXIT: runnable task stall"
like "the reason names the starved task" "$log" "stall.*(sh|$victim)"
like "it printed the kernel's debug dump" "$log" "kernel debug dump"
is "it attached once: no restart loop" "$(grep -c 'attached' /tmp/fault.log)" 1
is "state back to disabled" "$(state)" disabled
check "the starved task left the ext class (/proc/PID/sched)" off_ext $victim
a=$(cpu_ticks $victim)
sleep 1
b=$(cpu_ticks $victim)
check "the starved task runs again under the default scheduler ($a -> $b ticks)" [ "$b" -gt "$a" ]
kill $victim $hogs 2>/dev/null
wait $hogs 2>/dev/null
[ $_fail = 0 ] || { diag "fault run log:"; sed 's/^/#   /' /tmp/fault.log | head -n 40; }
check "a normal start works right after the fault run" start_sched $bin $flags
stop_sched INT
is "and detaches with exit 0" "$SCHED_RC" 0
done_testing
