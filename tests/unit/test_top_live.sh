#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test_top_live.sh BUILDDIR SCHED_BIN - scxctl top and the human --monitor format on
# the host, against top_fixture_server (the real stats server and client
# with fixture stats) and a fake sched_ext sysfs ($SCX_SYSFS_PREFIX, which
# scxctl reads instead of /sys): --once's table, its errors, the live view
# driven in tmux (capture-pane, then q), and --monitor's formats on a
# terminal and on a pipe. /proc/stat is the host's own.
b=$1
sched_bin=$2 # any scheduler: --monitor is common code
. "$(dirname "$0")/../lib/tap.sh"
command -v tmux >/dev/null || skip_all "tmux is not installed"
scxctl=$b/scxctl/scxctl
tmp=$(mktemp -d)
sock=$tmp/stats
# a known TERM whatever the caller has (CI may have none): tmux checks it
tm="env TERM=screen tmux -L scxk-top-$$"
srv_pid=
cleanup() {
	$tm kill-server 2>/dev/null
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

sysfs=$tmp/sys/kernel/sched_ext
mkdir -p "$sysfs/root"
echo enabled >"$sysfs/state"
echo fixture >"$sysfs/root/ops"
echo 1 >"$sysfs/switch_all"
export SCX_SYSFS_PREFIX=$tmp

"$b/tests/unit/top_fixture_server" "$sock" &
srv_pid=$!
i=0
while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# --- --once: one snapshot, rates over one second
out=$("$scxctl" top --once "$sock" 2>&1)
is "top --once exits 0" "$?" 0
like "the header names the scheduler" "$out" "^scheduler: fixture "
like "the header says how long the counters ran" "$out" "counters over [0-9.]+ s"
like "the stats table has its header" "$out" "STAT +VALUE +UNIT +RATE +DESCRIPTION"
# "placed" counts 100 per read: its rate is a number above 0
rate=$(printf '%s\n' "$out" | sed -n 's/^placed .* \([0-9.]*\)\/s .*/\1/p')
like "a delta counter has a rate" "$rate" "^[0-9]+\.[0-9]$"
check "its rate is above 0 ($rate/s)" awk -v r="$rate" 'BEGIN { exit !(r > 0) }'
like "a total counter has a rate" "$out" "hotplug +[0-9]+ +[0-9.]+/s"
like "a value shows its unit" "$out" "busy +42.50 +% +share of time"
like "the dict has a row per key" "$out" "interactive +12 +1.25"
like "CPU bars" "$out" "cpu0 +\[[# ]{20}\] +[0-9.]+%"

# --- errors: no sched_ext, no scheduler, no stats
out=$(SCX_SYSFS_PREFIX=$tmp/none "$scxctl" top --once "$sock" 2>&1)
is "no sched_ext: exit 1" "$?" 1
like "  and says so" "$out" "this kernel has no sched_ext"
echo disabled >"$sysfs/state"
out=$("$scxctl" top --once "$sock" 2>&1)
is "no scheduler: exit 1" "$?" 1
like "  and says so" "$out" "no sched_ext scheduler runs \(state: disabled\)"
echo enabled >"$sysfs/state"
out=$("$scxctl" top --once "$tmp/nosock" 2>&1)
is "no stats: exit 1" "$?" 1
like "  and says where" "$out" "no stats on $tmp/nosock"
out=$("$scxctl" top --bogus 2>&1)
is "a bad argument: exit 2" "$?" 2
out=$("$scxctl" top "$sock" </dev/null 2>&1)
is "the live view without a terminal: exit 2" "$?" 2
like "  and points at --once" "$out" "top --once"

# --- the live view in tmux: draw, refresh with rates, quit on q
$tm new-session -d -x 120 -y 40 \
	"SCX_SYSFS_PREFIX=$tmp $scxctl top $sock; echo \$? >$tmp/top.rc; sleep 30"
screen=
i=0
while [ $i -lt 100 ]; do
	screen=$($tm capture-pane -p 2>/dev/null)
	printf '%s\n' "$screen" | grep -qE '^placed .*[0-9]/s' && break
	sleep 0.1
	i=$((i + 1))
done
like "the live view shows the scheduler" "$screen" "^scheduler: fixture "
like "  the stats table with a rate" "$screen" "^placed +[0-9]+ +[0-9.]+/s"
like "  the per-layer rows" "$screen" "^batch +4 +0.50"
like "  CPU bars" "$screen" "cpu0 +\[[# ]{20}\]"
like "  how to quit" "$screen" "\[q\] quit"
long=$(printf '%s\n' "$screen" | awk 'length > 120' | head -n 1)
is "  no line wider than the terminal" "$long" ""
$tm send-keys q
i=0
while [ ! -s "$tmp/top.rc" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
is "q quits the live view with status 0" "$(cat "$tmp/top.rc" 2>/dev/null)" 0
$tm kill-server 2>/dev/null

# --- --monitor: human on a terminal, kv on a pipe, either on request
[ -x "$sched_bin" ] || { diag "no scheduler in this build: --monitor not checked"; done_testing; }
mon="$sched_bin --monitor 0.3 --monitor-count 2 --stats-socket $sock"
out=$($mon 2>/dev/null)
like "--monitor on a pipe keeps the key=value line" "$out" "^placed=100 hotplug=[0-9]+ busy=42.50"
out=$($mon --monitor-format human 2>/dev/null)
like "--monitor-format human: the table" "$out" "STAT +VALUE +UNIT +RATE +DESCRIPTION"
like "  with rates from the second read" "$out" "placed +100 +[0-9.]+/s +tasks placed"
like "  and per-layer rows" "$out" "interactive +12 +1.25"
out=$($mon --monitor-format kv 2>/dev/null)
like "--monitor-format kv" "$out" "^placed=100 "
out=$($mon --monitor-format table 2>&1)
is "a bad --monitor-format: exit 2" "$?" 2
$tm new-session -d -x 160 -y 50 "$mon; echo monitor-ended; sleep 30"
i=0
while [ $i -lt 100 ]; do
	screen=$($tm capture-pane -p -S -200 2>/dev/null)
	printf '%s\n' "$screen" | grep -q '^monitor-ended' && break
	sleep 0.1
	i=$((i + 1))
done
like "--monitor on a terminal prints the table by default" "$screen" "STAT +VALUE +UNIT +RATE"
like "  with rates" "$screen" "placed +100 +[0-9.]+/s"
is "  and no key=value line" "$(printf '%s\n' "$screen" | grep -c 'placed=')" 0
done_testing
