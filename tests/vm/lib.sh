# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - helpers for scenarios run inside the test VM (busybox sh).
#
# A scenario prints TAP through ok/is/check and ends with done_testing,
# whose status becomes the VM's exit status. Every helper that waits has a
# bound, so a broken scheduler fails a check instead of hanging the run.

. ./tap.sh # tests/lib/tap.sh, copied beside this file by vm-run

SCX=/sys/kernel/sched_ext
SCHED_PID=
SCHED_LOG=/tmp/sched.log

done_testing() {
	[ -n "$SCHED_PID" ] && kill -INT "$SCHED_PID" 2>/dev/null
	tap_done
}

state() { cat $SCX/state 2>/dev/null || echo missing; }
ops() { cat $SCX/root/ops 2>/dev/null; }

# wait_for SECONDS CMD... : poll every 0.1 s until CMD succeeds
wait_for() {
	_t=$(($1 * 10)); shift
	while [ $_t -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
		_t=$((_t - 1))
	done
	return 1
}

state_is() { [ "$(state)" = "$1" ]; }

# start_sched BIN ARGS... : start in the background, wait until enabled
start_sched() {
	"$@" >$SCHED_LOG 2>&1 &
	SCHED_PID=$!
	if wait_for 60 state_is enabled; then
		return 0
	fi
	diag "scheduler did not reach 'enabled' (state $(state)); its output:"
	sed 's/^/#   /' $SCHED_LOG | tail -n 40
	return 1
}

# stop_sched [SIGNAL] : signal the scheduler, wait for it, set SCHED_RC to
# its exit status. Never call it in $(...): a subshell cannot reap it.
stop_sched() {
	_sig=${1:-INT}
	SCHED_RC=255
	[ -n "$SCHED_PID" ] || return 0
	kill -"$_sig" "$SCHED_PID" 2>/dev/null
	_t=300
	while [ $_t -gt 0 ] && [ -d /proc/$SCHED_PID ] &&
		! grep -q '^State:.*Z' /proc/$SCHED_PID/status 2>/dev/null; do
		sleep 0.1
		_t=$((_t - 1))
	done
	if [ $_t = 0 ]; then
		diag "scheduler ignored SIG$_sig for 30 s"
		kill -KILL "$SCHED_PID"
	fi
	wait "$SCHED_PID"
	SCHED_RC=$?
	SCHED_PID=
}

# alive : the loader still runs and the kernel still has it enabled
sched_alive() { [ -n "$SCHED_PID" ] && kill -0 "$SCHED_PID" 2>/dev/null && state_is enabled; }

# ---- workloads ------------------------------------------------------------

# cgroup_churn SECONDS PID... : move tasks between cgroups and change
# cpu.weight, the way a desktop's session manager does.
cgroup_churn() {
	_end=$(($(date +%s) + $1)); shift
	mkdir -p /sys/fs/cgroup/churn-a /sys/fs/cgroup/churn-b
	_i=0
	while [ "$(date +%s)" -lt $_end ]; do
		for _p in "$@"; do
			for _t in /proc/$_p/task/*; do
				echo "${_t##*/}" >/sys/fs/cgroup/churn-$([ $((_i % 2)) = 0 ] && echo a || echo b)/cgroup.threads 2>/dev/null
			done
		done
		echo $((50 + (_i * 37) % 500)) >/sys/fs/cgroup/churn-a/cpu.weight 2>/dev/null
		_i=$((_i + 1))
		sleep 0.2
	done
	for _p in "$@"; do echo "$_p" >/sys/fs/cgroup/cgroup.procs 2>/dev/null; done
	rmdir /sys/fs/cgroup/churn-a /sys/fs/cgroup/churn-b 2>/dev/null
	return 0
}

