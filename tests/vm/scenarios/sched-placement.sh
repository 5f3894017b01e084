# SPDX-License-Identifier: GPL-2.0-only
# sched-placement.sh NAME [FLAGS...] - where a scheduler puts tasks.
# Twice as many unpinned CPU hogs as CPUs: the scheduler's "pinned" (own
# CPU queue) share stays small, because a task re-queued while it runs is
# not pinned just because the BPF program disabled migration around itself;
# its shared-queue counters move instead. A task pinned with taskset never
# runs anywhere but its CPU.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
name=$1; shift
bin=scx_$name
n=$(nproc)

# pinned_and_shared NAME LINE : "PINNED TOTAL SHARED" from the stats line:
# placements on a CPU's own queue for pinned tasks, all placements, and
# placements through the scheduler's shared (domain, node, layer) queues.
pinned_and_shared() {
	_l=$2
	case $1 in
	cadence) echo "$(stat_of "$_l" pinned) $(placements cadence "$_l") $(stat_of "$_l" dom)" ;;
	brisk) echo "$(stat_of "$_l" percpu) $(placements brisk "$_l") $(stat_of "$_l" node)" ;;
	balance) # percentages of "total"
		awk -v p="$(stat_of "$_l" pinned)" -v d="$(stat_of "$_l" dsq)" \
			'BEGIN { printf "%d 100 %d\n", p + 0.5, d + 0.5 }' ;;
	strata) echo "$(stat_of "$_l" fb_enq) $(placements strata "$_l") $(echo "$_l" |
		grep -oE '"enq_dsq": *[0-9]+' | awk -F: '{ s += $2 } END { print s + 0 }')" ;;
	relay) echo "$(stat_of "$_l" dispatch_local) $(( $(stat_of "$_l" idle_picks) +
		$(stat_of "$_l" dispatch_any) + $(stat_of "$_l" dispatch_local) )) $(stat_of "$_l" dispatch_any)" ;;
	minimal) echo "0 $(placements minimal "$_l") $(stat_of "$_l" global)" ;;
	esac
}

check "$name attaches" start_sched $bin "$@"
b=$(pinned_and_shared $name "$(stats_line $bin)")
scxk-burn -n $((2 * n)) -d 5 >/dev/null 2>&1
a=$(pinned_and_shared $name "$(stats_line $bin)")
set -- $b $a
if [ $name = balance ]; then pinned=$4 total=$5 shared=$6; else
	pinned=$(($4 - $1)) total=$(($5 - $2)) shared=$(($6 - $3)); fi
diag "under $((2 * n)) hogs: $pinned of $total placements pinned, $shared through shared queues"
check "placements were counted" test "$total" -gt 0
check "pinned share under 10% ($pinned of $total)" test $((pinned * 10)) -lt "$total"
check "shared queues used ($shared)" test "$shared" -gt 0

# Then one task pinned to the last CPU beside the hogs: where did it run?
scxk-burn -n $((2 * n)) -d 5 >/dev/null 2>&1 &
bp=$!
taskset -c $((n - 1)) sh -c 'while :; do :; done' &
pp=$!
cpus=
i=0
while [ $i -lt 40 ]; do
	sleep 0.1
	cpus="$cpus $(cut -d' ' -f39 /proc/$pp/stat)"
	i=$((i + 1))
done
kill $pp
wait $bp
is "the taskset-pinned task ran only on CPU $((n - 1))" \
	"$(echo $cpus | tr ' ' '\n' | sort -u | tr '\n' ' ')" "$((n - 1)) "
check "not ejected" sched_alive
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
done_testing
