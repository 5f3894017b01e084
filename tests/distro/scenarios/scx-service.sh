#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scx-service.sh - every installed scheduler through scx.service under
# real systemd, as /etc/default/scx selects it: in full mode and with
# --partial, plus the modes the READMEs document that need something of
# the sandbox (brisk -I writes PM QoS files in /sys, strata reads the
# cgroup tree, relay and relay_fifo lock their memory). Expects the .debs
# in ./debs (boot --with-debs); installs them offline with apt-get. With
# ./break.conf (boot --add) the unit gets it as a drop-in first: how the
# checks were seen failing; ./only limits the run to the schedulers it
# names.
#
# For each run: the kernel attaches it (state, root/ops), the unit is
# active without a restart, the journal of that run (its InvocationID)
# has the scheduler's "attached" line, the kernel runs PID 1 on sched_ext
# or not (/proc/1/sched ext.enabled: full mode 1, --partial 0), scxctl
# status reads its stats over the socket, and "systemctl stop scx" ends
# it cleanly (Result success, status 0, sched_ext disabled).
# shellcheck source=SCRIPTDIR/../lib.sh # boot puts it next to this file
. ./lib.sh

ls ./debs/*.deb >/dev/null 2>&1 || skip_all "no ./debs/*.deb (boot --with-debs)"
diag "system state before: $(timeout 300 systemctl is-system-running --wait 2>&1)"

# 1. the packages, offline
check "apt-get installs the packages offline" install_debs debs
if ! dpkg-query -W scx-common >/dev/null 2>&1; then
	diag "the packages are not installed: nothing else to check"
	done_testing
fi
is "scx.service is installed disabled and not started" \
	"$(systemctl is-enabled scx 2>&1) $(systemctl is-active scx 2>&1)" "disabled inactive"
apply_break

# 2. the unit's exposure, at most what it was when the sandbox was last
# loosened on purpose (3.6, commit ab47aec)
score=$(systemd-analyze security scx.service --no-pager 2>&1 |
	sed -n 's/.*Overall exposure level for scx.service: \([0-9.]*\).*/\1/p')
diag "systemd-analyze security scx.service: ${score:-?}"
if [ -n "$score" ] && awk "BEGIN { exit !($score <= 3.6) }"; then
	ok "systemd-analyze security rates scx.service at most 3.6"
else nok "systemd-analyze security rates scx.service at most 3.6 (got '${score}')"; fi

strata_config
# The tasks strata's cgroup matcher is to find: a transient service. It
# wakes often, because a task is matched again (and counted in its new
# layer) only when it runs.
systemd-run --unit=scxk-probe -p Type=exec /bin/sh -c 'while :; do sleep 0.2; done' >/dev/null 2>&1

# qos_values: every CPU's PM QoS resume latency, one line
qos_values() { cat /sys/devices/system/cpu/cpu[0-9]*/power/pm_qos_resume_latency_us 2>&1 | tr '\n' ' '; }
qos_before=$(qos_values)

