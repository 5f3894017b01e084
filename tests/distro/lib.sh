# SPDX-License-Identifier: GPL-2.0-only
# lib.sh - what the scenarios of tests/distro share: the packages, the
# unit's and the kernel's state, the journal of one run of the unit.
# tests/distro/boot puts it next to the scenario, with tap.sh. Sourced by
# bash in the Debian guest.
# shellcheck source=SCRIPTDIR/../lib/tap.sh # boot puts it next to this file
. ./tap.sh
export SYSTEMD_PAGER='' SYSTEMD_COLORS=0

kstate() { cat /sys/kernel/sched_ext/state 2>/dev/null; }
kops() { cat /sys/kernel/sched_ext/root/ops 2>/dev/null; }
# prop NAME: a property of scx.service (systemctl show)
prop() { systemctl show scx -p "$1" --value 2>/dev/null; }

# wait_for SECS CMD... : CMD succeeds within SECS seconds
wait_for() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 1
	done
	"$@"
}
attached() { [ "$(kstate)" = enabled ] && [ "$(kops)" = "$1" ]; }
detached() { [ "$(kstate)" = disabled ]; }
unit_is() { [ "$(prop ActiveState)" = "$1" ]; }

# The schedulers the packages installed, by name (scxctl's registry).
installed_scheds() { ls /usr/share/scxkit/schedulers; }

# journal_diag [ARGS]: the unit's last lines of this boot as a diag block,
# without the exit dump's event counters
journal_diag() {
	journalctl -b -u scx --no-pager -q -o short-monotonic "$@" 2>&1 | grep -v 'SCX_EV_' |
		tail -n 30 | sed 's/^/#   /'
}
# run_log [ID]: what the scheduler printed in one run of the unit
# (default: the current or last one)
run_log() {
	journalctl --no-pager -q -o cat "_SYSTEMD_INVOCATION_ID=${1:-$(prop InvocationID)}" 2>&1
}

# set_default SCHED FLAGS: what /etc/default/scx selects, as an
# administrator would edit it (the other lines stay)
set_default() {
	sed -i -e "s|^#* *SCX_SCHEDULER=.*|SCX_SCHEDULER=$1|" \
		-e "s|^#* *SCX_FLAGS=.*|SCX_FLAGS=$2|" /etc/default/scx
	grep -q "^SCX_SCHEDULER=" /etc/default/scx || echo "SCX_SCHEDULER=$1" >>/etc/default/scx
	grep -q "^SCX_FLAGS=" /etc/default/scx || echo "SCX_FLAGS=$2" >>/etc/default/scx
}

# install_debs DIR [APT-OPTION...]: every package in DIR but the -dev one,
# offline.
# libscxuser-dev wants the -dev packages of its libraries, which the image
# does not carry. No --no-download: with it apt 2.6 stops at "Internal
# Error, Pathname to install is not absolute" for local files; the guest
# has no network and the image no package lists, so nothing is fetched.
install_debs() {
	local d debs=()
	for d in "$PWD/$1"/*.deb; do
		case "$d" in *-dev_*) ;; *) debs+=("$d") ;; esac
	done
	shift
	DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" "${debs[@]}"
}

# A deliberately broken unit, to see checks fail: "boot --add
# break.conf SCENARIO" installs break.conf as a drop-in of scx.service
# after the packages (e.g. "[Service]\nRestartPreventExitStatus=").
apply_break() {
	[ -f ./break.conf ] || return 0
	mkdir -p /etc/systemd/system/scx.service.d
	cp ./break.conf /etc/systemd/system/scx.service.d/zz-break.conf
	systemctl daemon-reload
	diag "scx.service broken on purpose by this drop-in:"
	sed 's/^/#   /' ./break.conf
}

# A layer config for scx_strata with a cgroup matcher: tasks of the
# transient unit scxk-probe.service form the layer "probe".
strata_config() {
	mkdir -p /etc/scx
	cat >/etc/scx/strata-probe.json <<'JSON'
[
  {"name": "probe", "matches": [[{"CgroupPrefix": "system.slice/scxk-probe.service/"}]],
   "kind": {"Confined": {"util_range": [0.1, 0.9], "cpus_range": [1, 1]}}},
  {"name": "rest", "matches": [[]], "kind": {"Grouped": {"util_range": [0.5, 0.8]}}}
]
JSON
}
STRATA_FLAGS=f:/etc/scx/strata-probe.json

# flags_of NAME: the flags a scheduler needs to run at all (strata: a config)
flags_of() { [ "$1" = strata ] && echo "$STRATA_FLAGS"; }
