# SPDX-License-Identifier: GPL-2.0-only
# scx_balance on 2 NUMA nodes x 2 domains (8 CPUs, --cpumasks, since QEMU
# gives one LLC per socket): work started pinned on one domain and then
# released spreads over both nodes within a few balancer intervals - seen
# in the balancer's stats and in per-CPU busy time from /proc/stat - and
# does not without the balancer when idle CPUs steal only inside their node
# (--greedy-threshold-x-numa 0); with the default cross-node threshold the
# idle node steals the work even before any balancing.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
nodes=$(ls -d /sys/devices/system/node/node* | wc -l)
diag "$(nproc) CPUs, $nodes nodes"
[ "$(nproc)" = 8 ] && [ "$nodes" = 2 ] || skip_all "needs 8 CPUs on 2 NUMA nodes"

DOMS="-C 0-1 -C 2-3 -C 4-5 -C 6-7"
FAST="--interval 0.5 --load-half-life 0.5"

# skewed_start : 8 burners pinned on domain 0 (CPUs 0-1) for 2 s, then free.
# They run far longer than needed and are killed after the measurement: under
# TCG on a busy host, guest wall time runs ahead of the work done.
skewed_start() {
	taskset -c 0-1 scxk-burn -n 8 -d 120 >/tmp/burn.out 2>&1 &
	BURN=$!
	sleep 2
	taskset -a -p -c 0-7 $BURN >/dev/null
}

scx_balance $DOMS -C 7 >/tmp/bad.out 2>&1
is "overlapping --cpumasks exit 2" $? 2
like "and say so" "$(cat /tmp/bad.out)" "overlaps"
scx_balance -C 0-3 >/tmp/bad.out 2>&1
is "--cpumasks leaving CPUs out exit 2" $? 2
like "and name them" "$(cat /tmp/bad.out)" "4-7"
is "kernel untouched" "$(state)" disabled

# Without the balancer and without cross-node steals: node 1 idles.
check "attaches without load balancing" start_sched scx_balance $DOMS $FAST --no-load-balance \
	--greedy-threshold-x-numa 0
skewed_start
sleep 4
cpu_snap /tmp/s0; sleep 3; cpu_snap /tmp/s1
b=$(busy_between /tmp/s0 /tmp/s1)
diag "busy % per CPU without balancing: $b"
n1=$(avg_of $(echo $b | cut -d' ' -f5-8))
check "node 1 stays mostly idle (avg $n1%)" test "$n1" -lt 40
check "burners ran throughout" kill -0 $BURN
kill $BURN; wait $BURN
stop_sched INT
is "detaches" "$SCHED_RC" 0

# Still no balancer, default cross-node threshold: node 1's idle CPUs steal
# from domain 0's queue, so no CPU waits for a balancing round.
check "attaches with cross-node steals only" start_sched scx_balance $DOMS $FAST --no-load-balance
skewed_start
sleep 3
cpu_snap /tmp/s0; sleep 3; cpu_snap /tmp/s1
line=$(stats_line scx_balance)
b=$(busy_between /tmp/s0 /tmp/s1)
diag "busy % per CPU with cross-node steals: $b"
n1=$(avg_of $(echo $b | cut -d' ' -f5-8))
check "node 1 busy from steals alone (avg $n1%)" test "$n1" -ge 70
check "steals across nodes counted (greedy_xnuma $(stat_of "$line" greedy_xnuma)%)" \
	awk -v v="$(stat_of "$line" greedy_xnuma)" 'BEGIN { exit !(v > 0) }'
is "and no balancer moves" "$(stat_of "$line" nr_migrations)" 0
kill $BURN; wait $BURN
stop_sched INT
is "detaches" "$SCHED_RC" 0

check "attaches with load balancing" start_sched scx_balance $DOMS $FAST
line=$(stats_line scx_balance)
like "four domains on two nodes" "$(stat_of "$line" doms)" "^0-1@0;2-3@0;4-5@1;6-7@1$"
skewed_start
# The duty cycles need ~2 half-lives to rise, then a round or two to move.
sleep 4
cpu_snap /tmp/s0
line=$(stats_line scx_balance)
sleep 3
cpu_snap /tmp/s1
check "burners ran throughout" kill -0 $BURN
b=$(busy_between /tmp/s0 /tmp/s1)
diag "busy % per CPU with balancing: $b"
check "every CPU busy at least 60% (min $(min_of $b)%)" test "$(min_of $b)" -ge 60
n1=$(avg_of $(echo $b | cut -d' ' -f5-8))
check "node 1 took its share (avg $n1%)" test "$n1" -ge 70
diag "stats: $line"
dl=$(stat_of "$line" dom_load)
diag "domain loads $dl, node loads $(stat_of "$line" node_load)"
check "balancer moved tasks" test "$(stat_of "$line" nr_migrations)" -ge 4
# 8 burners on 4 domains: each domain holds about its quarter of the load.
# Small tasks (shell, stats client) and a move in flight shift it, so the
# bound is half to one and a half times the share; all 8 burners left in
# one domain would be 4 times it. A stats line shows the loads its round
# found before that round's moves, so a single line can catch the skew a
# round is still fixing (seen in CI: 2.0,2.0,3.5,1.2 with the moves that
# fix it planned). The balancer must reach a round that finds every domain
# in bounds within 10 readings (about 20 rounds at --interval 0.5). The
# node imbalance comes from the same round, so it is judged on the same
# reading (seen in CI: a first line with node loads 2.5,6.3 and the next
# one balanced).
doms_in_bounds() {
	awk -v l="$1" -v t="$2" 'BEGIN { n = split(l, v, ","); s = t / 4
		for (i = 1; i <= n; i++) if (v[i] < 0.5 * s || v[i] > 1.5 * s) exit 1 }'
}
tl=$(stat_of "$line" load)
ni=$(stat_of "$line" node_imbal_pct | cut -d. -f1)
for try in 1 2 3 4 5 6 7 8 9 10; do
	doms_in_bounds "$dl" "$tl" && [ "$ni" -lt 30 ] && break
	sleep 1
	line=$(stats_line scx_balance)
	dl=$(stat_of "$line" dom_load)
	tl=$(stat_of "$line" load)
	ni=$(stat_of "$line" node_imbal_pct | cut -d. -f1)
	diag "reading $((try + 1)): domain loads $dl of $tl, node imbalance $ni%"
done
check "node loads within 30% of their share ($ni%)" test "$ni" -lt 30
for d in 1 2 3 4; do
	v=$(echo "$dl" | cut -d, -f$d)
	check "domain $((d - 1)) load $v within 0.5..1.5 x its share of $tl" \
		awk -v v="$v" -v t="$tl" 'BEGIN { s = t / 4; exit !(v >= 0.5 * s && v <= 1.5 * s) }'
done
kill $BURN; wait $BURN
check "not ejected" sched_alive
stop_sched INT
is "SIGINT detaches with exit 0" "$SCHED_RC" 0
done_testing
