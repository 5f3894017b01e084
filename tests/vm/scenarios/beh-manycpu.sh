# SPDX-License-Identifier: GPL-2.0-only
# beh-manycpu.sh [NAME...] - more than 64 CPUs (boot with --cpus 72), for
# every scheduler (default: all of them) in one boot: it attaches, places
# tasks (counters move), tasks pinned to CPUs above 63 run there on ext,
# and it detaches with exit 0. Any 64-bit CPU mask or unchecked CPU index
# shows here.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
ncpu=$(nproc)
# CPU ids from 64 up live past the first 64-bit word of any mask.
WORD_BITS=64
[ "$ncpu" -gt $WORD_BITS ] || skip_all "needs more than $WORD_BITS CPUs, have $ncpu"
scheds=${*:-$ALL_SCHEDS}
diag "schedulers: $scheds; $ncpu CPUs, kernel $(uname -r)"
probe="0 $WORD_BITS $((ncpu - 1))"

for name in $scheds; do
	have_sched $name || continue
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	stress-ng --cpu 8 --timeout 3s -q &
	hogs=$!
	sleep 1
	d=$(sched_decisions $name)
	check "$name: places tasks ($d decisions)" [ "${d:-0}" -gt 0 ]
	runs_on $name $probe
	wait $hogs 2>/dev/null
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
	[ $_fail = 0 ] || { diag "loader log:"; tail -n 10 $SCHED_LOG | sed 's/^/#   /'; }
done
done_testing
