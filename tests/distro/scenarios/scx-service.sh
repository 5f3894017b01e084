#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scx-service.sh [partial] - the Debian packages and scx.service under
# real systemd. Expects the .debs of packaging/build-deb in ./debs (boot
# --with-debs, or --add DIR/debs) and installs them offline with apt-get.
# Then, by default: scx_minimal through "systemctl enable --now scx", the
# kernel's and the journal's view of it, scxctl status, a clean stop.
# With "partial": scx_relay --partial through the unit, whose scheduling
# thread moves itself to SCHED_EXT, which the unit's RestrictRealtime=yes
# refuses today (suite known-bugs); a runtime drop-in with
# RestrictRealtime=no then shows whether that is the cause. The journal
# lines of every failure are printed.
# shellcheck source=SCRIPTDIR/../../lib/tap.sh # boot puts it next to this file
. ./tap.sh
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0

mode=${1:-minimal}
ls ./debs/*.deb >/dev/null 2>&1 || skip_all "no ./debs/*.deb (boot --add DIR/debs)"
state=$(timeout 300 systemctl is-system-running --wait 2>&1)
diag "system state before: $state"

# Wait for the sched_ext state to become $1, at most $2 seconds.
wait_state() {
	for _ in $(seq "$2"); do
		[ "$(cat /sys/kernel/sched_ext/state)" = "$1" ] && return 0
		sleep 1
	done
	return 1
}
journal() { # UNIT: the unit's lines of this boot, as a diag block
	journalctl -b -u "$1" --no-pager -q -o short-monotonic 2>&1 | tail -n 30 | sed 's/^/#   /'
}

# 1. the packages, offline: every dependency must already be in the image.
# libscxuser-dev wants the -dev packages of its libraries: left out.
# No --no-download: with it apt 2.6 stops at "Internal Error, Pathname to
# install is not absolute" for local files. The guest has no network and
# the image no package lists, so nothing can be downloaded anyway.
debs=()
for d in "$PWD"/debs/*.deb; do
	case "$d" in *-dev_*) ;; *) debs+=("$d") ;; esac
done
check "apt-get installs ${#debs[@]} packages offline" \
	apt-get install -y "${debs[@]}"
if ! dpkg-query -W scx-common scx-minimal >/dev/null 2>&1; then
	diag "the packages are not installed: nothing else to check"
	done_testing
fi
is "scx.service is installed disabled" "$(systemctl is-enabled scx 2>&1)" disabled
is "scx.service is not started by the install" "$(systemctl is-active scx 2>&1)" inactive

# 2. scx_minimal through the unit
if [ "$mode" = minimal ]; then
	sed -i 's/^#* *SCX_SCHEDULER=.*/SCX_SCHEDULER=scx_minimal/' /etc/default/scx
	grep -q '^SCX_SCHEDULER=scx_minimal$' /etc/default/scx ||
		echo 'SCX_SCHEDULER=scx_minimal' >>/etc/default/scx
	check "systemctl enable --now scx" systemctl enable --now scx
	if wait_state enabled 180; then ok "sched_ext enabled within 180 s"; else
		nok "sched_ext enabled within 180 s"
		systemctl status scx --no-pager 2>&1 | sed 's/^/#   /'
		journal scx
	fi
	is "/sys/kernel/sched_ext/root/ops names minimal" \
		"$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" minimal
	is "scx.service is active" "$(systemctl is-active scx 2>&1)" active
	like "journalctl -u scx has the scheduler's output" \
		"$(journalctl -b -u scx --no-pager -q -o cat 2>&1)" 'scx_minimal: scheduler "minimal" attached'
	diag "journalctl -u scx:"
	journal scx
	check "scxctl status" scxctl status
	check "systemctl stop scx" systemctl stop scx
	if wait_state disabled 60; then ok "sched_ext disabled after the stop"; else
		nok "sched_ext disabled after the stop"; fi
	is "the stop ended the loader cleanly" \
		"$(systemctl show scx -p Result --value 2>&1) $(systemctl show scx -p ExecMainStatus --value 2>&1)" \
		"success 0"
fi

# 3. --partial with a scheduler that moves its own thread to SCHED_EXT
if [ "$mode" = partial ]; then
	sed -i -e 's/^SCX_SCHEDULER=.*/SCX_SCHEDULER=scx_relay/' \
		-e 's/^#* *SCX_FLAGS=.*/SCX_FLAGS=--partial/' /etc/default/scx
	grep -q '^SCX_FLAGS=--partial$' /etc/default/scx || echo 'SCX_FLAGS=--partial' >>/etc/default/scx
	systemctl reset-failed scx 2>/dev/null
	check "systemctl restart scx (scx_relay --partial)" systemctl restart scx
	sleep 30
	is "scx_relay --partial runs under the unit" \
		"$(systemctl is-active scx 2>&1) $(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)" "active relay"
	# The exit dump's SCX_EV_ counters hide the reason: left out.
	diag "journalctl -u scx (scx_relay --partial), without the event counters:"
	journalctl -b -u scx --no-pager -q -o short-monotonic 2>&1 | grep -v 'SCX_EV_' |
		grep -v 'Starting scx.service\|Started scx.service' | tail -n 40 | sed 's/^/#   /'
	systemctl stop scx 2>/dev/null
	wait_state disabled 60
	# Diagnosis only, not a fix of the shipped unit: the same start with
	# RestrictRealtime=no in a runtime drop-in tells whether that is the cause.
	mkdir -p /run/systemd/system/scx.service.d
	printf '[Service]\nRestrictRealtime=no\n' >/run/systemd/system/scx.service.d/diag.conf
	systemctl daemon-reload
	systemctl reset-failed scx 2>/dev/null
	journalctl --rotate >/dev/null 2>&1
	since=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl restart scx
	sleep 30
	diag "with RestrictRealtime=no (runtime drop-in): $(systemctl is-active scx 2>&1)" \
		"$(cat /sys/kernel/sched_ext/root/ops 2>/dev/null)"
	journalctl -u scx --since "$since" --no-pager -q -o short-monotonic 2>&1 | grep -v 'SCX_EV_' |
		tail -n 12 | sed 's/^/#   /'
	systemctl stop scx 2>/dev/null
	rm -rf /run/systemd/system/scx.service.d
	systemctl daemon-reload
	wait_state disabled 60
fi
done_testing