# cg_siblings DIR NAME=WEIGHT... : DIR under /sys/fs/cgroup with the cpu
# controller on and one child per NAME at cpu.weight WEIGHT
cg_siblings() {
	_d=/sys/fs/cgroup/$1; shift
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $_d
	echo +cpu >$_d/cgroup.subtree_control
	for _s in "$@"; do
		mkdir -p $_d/${_s%%=*}
		echo ${_s#*=} >$_d/${_s%%=*}/cpu.weight
	done
}

# cg_run CGROUP CMD... : run CMD in the background inside CGROUP (a path
# under /sys/fs/cgroup); $! is CMD's pid
cg_run() {
	_g=/sys/fs/cgroup/$1; shift
	sh -c "echo \$\$ >$_g/cgroup.procs && exec \"\$@\"" sh "$@" &
}

# cg_usage CGROUP : its CPU time so far in µs (cpu.stat usage_usec)
cg_usage() { sed -n 's/^usage_usec //p' /sys/fs/cgroup/$1/cpu.stat; }

# short_load SECONDS : CPU hogs, pipes and forks for SECONDS, then a short
# hackbench: enough to take the code paths of one set of mode flags
short_load() {
	stress-ng --cpu "$(nproc)" --pipe 2 --fork 1 --timeout "$1s" -q >/dev/null 2>&1
	hackbench -g 2 -l 50 >/dev/null 2>&1
}

# mode_run NAME SECONDS FLAGS... : scx_NAME FLAGS attaches, stays attached
# through short_load SECONDS and detaches with exit 0; one TAP line
mode_run() {
	_mr_name=$1 _mr_s=$2
	shift 2
	if start_sched scx_$_mr_name "$@"; then
		short_load $_mr_s
		_mr_alive=0; sched_alive || _mr_alive=1
		stop_sched INT
		is "$_mr_name $*: ran $_mr_s s of load and detached cleanly" "$_mr_alive/$SCHED_RC" "0/0"
	else
		_report 1 "$_mr_name $*: attaches"
		stop_sched KILL
	fi
}

# mixed_workload SECONDS : fork/exec, pipes, yield, affinity churn, nice
# changes, cgroup moves and hackbench together; fails if any part fails.
mixed_workload() {
	_s=$1
	stress-ng --fork 2 --exec 1 --pipe 2 --yield 2 --affinity 2 --nice 1 --cpu 2 \
		--timeout "${_s}s" --metrics-brief >/tmp/stress.log 2>&1 &
	_sp=$!
	(
		_end=$(($(date +%s) + _s))
		while [ "$(date +%s)" -lt $_end ]; do
			hackbench -g 2 -l 50 >/dev/null 2>&1 || exit 1
		done
	) &
	_hp=$!
	sleep 1
	cgroup_churn $((_s - 2)) $_sp $(cat /proc/$_sp/task/*/children 2>/dev/null) &
	_cp=$!
	_rc=0
	wait $_sp || _rc=1
	wait $_hp || _rc=$((_rc | 2))
	wait $_cp || _rc=$((_rc | 4))
	[ $_rc = 0 ] || { diag "mixed workload status $_rc"; tail -n 5 /tmp/stress.log | sed 's/^/#   /'; }
	return $_rc
}

# fake_hybrid_sysfs DIR : a sysfs tree for SCX_SYSFS_PREFIX describing this
# guest's 8 CPUs as a hybrid part: CPUs 0-3 are two SMT P-cores at 4.8 GHz,
# 4-7 are E-cores at 3.0 GHz, one shared L3. QEMU cannot shape capacities,
# but the schedulers read topology through the prefix, so their hybrid code
# paths run for real on the guest's CPUs.
fake_hybrid_sysfs() {
	_r=$1/sys/devices/system/cpu
	rm -rf "$1"
	mkdir -p "$_r" "$1/sys/firmware/acpi"
	echo 0-7 >"$_r/possible"; echo 0-7 >"$_r/present"; echo 0-7 >"$_r/online"
	for _c in 0 1 2 3 4 5 6 7; do
		_d=$_r/cpu$_c
		mkdir -p "$_d/topology" "$_d/cache/index3" "$_d/cpufreq" "$_d/power"
		if [ $_c -lt 4 ]; then
			_sib=$(( _c / 2 * 2 ))-$(( _c / 2 * 2 + 1 )); _f=4800000
		else
			_sib=$_c; _f=3000000
		fi
		echo "$_sib" >"$_d/topology/core_cpus_list"
		echo "$_sib" >"$_d/topology/thread_siblings_list"
		echo 0-7 >"$_d/topology/package_cpus_list"
		echo 0-7 >"$_d/topology/core_siblings_list"
		echo 3 >"$_d/cache/index3/level"
		echo Unified >"$_d/cache/index3/type"
		echo 0-7 >"$_d/cache/index3/shared_cpu_list"
		echo "$_f" >"$_d/cpufreq/cpuinfo_max_freq"
		echo 0 >"$_d/power/pm_qos_resume_latency_us"
	done
	echo balanced >"$1/sys/firmware/acpi/platform_profile"
}

# use_fake_hybrid : the scenario runs on fake_hybrid_sysfs's tree, in $fake
# and exported as SCX_SYSFS_PREFIX (skips without sched_ext or 8 vCPUs)
use_fake_hybrid() {
	[ -d $SCX ] || skip_all "kernel without sched_ext"
	[ "$(nproc)" = 8 ] || skip_all "needs 8 vCPUs"
	fake=/tmp/hybrid
	fake_hybrid_sysfs $fake
	export SCX_SYSFS_PREFIX=$fake
}

# stats_json BIN : one stats reading of the running scheduler, as key=value text
stats_line() { timeout 10 "$1" --monitor 0.2 --monitor-count 1 2>/dev/null | tail -n 1; }

# stat_of LINE KEY : the value of KEY in a "key=value ..." stats line
stat_of() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# The watchdog timeout (SCX_TIMEOUT_MS) for scenarios that end with settle:
# long enough that TCG's slowness under storms causes no false ejection,
# short enough that settle can outlast it.
SETTLE_TIMEOUT_MS=20000

# show_loader_log : the loader's log as TAP comments, for a failed scenario:
# from its first exit report on (the kernel's dump names the stalled task
# and every CPU's queues, and its start is what explains an ejection), at
# most 250 lines; else its last 30 lines.
show_loader_log() {
	diag "loader log:"
	_l=$(grep -n -m 1 -E 'EXIT:' $SCHED_LOG | cut -d: -f1)
	if [ -n "$_l" ]; then
		sed -n "$_l,$((_l + 249))p" $SCHED_LOG | sed 's/^/#   /'
	else
		tail -n 30 $SCHED_LOG | sed 's/^/#   /'
	fi
}

# cpu_snap FILE : per-CPU busy and total jiffies now
# irq_work_count CPU: the CPU's irq_work self-interrupts ("IWI" in
# /proc/interrupts, whose columns are the online CPUs), empty if it has none.
# A CPU whose irq_work list holds work queued after its last flush (while
# it went down) raises no such interrupt again: every later irq_work_queue()
# there finds the list non-empty and leaves the raise to the stale entry.
irq_work_count() {
	awk -v c="CPU$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i + 1 }
		$1 == "IWI:" && col { print $col }' /proc/interrupts
}
cpu_snap() { awk '/^cpu[0-9]/ {print $1, $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat >"$1"; }
# busy_between F0 F1 : per-CPU busy % between two cpu_snaps, space-separated
busy_between() { paste "$1" "$2" | awk '{t = $6 - $3; printf "%d ", t ? 100 * ($5 - $2) / t : 0}'; }
# min_of / avg_of WORDS... (integers)
min_of() { echo "$@" | tr ' ' '\n' | grep . | sort -n | head -n 1; }
avg_of() { echo "$@" | tr ' ' '\n' | grep . | awk '{s += $1} END {printf "%d", s / NR}'; }

# canary_count CPU : wakeups settle's canary on CPU has counted so far
canary_count() { cat /tmp/canary.$1 2>/dev/null | wc -l; }

# settle SECONDS : after the last workload the scheduler stays loaded while
# one canary per online CPU (pinned there, waking every 50 ms) must keep
# making progress. Started with SCX_TIMEOUT_MS below SECONDS, the kernel's
# watchdog then sees any task lost in the last window and ejects the
# scheduler here, instead of after the test stopped it.
settle() {
	_s=$1
	_pids=
	_cpus=
	rm -f /tmp/canary.* /tmp/settle.report
	# Not _d: check() keeps its description there.
	for _cd in /sys/devices/system/cpu/cpu[0-9]*; do
		_c=${_cd##*cpu}
		[ "$(cat "$_cd/online" 2>/dev/null || echo 1)" = 1 ] || continue
		# One line per wakeup, appended: a file rewritten in place (echo >)
		# is empty between its truncation and the write, and a reader that
		# lands there reads no progress at all.
		taskset -c "$_c" sh -c "while :; do echo >>/tmp/canary.$_c; sleep 0.05; done" &
		_pids="$_pids $!"
		_cpus="$_cpus $_c"
	done
	sleep 1
	for _c in $_cpus; do eval "_b$_c=\$(canary_count $_c)"; done
	sleep "$_s"
	_rc=0
	for _c in $_cpus; do
		eval "_b=\$_b$_c"
		_a=$(canary_count $_c)
		# At least one wakeup a second, far below the 20 a second asked for.
		echo "canary on CPU $_c: $_b -> $_a in $_s s" >>/tmp/settle.report
		[ $((_a - _b)) -ge "$_s" ] || _rc=1
	done
	cat /tmp/settle.report
	kill $_pids 2>/dev/null
	wait $_pids 2>/dev/null
	sched_alive || { echo "scheduler ejected or gone during the settle period"; _rc=1; }
	return $_rc
}

# ---- every scheduler, one boot (the beh-*.sh scenarios) --------------------

# The schedulers a scenario runs by default, and the flags each needs to start.
ALL_SCHEDS="minimal brisk cadence balance relay strata"

# need_sched NAME : skip the scenario unless the kernel has sched_ext and
# scx_NAME is in this build; sets bin
need_sched() {
	bin=scx_$1
	[ -d $SCX ] || skip_all "kernel without sched_ext"
	command -v "$bin" >/dev/null || skip_all "$bin not in this build"
}

# have_sched NAME : in a loop over schedulers, whether scx_NAME is in this
# build (says so when not); sets bin
have_sched() {
	bin=scx_$1
	command -v $bin >/dev/null || { diag "SKIP $1: $bin not in this build"; return 1; }
}
sched_flags() { [ "$1" = strata ] && echo --run-example; return 0; }

# strata_tasks_in LAYER : scx_strata's task count for LAYER, from its stats
strata_tasks_in() {
	stats_line scx_strata | sed -n "s/.*\"$1\":{\([^}]*\)}.*/\1/p" |
		sed -n 's/.*"tasks":\([0-9]*\).*/\1/p'
}
# count_is LAYER N : scx_strata counts N tasks in LAYER (says what it counted if not)
count_is() {
	_c=$(strata_tasks_in "$1")
	[ "$_c" = "$2" ] && return 0
	echo "layer $1 counts '$_c' tasks, want $2"
	return 1
}
# layer_settle LAYER N : wait up to 5 s for the count, then check it (the message says what it was)
layer_settle() { wait_for 5 count_is "$1" "$2"; count_is "$1" "$2"; }

# placements NAME LINE : the scheduler's count of tasks it placed (ran
# through select_cpu/enqueue), summed from its own stats in LINE as read
# with stats_line. Every scheduler counts a placement in a different set of
# stats; this is the one place that knows which. Fails when LINE lacks one.
placements() {
	case $1 in
	minimal) _k="local global" ;;
	brisk) _k="direct percpu node kthread" ;;
	cadence) _k="nr_sched" ;;
	balance) _k="total" ;;
	relay) _k="nr_user_dispatches nr_kernel_dispatches" ;;
	strata)
		# Per-layer counters inside the layers={...} JSON value.
		echo "$2" | grep -q '"enq_dsq":' || return 1
		echo "$2" | grep -oE '"(sel_local|enq_local|enq_dsq)": *[0-9]+' |
			awk -F: '{ s += $2 } END { print s + 0 }'
		return 0 ;;
	*) return 1 ;;
	esac
	_s=0
	for _x in $_k; do
		_v=$(stat_of "$2" $_x | cut -d. -f1)
		case $_v in
		'' | *[!0-9]*) echo "# no counter $_x in: $2" >&2; return 1 ;;
		esac
		_s=$((_s + _v))
	done
	echo $_s
}

