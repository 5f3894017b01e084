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
	bin=scx_$name
	command -v $bin >/dev/null || { diag "SKIP $name: $bin not in this build"; continue; }
	check "$name: attaches" start_sched $bin $(sched_flags $name) || continue
	stress-ng --cpu 8 --timeout 3s -q &
	hogs=$!
	sleep 1
	d=$(sched_decisions $name)
	check "$name: places tasks ($d decisions)" [ "${d:-0}" -gt 0 ]
	pids=
	for c in $probe; do spin $c; pids="$pids $SPIN_PID"; done
	sleep 1
	i=0
	for c in $probe; do
		i=$((i + 1))
		p=$(echo $pids | cut -d' ' -f$i)
		check "$name: the task pinned to CPU $c is on ext" wait_for 20 on_ext $p
		a=$(cpu_ticks $p)
		sleep 0.5
		b=$(cpu_ticks $p)
		check "$name: and runs ($a -> $b ticks)" [ "$b" -gt "$a" ]
		is "$name: on CPU $c" "$(last_cpu $p)" $c
	done
	kill $pids
	wait $pids $hogs 2>/dev/null
	check "$name: still attached" sched_alive
	stop_sched INT
	is "$name: detaches with exit 0" "$SCHED_RC" 0
	[ $_fail = 0 ] || { diag "loader log:"; tail -n 10 $SCHED_LOG | sed 's/^/#   /'; }
done
done_testing
