# SPDX-License-Identifier: GPL-2.0-only
# guest.sh - benchmark driver that runs inside the test VM (busybox sh).
#
# bench/run does not call this file directly: it writes a script made of a
# plan header followed by this file and hands that to tests/vm/vm-run.  The
# header sets:
#   BENCH_SCHED      config label ("default", "brisk:-m performance", ...)
#   BENCH_SCHED_CMD  command line of the scheduler; empty for the kernel's own
#   BENCH_NCFG       0, or the number of configs bench_cfg_1..N switch
#                    between to interleave their runs in this one boot
#   BENCH_DONE       |scenario:run:config|... runs an earlier boot finished
#   BENCH_RUNS       repetitions of every scenario
#   BENCH_CAPACITY   closed-loop req/s that offered_load_pct refers to; empty
#                    means "use the median of this boot's reqs-capacity runs"
#   bench_plan()     calls bench_scenario once per scenario, in order, or
#                    bench_matrix (--matrix), which calls bench_scenarios
#   BENCH_SCENARIO_NAMES  the scenarios of the plan (--matrix), for round_done
# Every measured run prints one line "SCXK-BENCH <json>"; the first failure
# prints "SCXK-BENCH-FAIL <why>" and ends the VM with status 1, because a
# result from an ejected scheduler or a crashed workload must not look like a
# number.
. ./lib.sh

B=/tmp/bench
mkdir -p $B

now() { cut -d' ' -f1 /proc/uptime; }

bench_fail() { # SCENARIO RUN WHY
	echo "SCXK-BENCH-FAIL sched=$BENCH_SCHED scenario=$1 run=$2: $3"
	diag "kernel log (sched_ext lines):"
	dmesg | grep -iE 'sched_ext|scx' | tail -n 20 | sed 's/^/#   /'
	[ -s "$SCHED_LOG" ] && { diag "scheduler output:"; tail -n 20 "$SCHED_LOG" | sed 's/^/#   /'; }
	[ -n "$SCHED_PID" ] && stop_sched KILL >/dev/null 2>&1
	exit 1
}

# User+system CPU time of a process in clock ticks (USER_HZ, 100 on x86).
# Fields 14 and 15 of /proc/PID/stat; cut after ") " since comm may hold
# spaces, which makes utime the 12th remaining field.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }

