# SPDX-License-Identifier: GPL-2.0-only
# sched-partial.sh NAME [FLAGS...] - --partial schedules exactly the
# SCHED_EXT tasks: the loaded ops flags are the scheduler's own plus
# SCX_OPS_SWITCH_PARTIAL (the kernel's value, read from its BTF), ordinary
# tasks stay on the fair class, and SCHED_EXT tasks (scxk-ext) run, finish
# and move the scheduler's own placement counters.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
command -v bpftool >/dev/null || skip_all "no bpftool in the guest"
name=$1; shift
bin=scx_$name
n=$(nproc)

# The loaded sched_ext_ops' flags, as the kernel holds them.
ops_flags() { bpftool struct_ops dump 2>/dev/null | sed -n 's/^[[:space:]]*\.flags = \([0-9x]*\).*/\1/p;s/.*"flags": *\([0-9]*\).*/\1/p' | head -n 1; }

partial=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	sed -n "s/.*'SCX_OPS_SWITCH_PARTIAL' val=\([0-9]*\).*/\1/p" | head -n 1)
check "the kernel's BTF names SCX_OPS_SWITCH_PARTIAL" test -n "$partial"

check "$name attaches without --partial" start_sched $bin "$@"
full=$(ops_flags)
stop_sched INT
check "$name's own ops flags read back ($full)" test -n "$full"

check "$name attaches with --partial" start_sched $bin --partial "$@"
got=$(ops_flags)
is "--partial flags are the scheduler's own plus SWITCH_PARTIAL" \
	"$((got))" "$((full | partial))"

line=$(stats_line $bin)
before=$(placements $name "$line")
hackbench -g 2 -l 50 >/dev/null 2>&1
line=$(stats_line $bin)
fair=$(( $(placements $name "$line") - before ))
is "scxk-ext runs a task under SCHED_EXT (policy 7)" \
	"$(scxk-ext cat /proc/self/sched 2>&1 | awk '$1 == "policy" { print $3 }')" 7
check "SCHED_EXT hackbench runs and finishes" timeout 120 scxk-ext hackbench -g 2 -l 50
check "SCHED_EXT CPU and pipe load runs and finishes" \
	timeout 60 scxk-ext stress-ng --cpu "$n" --pipe 2 --timeout 3s -q
line=$(stats_line $bin)
ext=$(( $(placements $name "$line") - before - fair ))
diag "placements: $fair for fair-class hackbench, $ext for the SCHED_EXT load"
check "the SCHED_EXT load moved $name's placement counters" test "$ext" -gt 100
check "ordinary tasks stayed off the scheduler (fair $fair < ext/10)" test $((fair * 10)) -lt "$ext"
check "not ejected" sched_alive
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
done_testing