# sched_decisions NAME : placements of the running scx_NAME, one stats
# reading; fails if stats could not be read.
sched_decisions() {
	_l=$(stats_line scx_$1)
	[ -n "$_l" ] || return 1
	placements "$1" "$_l"
}

# on_ext PID : the task is in the ext class (the kernel's own flag)
on_ext() { grep -qE '^ext\.enabled +: +1$' /proc/$1/sched 2>/dev/null; }
# policy_of PID: its scheduling policy (0 normal, 1 FIFO, 2 RR, 7 ext) from
# /proc/PID/stat, which every kernel has (/proc/PID/sched needs
# CONFIG_SCHED_DEBUG before 6.13: not in the 6.12 guest kernel). Field 41;
# the 39th after the comm's closing parenthesis.
policy_of() { sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -d' ' -f39; }
# fifo_task_named PREFIX: a task whose comm starts with PREFIX runs
# SCHED_FIFO (the kernel's migration/N threads always do)
fifo_task_named() {
	for _d in /proc/[0-9]*; do
		case "$(cat $_d/comm 2>/dev/null)" in "$1"*) ;; *) continue ;; esac
		[ "$(policy_of ${_d#/proc/})" = 1 ] && return 0
	done
	return 1
}
off_ext() { ! on_ext "$1"; }
# cpu_ticks PID : user + system time in clock ticks
cpu_ticks() { awk '{print $14 + $15}' /proc/$1/stat 2>/dev/null; }
# last_cpu PID : the CPU the task last ran on
last_cpu() { awk '{print $39}' /proc/$1/stat 2>/dev/null; }
# uptime_cs : uptime in 1/100 s, the unit of cpu_ticks (USER_HZ is 100 on x86);
# no fork, for polling loops ("12.08" -> 1208: the 0 stripped, not octal)
uptime_cs() {
	read _u _i </proc/uptime
	_f=${_u#*.}
	echo $((${_u%.*} * 100 + ${_f#0}))
}

# spin CPU : start a busy loop pinned to CPU in the background; SPIN_PID is its pid
spin() {
	taskset -c "$1" sh -c 'while :; do :; done' &
	SPIN_PID=$!
}

# runs_on NAME CPU... : a busy task pinned to each CPU is on ext, gains
# CPU time and last ran on that CPU
runs_on() {
	_who=$1; shift
	_pids=
	for _c in "$@"; do spin $_c; _pids="$_pids $SPIN_PID"; done
	sleep 0.5
	_i=0
	for _c in "$@"; do
		_i=$((_i + 1))
		_p=$(echo $_pids | cut -d' ' -f$_i)
		check "$_who: the task pinned to CPU $_c is on ext" wait_for 30 on_ext $_p
		_a=$(cpu_ticks $_p)
		sleep 0.5
		_b=$(cpu_ticks $_p)
		check "$_who: and runs ($_a -> $_b ticks)" [ "$_b" -gt "$_a" ]
		is "$_who: on CPU $_c" "$(last_cpu $_p)" $_c
	done
	kill $_pids
	wait $_pids 2>/dev/null
}

# cpu_share PID SECONDS : the task's CPU time over the next SECONDS, in
# percent of wall time (integer)
cpu_share() {
	_a=$(cpu_ticks $1); _w0=$(uptime_cs)
	sleep "$2"
	_b=$(cpu_ticks $1); _w1=$(uptime_cs)
	echo $(((_b - _a) * 100 / (_w1 - _w0)))
}