# Median of the numbers in a file, one per line.
median_of() {
	sort -n "$1" | awk '{v[NR] = $1} END {
		if (NR == 0) exit 1
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ---- converters: workload output -> one JSON object ------------------------

to_json() { # FORMAT OUTFILE
	case "$1" in
	json) tr -d '\n' <"$2" | grep -q '^{.*}$' && tr -d '\n' <"$2" ;;
	hackbench) awk '/^Time:/ { t = $2 } END { if (t == "") exit 1
		printf "{\"workload\":\"hackbench\",\"results\":{\"time_s\":%s}}", t }' "$2" ;;
	stress-ng) # "stress-ng: metrc: [pid] cpu  945  2.00  usr sys  ops/s(real) ops/s(cpu)"
		# (older: "info:")
		awk '$1 == "stress-ng:" && ($2 == "metrc:" || $2 == "info:") &&
			$4 ~ /^[a-z][a-z0-9-]*$/ && $5 ~ /^[0-9]+$/ {
			gsub("-", "_", $4); r = r (r == "" ? "" : ",") "\"" $4 "_ops\":" $5
			# bogo ops/s over real time, when the line has it
			if ($9 ~ /^[0-9.]+$/) r = r ",\"" $4 "_ops_per_s\":" $9 }
			END { if (r == "") exit 1
			printf "{\"workload\":\"stress-ng\",\"results\":{%s}}", r }' "$2" ;;
	cyclictest) # -h BUCKETS -q: "NNNNNN count..." per 1-us bucket (a column per
		# thread), then "# Min/Avg/Max Latencies:" and "# Histogram Overflows:"
		# (one number per thread). Percentiles count the overflows too; one
		# that falls among them is only known to be above the last bucket,
		# and is reported as the maximum. Numbers are zero-padded, which
		# busybox awk would read as octal: num() strips the zeros. Empty
		# buckets (nearly all of -h 100000) are dropped first, by a fixed
		# string: a bucket line is "%06d " and then "%06lu" per thread,
		# tab-separated, so " 000000" once per thread matches exactly the
		# lines whose every count is zero. Under TCG busybox takes seconds
		# over 100000 lines with awk or a grep -E regex, 0.1 s with grep -F.
		_z=$(grep -m1 '^0* ' "$2" | awk '{ for (i = 2; i <= NF; i++)
			printf "%s000000", i == 2 ? " " : "\t" }')
		{ if [ -n "$_z" ]; then grep -vF "$(printf "$_z")" "$2"; else cat "$2"; fi; } |
		awk 'function num(x) { sub(/^0+/, "", x); return x + 0 }
			/^[0-9]+[ \t]/ { n = 0; for (i = 2; i <= NF; i++) n += num($i)
			b = num($1); if (n) { c[b] += n; tot += n }
			if (b > top) top = b; next }
			/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) ovf += num($i) }
			/^# Min Latencies:/ { for (i = 4; i <= NF; i++) if (mn == "" || num($i) < mn) mn = num($i) }
			/^# Max Latencies:/ { for (i = 4; i <= NF; i++) if (num($i) > mx) mx = num($i); seen = 1 }
			/^# Avg Latencies:/ { for (i = 4; i <= NF; i++) { av += num($i); na++ } }
			END { if (!seen || tot + ovf == 0) exit 1
			# One pass over the buckets for the four percentiles.
			split("50 90 99 99.9", p, " ")
			for (j = 1; j <= 4; j++) v[j] = mx
			j = 1; cum = 0
			for (k = 0; k <= top && j <= 4; k++) {
				cum += c[k]
				while (j <= 4 && cum > 0 && cum >= p[j] * (tot + ovf) / 100) v[j++] = k
			}
			printf "{\"workload\":\"cyclictest\",\"results\":{\"samples\":%d,\"overflows\":%d,", tot + ovf, ovf
			printf "\"latency\":{\"count\":%d,\"min_us\":%d,\"mean_us\":%.1f,", tot + ovf, mn, av / na
			printf "\"p50_us\":%d,\"p90_us\":%d,\"p99_us\":%d,\"p99_9_us\":%d,\"max_us\":%d}}}", \
				v[1], v[2], v[3], v[4], mx }' ;;
	*) return 1 ;;
	esac
}

# ---- one measured run ------------------------------------------------------

# Start the workloads of the current scenario: background ones first, the
# foreground ones after the warm-up, so the foreground sees a steady load.
start_workloads() { # WARMUP WL...
	_warm=$1; shift
	for _role in background foreground; do
		[ "$_role" = foreground ] && [ "$_warm" != 0 ] && sleep "$_warm"
		for _wl in "$@"; do
			_l=$(echo "$_wl" | cut -d' ' -f1)
			_r=$(echo "$_wl" | cut -d' ' -f2)
			_c=$(echo "$_wl" | cut -d' ' -f4-)
			[ "$_r" = "$_role" ] || continue
			sh -c "$_c" >$B/$_l.out 2>$B/$_l.err &
			echo $! >$B/$_l.pid
		done
	done
}

# Wait for every workload; fail the run on a non-zero status or bad output.
finish_workloads() { # SCENARIO RUN WL...
	_s=$1 _run=$2; shift 2
	for _wl in "$@"; do
		_l=${_wl%% *}; _f=$(echo "$_wl" | cut -d' ' -f3)
		wait "$(cat $B/$_l.pid)"
		_rc=$?
		if [ $_rc != 0 ]; then
			tail -n 5 $B/$_l.err $B/$_l.out | sed 's/^/#   /'
			bench_fail "$_s" "$_run" "workload '$_l' exited with status $_rc"
		fi
		# stress-ng reports on stderr: parse both streams for non-JSON formats.
		[ "$_f" = json ] || cat $B/$_l.err >>$B/$_l.out
		to_json "$_f" $B/$_l.out >$B/$_l.json || {
			tail -n 5 $B/$_l.err $B/$_l.out | sed 's/^/#   /'
			bench_fail "$_s" "$_run" "workload '$_l' printed no parsable $_f output"
		}
	done
}

# Attach the current config's scheduler (none for "default").
sched_attach() { # SCENARIO RUN
	BENCH_OPS=
	if [ -n "$BENCH_SCHED_CMD" ]; then
		start_sched $BENCH_SCHED_CMD || bench_fail "$1" "$2" "scheduler did not attach"
		state_is enabled || bench_fail "$1" "$2" "scheduler not enabled after start"
		BENCH_OPS=$(ops)
	else
		state_is enabled && bench_fail "$1" "$2" "a sched_ext scheduler is attached under 'default'"
	fi
	return 0
}