# run_one NAME FLAGS MODE(full|partial): one run of the unit
run_one() {
	local name=$1 flags=$2 mode=$3 what="scx_$1${2:+ $2}" t0 secs line ext fail0=$_fail
	set_default "scx_$name" "$flags"
	systemctl reset-failed scx 2>/dev/null
	t0=$(date +%s)
	if ! systemctl restart scx; then
		nok "$what: systemctl restart scx"
		journal_diag
		return
	fi
	if wait_for 180 attached "$name"; then
		secs=$(($(date +%s) - t0))
		ok "$what: attached ($secs s)"
	else
		nok "$what: attached (state $(kstate), ops '$(kops)', unit $(prop ActiveState))"
		journal_diag
		systemctl stop scx
		return
	fi
	# A sandbox refusal shows up after the attach (relay: its thread's
	# policy change), as an ejection and a restart: give it time.
	sleep 5
	is "$what: still attached, unit active, no restart" \
		"$(kops) $(prop ActiveState) $(prop NRestarts)" "$name active 0"
	line="scheduler \"$name\" attached"
	[ "$mode" = partial ] && line="$line (partial"
	like "$what: its run's journal has '$line'" "$(run_log)" "$(printf '%s' "$line" | sed 's/[()]/\\&/g')"
	ext=$(sed -n 's/^ext\.enabled *: *//p' /proc/1/sched)
	is "$what: PID 1 runs on sched_ext: $([ "$mode" = full ] && echo yes || echo no)" \
		"$ext" "$([ "$mode" = full ] && echo 1 || echo 0)"
	like "$what: scxctl status shows it and its stats" "$(scxctl status 2>&1 | tr '\n' ' ')" \
		"scheduler: +$name .*stats: +[a-z_]+="
	mode_checks "$name" "$flags" "$mode"
	check "$what: systemctl stop scx" systemctl stop scx
	if wait_for 60 detached; then
		is "$what: stopped cleanly (Result, status)" \
			"$(prop Result) $(prop ExecMainStatus)" "success 0"
	else nok "$what: sched_ext disabled after the stop (state $(kstate))"; fi
	mode_after "$name" "$flags"
	[ "$_fail" = "$fail0" ] || journal_diag -n 15
}

# What a mode needs of the sandbox, checked while it runs.
mode_checks() {
	local pid
	pid=$(prop MainPID)
	case "$1:$2" in
	brisk:*-I*)
		is "scx_brisk -I 50: every CPU's PM QoS resume latency is 50" \
			"$(qos_values)" "$(echo "$qos_before" | sed 's/[^ ][^ ]*/50/g')"
		check "scx_brisk -I 50: the originals are saved under /run/scx/tunables" \
			sh -c 'ls /run/scx/tunables | grep -q pm_qos'
		;;
	strata:*)
		# Gauges, not deltas: one read is enough once the loader has
		# scanned the cgroups (every 0.1 s).
		sleep 1
		line=$(timeout 20 scx_strata --monitor 0.5 --monitor-count 1 2>&1 | tail -n 1)
		like "scx_strata ($3): the loader read the cgroup tree" "$line" 'cgroups=[1-9]'
		if [ "$3" = full ]; then
			like "scx_strata: the cgroup matcher put scxk-probe's task in layer probe" \
				"$line" '"probe": *\{[^}]*"tasks": *[1-9]'
		fi
		;;
	relay:* | relay_fifo:*)
		like "scx_$1 ($3): its memory is locked (VmLck)" \
			"$(grep VmLck "/proc/$pid/status" 2>&1)" 'VmLck:[[:space:]]*[1-9][0-9]* kB'
		;;
	esac
}
mode_after() {
	case "$1:$2" in
	brisk:*-I*)
		is "scx_brisk -I 50: the PM QoS values are restored at stop" "$(qos_values)" "$qos_before"
		;;
	esac
}

# 3. every scheduler, full and --partial; brisk with -I in full mode
scheds=$(installed_scheds | tr '\n' ' ')
diag "installed schedulers: $scheds"
# scx-relay-fifo_0.1.0_amd64.deb -> relay_fifo
packaged=$(for d in debs/scx-*.deb; do
	d=${d#debs/scx-}
	echo "${d%%_*}" | tr - _
done | grep -vx common | sort | tr '\n' ' ')
is "scxctl's registry lists every scheduler package" "$scheds" "$packaged"
# ./only (boot --add): run only the schedulers it names, e.g. to see a
# broken unit's effect in a minute instead of ten
[ ! -f ./only ] || { scheds=$(cat ./only); diag "only: $scheds"; }
for name in $scheds; do
	flags=$(flags_of "$name")
	if [ "$name" = brisk ]; then
		run_one brisk "-I 50" full
	else
		run_one "$name" "$flags" full
	fi
	run_one "$name" "${flags:+$flags }--partial" partial
done
systemctl stop scxk-probe 2>/dev/null
done_testing
