# SPDX-License-Identifier: GPL-2.0-only
# scxctl top on a live sched_ext kernel: --once's snapshot (the scheduler,
# its loader's uptime, counter rates above 0 under load, CPU bars), the
# refusal when nothing runs, the live view driven in tmux (capture-pane,
# then q), the human --monitor on a terminal, and the per-layer (strata)
# and per-domain (balance) rows. One scheduler after another in one boot.
. ./lib.sh
[ -d $SCX ] || skip_all "kernel without sched_ext"
# the console says TERM=linux, whose terminfo the initramfs lacks; tmux checks it
tm="env TERM=screen tmux -L top"

# rate_of TEXT FIELD : the number before "/s" on FIELD's row of the table
rate_of() { printf '%s\n' "$1" | sed -n "s/^$2 .* \([0-9.]*\)\/s .*/\1/p" | head -n 1; }
above0() { awk -v r="$1" 'BEGIN { exit !(r + 0 > 0) }'; }

# ---- nothing runs: a clear error, exit 1
out=$(scxctl top --once 2>&1)
is "top --once without a scheduler exits 1" $? 1
like "  and says no scheduler runs" "$out" "no sched_ext scheduler runs \(state: disabled\)"

# ---- minimal under load
start_sched scx_minimal
# Load for the --once checks only, kept short: under TCG a long full load
# has made the kernel eject scx_minimal once (a kthread starved 32 s),
# which is not what this scenario tests.
stress-ng --cpu "$(nproc)" --pipe 2 --timeout 12s -q >/dev/null 2>&1 &
load=$!
sleep 2
out=$(scxctl top --once 2>&1)
is "top --once exits 0" $? 0
diag "$(printf '%s\n' "$out" | head -n 30 | sed 's/^/  | /')"
like "the header names the scheduler and its loader" "$out" \
	"^scheduler: minimal \(scx_minimal, pid $SCHED_PID\)"
like "  and its uptime" "$out" "uptime: [0-9]+m [0-9][0-9]s"
like "the table has its columns" "$out" "^STAT +VALUE +UNIT +RATE +DESCRIPTION"
rl=$(rate_of "$out" local)
rg=$(rate_of "$out" global)
like "local has a numeric rate" "$rl" "^[0-9]+\.[0-9]$"
like "global has a numeric rate" "$rg" "^[0-9]+\.[0-9]$"
# every placement is local or global: under load their sum must rise
check "placements rise under load (local $rl/s + global $rg/s > 0)" above0 "$(echo "$rl $rg" | awk '{print $1 + $2}')"
like "a value keeps its unit" "$out" "^local_pct +[0-9.]+ +% "
is "one CPU bar per CPU" "$(printf '%s\n' "$out" | grep -cE '^cpu[0-9]+ +\[[# ]{20}\] +[0-9.]+%')" "$(nproc)"
all=$(printf '%s\n' "$out" | sed -n 's/^all .*\] *\([0-9.]*\)%$/\1/p')
check "the CPUs are busy under load ($all%)" above0 "$all"

# ---- the live view in tmux
if command -v tmux >/dev/null; then
	$tm new-session -d -x 120 -y 40 "scxctl top; echo \$? >/tmp/top.rc; sleep 60"
	screen=
	i=0
	while [ $i -lt 300 ]; do
		screen=$($tm capture-pane -p 2>/dev/null)
		printf '%s\n' "$screen" | grep -qE '^local .*[0-9]/s' && break
		sleep 0.1
		i=$((i + 1))
	done
	diag "$(printf '%s\n' "$screen" | head -n 20 | sed 's/^/  | /')"
	like "the live view shows the scheduler" "$screen" "^scheduler: minimal "
	like "  the table with rates" "$screen" "^local +[0-9]+ +[0-9.]+[kMG]?/s"
	like "  CPU bars" "$screen" "cpu0 +\[[# ]{20}\]"
	like "  how to quit" "$screen" "\[q\] quit"
	$tm send-keys q
	check "q quits it" wait_for 10 test -s /tmp/top.rc
	is "  with status 0" "$(cat /tmp/top.rc 2>/dev/null)" 0
	# --monitor on a terminal: the human table by default
	$tm new-session -d -x 160 -y 50 \
		"scx_minimal --monitor 0.5 --monitor-count 2; echo monitor-ended; sleep 60"
	check "--monitor in tmux ends" wait_for 20 sh -c "$tm capture-pane -p | grep -q monitor-ended"
	screen=$($tm capture-pane -p -S -200)
	diag "$(printf '%s\n' "$screen" | grep -v '^$' | head -n 24 | sed 's/^/  | /')"
	like "--monitor on a terminal prints the table" "$screen" "^STAT +VALUE +UNIT +RATE"
	like "  with rates" "$screen" "^local +[0-9]+ +[0-9.]+[kMG]?/s"
	$tm kill-server
else
	nok "tmux is in the initramfs (tests/vm/mkinitramfs)"
fi
like "--monitor on a pipe keeps key=value" "$(stats_line scx_minimal)" "^local=[0-9]+ global=[0-9]+"
stop_sched INT

# ---- strata: a row per layer
start_sched scx_strata --run-example
sleep 2
out=$(scxctl top --once 2>&1)
is "top --once on strata exits 0" $? 0
diag "$(printf '%s\n' "$out" | sed -n '/^layers:/,/^$/p' | sed 's/^/  | /')"
like "strata: the layers table" "$out" "^layers: [1-9][0-9]* \("
n=$(printf '%s\n' "$out" | sed -n 's/^layers: \([0-9]*\) .*/\1/p')
rows=$(printf '%s\n' "$out" | sed -n '/^layers: /,/^$/p' | sed '1,2d' | grep -c .)
is "  one row per layer" "$rows" "$n"
like "  columns with units" "$out" "^layers +tasks +util\[CPUs\]"
stop_sched INT

# ---- balance: a row per domain
start_sched scx_balance
sleep 3
out=$(scxctl top --once 2>&1)
is "top --once on balance exits 0" $? 0
diag "$(printf '%s\n' "$out" | sed -n '/^domains:/,/^$/p' | sed 's/^/  | /')"
like "balance: the domains table" "$out" "^domains: [1-9][0-9]* \("
n=$(printf '%s\n' "$out" | sed -n 's/^domains: \([0-9]*\) .*/\1/p')
rows=$(printf '%s\n' "$out" | sed -n '/^domains: /,/^$/p' | sed '1,2d' | grep -c .)
is "  one row per domain" "$rows" "$n"
stop_sched INT
kill $load 2>/dev/null
wait $load 2>/dev/null
is "sched_ext is disabled at the end" "$(state)" disabled
done_testing