sched_check() { # SCENARIO RUN
	[ -z "$BENCH_SCHED_CMD" ] || sched_alive ||
		bench_fail "$1" "$2" "scheduler ejected or exited during the run (state $(state))"
}

sched_detach() { # SCENARIO RUN
	[ -n "$BENCH_SCHED_CMD" ] || return 0
	sched_check "$1" "$2"
	# Not $(stop_sched): its wait must run in this shell, the parent.
	# lib.sh returns the status in SCHED_RC (older versions echoed it).
	SCHED_RC=
	stop_sched INT >$B/stop.out
	_st=${SCHED_RC:-$(cat $B/stop.out)}
	[ "$_st" = 0 ] || bench_fail "$1" "$2" "scheduler exited with status $_st on SIGINT"
	wait_for 10 state_is disabled || bench_fail "$1" "$2" "kernel still has a scheduler after stop"
}

# One measured run. The scheduler is attached for this run alone, unless
# the matrix loop attached it for a whole round (BENCH_ATTACHED).
bench_run() { # SCENARIO RUN WARMUP WL...
	_sc=$1 _run=$2 _warmup=$3; shift 3
	[ -n "$BENCH_ATTACHED" ] || sched_attach "$_sc" "$_run"
	_ops=$BENCH_OPS
	sysctl -qw kernel.bpf_stats_enabled=1 >/dev/null 2>&1 ||
		bench_fail "$_sc" "$_run" "cannot enable kernel.bpf_stats_enabled"

	bpftool prog show -j >$B/bpf0.json 2>/dev/null || echo '[]' >$B/bpf0.json
	_cpu0=0; [ -n "$SCHED_PID" ] && _cpu0=$(cpu_ticks "$SCHED_PID")
	_t0=$(now)
	start_workloads "$_warmup" "$@"
	finish_workloads "$_sc" "$_run" "$@"
	_t1=$(now)
	bpftool prog show -j >$B/bpf1.json 2>/dev/null || echo '[]' >$B/bpf1.json
	_cpu1=0; [ -n "$SCHED_PID" ] && _cpu1=$(cpu_ticks "$SCHED_PID")

	if [ -n "$BENCH_ATTACHED" ]; then
		sched_check "$_sc" "$_run"
	else
		sched_detach "$_sc" "$_run"
	fi
	emit_result "$_sc" "$_run" "$_ops" "$_t0" "$_t1" "$_cpu0" "$_cpu1" "$@"
}

# One line per run.  Built in a file and written by one cat, so a kernel
# message is less likely to land inside the line.
emit_result() { # SCENARIO RUN OPS T0 T1 CPU0 CPU1 WL...
	_s=$1 _r=$2 _o=$3 _a=$4 _b=$5 _c0=$6 _c1=$7; shift 7
	{
		printf 'SCXK-BENCH {"sched":"%s","scenario":"%s","run":%s,"ops":"%s",' \
			"$BENCH_SCHED" "$_s" "$_r" "$_o"
		printf '"rps_offered":%s,"wall_s":%s,' "${RPS:-null}" \
			"$(awk -v a="$_a" -v b="$_b" 'BEGIN { printf "%.3f", b - a }')"
		printf '"user_cpu_ticks":%s,"clk_tck":100,"workloads":{' $((_c1 - _c0))
		_sep=
		for _wl in "$@"; do
			_l=${_wl%% *}
			printf '%s"%s":' "$_sep" "$_l"; cat $B/$_l.json; _sep=,
		done
		printf '},"bpf_before":'; tr -d '\n' <$B/bpf0.json
		printf ',"bpf_after":'; tr -d '\n' <$B/bpf1.json
		printf '}\n'
	} >$B/line
	cat $B/line
}

