# SPDX-License-Identifier: GPL-2.0-only
# stats-wire.sh [NAME...] - the stats socket of every scheduler (default:
# all of them, one after another in one boot) against upstream's protocol:
# a strict Python client written from scx_stats' documentation
# (py/scx_stats_strict.py, run by py/stats_wire.py) checks stats_meta's
# types, every stats answer against them, nested structs (strata's layers,
# balance's domains), request args and named targets (cadence's
# sched_samples); then `scxctl metrics` must be strict OpenMetrics that
# holds every stat, per layer and per domain included. Needs vm-run
# --python.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v python3 >/dev/null || skip_all "no python3 in the guest (vm-run --python)"
scheds=${*:-$ALL_SCHEDS}
sock=/var/run/scx/root/stats
py() { python3 -S -E "$@"; }
diag "schedulers: $scheds; kernel $(uname -r)"

# Work for the schedulers to count: two busy loops and a task that wakes often.
sh -c 'while :; do :; done' &
hog1=$!
sh -c 'while :; do :; done' &
hog2=$!
sh -c 'while :; do usleep 2000; done' &
waker=$!

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	check "$name: its stats socket answers" wait_for 20 test -S $sock
	sleep 1
	check "$name: a strict upstream-protocol client finds every answer typed as stats_meta says" \
		py py/stats_wire.py client $sock
	check "$name: scxctl metrics exits 0" sh -c "scxctl metrics $sock >/tmp/metrics.$name"
	check "$name: its output is strict OpenMetrics and holds every stat" \
		py py/stats_wire.py metrics $sock /tmp/metrics.$name
	diag "$name: $(grep -c '^# TYPE' /tmp/metrics.$name) metric families"
	stop_sched INT
	is "$name: the loader exits 0" "$SCHED_RC" 0
done
kill $hog1 $hog2 $waker 2>/dev/null
done_testing