# Called by bench_plan: NAME WARMUP OFFERED_LOAD_PCT WL...
# Each WL is "label role format command...".
bench_scenario() {
	_name=$1 _warm=$2 _pct=$3; shift 3
	RPS=
	if [ "$_pct" != 0 ]; then
		_cap=$BENCH_CAPACITY
		[ -n "$_cap" ] || _cap=$(median_of $B/capacity.list) ||
			bench_fail "$_name" 0 "no reqs-capacity result to derive the offered load from"
		RPS=$(awk -v c="$_cap" -v p="$_pct" 'BEGIN { printf "%.0f", c * p / 100 }')
	fi
	export RPS
	if [ -n "$BENCH_ROUND" ]; then
		bench_one "$_name" "$BENCH_ROUND" "$_warm" "$@"
		return 0
	fi
	_i=1
	while [ $_i -le "$BENCH_RUNS" ]; do
		if [ "$BENCH_NCFG" -gt 0 ]; then
			# Interleaved: every config once per round, ABBA order.
			_k=1
			while [ $_k -le "$BENCH_NCFG" ]; do
				_c=$_k
				[ $((_i % 2)) = 0 ] && _c=$((BENCH_NCFG + 1 - _k))
				bench_cfg_$_c
				bench_one "$_name" $_i "$_warm" "$@"
				_k=$((_k + 1))
			done
		else
			bench_one "$_name" $_i "$_warm" "$@"
		fi
		_i=$((_i + 1))
	done
}

# Matrix (bench/run --matrix): every config is attached once per round and
# runs that round of every scenario (bench_scenarios) before the next config
# is attached; the order of the configs is reversed every other round (ABBA).
# Loading and verifying a scheduler under TCG costs more than a short run.
bench_matrix() {
	_mi=1
	while [ $_mi -le "$BENCH_RUNS" ]; do
		_mk=1
		while [ $_mk -le "$BENCH_NCFG" ]; do
			_mc=$_mk
			[ $((_mi % 2)) = 0 ] && _mc=$((BENCH_NCFG + 1 - _mk))
			bench_cfg_$_mc
			if ! round_done $_mi; then
				_ma=$(now)
				sched_attach matrix $_mi
				diag "$BENCH_SCHED: matrix round $_mi/$BENCH_RUNS (attached in $(awk -v a="$_ma" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s, uptime $(now) s)"
				BENCH_ATTACHED=1 BENCH_ROUND=$_mi
				bench_scenarios
				BENCH_ATTACHED= BENCH_ROUND=
				_ma=$(now)
				sched_detach matrix $_mi
				[ -z "$BENCH_SCHED_CMD" ] || diag "$BENCH_SCHED: detached in $(awk -v a="$_ma" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
			fi
			_mk=$((_mk + 1))
		done
		_mi=$((_mi + 1))
	done
}

# Did an earlier boot finish run ROUND of every scenario for this config?
round_done() { # ROUND
	for _n in $BENCH_SCENARIO_NAMES; do
		case "$BENCH_DONE" in *"|$_n:$1:$BENCH_SCHED|"*) ;; *) return 1 ;; esac
	done
	return 0
}

bench_one() { # SCENARIO RUN WARMUP WL...
	case "$BENCH_DONE" in *"|$1:$2:$BENCH_SCHED|"*) return 0 ;; esac
	diag "$BENCH_SCHED: $1 run $2/$BENCH_RUNS${RPS:+ at $RPS req/s} (uptime $(now) s)"
	bench_run "$@"
	# The closed-loop rate of the default scheduler calibrates reqs-50/100
	# of this boot.
	[ "$1" = reqs-capacity ] && [ -z "$BENCH_SCHED_CMD" ] && tr -d '\n' <$B/reqs.json |
		sed 's/.*"rps":\([0-9.]*\).*/\1/' >>$B/capacity.list && echo >>$B/capacity.list
	return 0
}

# stress-ng's exec stressor refuses to run as root: give it a user.
grep -q '^nobody:' /etc/passwd || {
	echo 'nobody:x:65534:65534:nobody:/tmp:/bin/sh' >>/etc/passwd
	echo 'nogroup:x:65534:' >>/etc/group
}
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
printf 'SCXK-BENCH-SETUP {"kernel":"%s","nproc":%s,"numa_nodes":%s,"sched_ext":%s}\n' \
	"$(uname -r)" "$(nproc)" "$nodes" "$([ -d $SCX ] && echo true || echo false)"
[ -d $SCX ] || { echo "SCXK-BENCH-FAIL kernel without sched_ext"; exit 1; }
# Loopback, for the tcp ping-pong (the VM has no other interface).
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || true
bench_plan
echo "SCXK-BENCH-DONE"
exit 0
