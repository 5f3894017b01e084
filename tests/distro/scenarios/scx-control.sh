#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scx-control.sh - scxctl and the unit's restart policy under real
# systemd, then a reboot. Expects the .debs in ./debs (boot --with-debs)
# and a guest that may reboot (boot --allow-reboot); ./break.conf as in
# scx-service.sh.
#
# Boot 1:
#  - scxctl start, then scxctl switch along a walk that takes every pair
#    of installed schedulers once (the kernel's root/ops names the new
#    one each time, the unit stays active), then scxctl stop (sched_ext
#    disabled, the unit inactive, the overrides gone);
#  - scxctl refuses a config under /tmp, /root or /home, which the unit
#    cannot see (PrivateTmp, ProtectHome), naming the file and why, and
#    starts nothing; a config the scheduler itself rejects fails with the
#    scheduler's own words in scxctl's output;
#  - SIGKILL of the running scheduler: Restart= starts it again (NRestarts
#    1, a new MainPID, attached again); exit 2 (an invalid flag in
#    /etc/default/scx): not restarted (failed, status 2, NRestarts 0);
#  - then "systemctl enable --now scx" with scx_cadence and a reboot.
# Boot 2 (the same QEMU process, the same snapshot of the disk): scx_cadence
# is attached again by the enabled unit, in a new boot.
# The TAP numbering and the failure count go on across the reboot (kept
# in the phase file).
# shellcheck source=SCRIPTDIR/../lib.sh # boot puts it next to this file
. ./lib.sh

phase_file=/var/lib/scxk-control.phase
ls ./debs/*.deb >/dev/null 2>&1 || skip_all "no ./debs/*.deb (boot --with-debs)"

# ---- boot 2: after the reboot ----
if [ -f "$phase_file" ]; then
	read -r phase _n _fail boot1 <"$phase_file"
	if [ "$phase" != rebooted ]; then
		nok "one reboot only (the guest booted again after phase '$phase')"
		done_testing
	fi
	echo "done $_n $_fail $boot1" >"$phase_file"
	diag "boot 2: system state $(timeout 300 systemctl is-system-running --wait 2>&1)"
	isnt_boot1=$([ "$(cat /proc/sys/kernel/random/boot_id)" != "$boot1" ] && echo new)
	is "this is a new boot (boot_id changed)" "$isnt_boot1" new
	if wait_for 180 attached cadence; then ok "scx_cadence is attached again after the reboot"
	else nok "scx_cadence is attached again after the reboot (state $(kstate), ops '$(kops)')"; fi
	is "scx.service: enabled, active, started by this boot" \
		"$(systemctl is-enabled scx) $(prop ActiveState) $(prop NRestarts)" "enabled active 0"
	like "this boot's journal has scx_cadence's attach" \
		"$(journalctl -b -u scx --no-pager -q -o cat 2>&1)" 'scheduler "cadence" attached'
	journal_diag -n 12
	done_testing
fi

# ---- boot 1 ----
diag "system state: $(timeout 300 systemctl is-system-running --wait 2>&1)"
check "apt-get installs the packages offline" install_debs debs
apply_break
strata_config

# 1. scxctl start, switch along every pair, stop
mapfile -t scheds < <(installed_scheds)
n=${#scheds[@]}
# A walk through every pair {a, b} once: from the current scheduler to one
# it has not been paired with yet; when there is none, on to any that has
# pairs left (that step repeats a pair). For an odd count, as 7 today,
# every scheduler has an even number of pairs and no step repeats.
declare -A used
# pick_next: from $cur, a scheduler not paired with it yet; else any
# scheduler that still has a pair left (that step repeats a pair)
pick_next() {
	local j k
	for ((j = 0; j < n; j++)); do
		[ "$j" = "$cur" ] || [ -n "${used[$cur.$j]:-}" ] || { echo "$j"; return; }
	done
	for ((j = 0; j < n; j++)); do
		for ((k = 0; k < n; k++)); do
			[ "$j" = "$k" ] || [ -n "${used[$j.$k]:-}" ] || { echo "$j"; return; }
		done
	done
}
walk=(0)
cur=0
left=$((n * (n - 1) / 2))
while [ "$left" -gt 0 ]; do
	next=$(pick_next)
	if [ -z "${used[$cur.$next]:-}" ]; then
		used[$cur.$next]=1 used[$next.$cur]=1
		left=$((left - 1))
	fi
	walk+=("$next")
	cur=$next
done
diag "switch walk: $(for i in "${walk[@]}"; do printf '%s ' "${scheds[$i]}"; done)"

sched_args() { [ "$1" = strata ] && echo "-- $STRATA_FLAGS"; }
first=${scheds[${walk[0]}]}
# shellcheck disable=SC2046 # the flags are words
out=$(scxctl start "$first" $(sched_args "$first") 2>&1)
rc=$?
is "scxctl start $first: attached, through the unit" "$rc $(kops) $(prop ActiveState)" \
	"0 $first active"
diag "$out"
prev=$first
t0=$(date +%s)
pairs=0
for i in "${walk[@]:1}"; do
	name=${scheds[$i]}
	# shellcheck disable=SC2046
	out=$(scxctl switch "$name" $(sched_args "$name") 2>&1)
	rc=$?
	is "scxctl switch $prev -> $name: the kernel runs $name, the unit is active" \
		"$rc $(kstate) $(kops) $(prop ActiveState)" "0 enabled $name active"
	[ "$rc" = 0 ] || { diag "$out"; journal_diag -n 10; }
	prev=$name
	pairs=$((pairs + 1))
done
diag "$pairs switches in $(($(date +%s) - t0)) s"
out=$(scxctl stop 2>&1)
rc=$?
is "scxctl stop: sched_ext disabled, the unit inactive" "$rc $(kstate) $(prop ActiveState)" \
	"0 disabled inactive"
is "scxctl stop drops the overrides (the next start reads /etc/default/scx)" \
	"$(systemctl show-environment | grep -c '^SCX_.*_OVERRIDE=')" 0

# 2. config files the unit cannot see, or that the scheduler rejects
mkdir -p /home/user /root
for f in /tmp/strata.json /root/strata.json /home/user/strata.json; do
	cp /etc/scx/strata-probe.json "$f"
	out=$(scxctl start strata -- "f:$f" 2>&1)
	rc=$?
	is "scxctl start strata -- f:$f: refused (exit 2), nothing started" \
		"$rc $(kstate) $(prop ActiveState)" "2 disabled inactive"
	like "... and the message names the file and the setting that hides it" "$out" \
		"$f.*(PrivateTmp|ProtectHome)"
	# Whatever got started (a unit that can see the file after all) goes,
	# so that one failure does not make the next checks fail too.
	[ "$rc" = 2 ] || { diag "$out"; scxctl stop >/dev/null 2>&1; }
done
echo '[{"name": "bad", "matches": [[]], "kind": {"NoSuchKind": {}}}]' >/etc/scx/bad.json
out=$(scxctl start strata -- f:/etc/scx/bad.json 2>&1)
rc=$?
is "scxctl start strata with a config it rejects: exit 2, sched_ext disabled" \
	"$rc $(kstate)" "2 disabled"
like "... and scxctl shows scx_strata's own error from the unit's run" "$out" \
	'scx_strata: .*(NoSuchKind|kind)'
diag "scxctl said:"
printf '%s\n' "$out" | sed 's/^/#   /'
[ "$rc" = 2 ] || scxctl stop >/dev/null 2>&1
systemctl reset-failed scx 2>/dev/null

# 3. the restart policy: SIGKILL is restarted, exit 2 is not
set_default scx_minimal ""
systemctl start scx
if wait_for 180 attached minimal; then ok "scx_minimal attached through /etc/default/scx"; else
	nok "scx_minimal attached through /etc/default/scx"; fi
pid=$(prop MainPID)
cursor=$(journalctl -n 0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p')
# MainPID 0 (nothing runs) would make this kill our own process group.
[ "$pid" -gt 1 ] && kill -KILL "$pid"
restarted() { [ "$(prop NRestarts)" = 1 ] && attached minimal && unit_is active; }
if wait_for 120 restarted; then
	ok "SIGKILL of scx_minimal: restarted by the unit and attached again"
else
	nok "SIGKILL of scx_minimal: restarted by the unit and attached again" \
		"(NRestarts $(prop NRestarts), state $(kstate), unit $(prop ActiveState))"
fi
new=$(prop MainPID)
is "... by a new process (MainPID changed)" "$([ "$new" != "$pid" ] && [ "$new" != 0 ] && echo yes)" yes
like "... and systemd logged the kill and the restart" \
	"$(journalctl -u scx --after-cursor="$cursor" --no-pager -q -o cat 2>&1 | tr '\n' ' ')" \
	'status=9/KILL.*Scheduled restart job'
systemctl stop scx
wait_for 60 detached

set_default scx_minimal "--no-such-flag"
systemctl reset-failed scx 2>/dev/null
systemctl start scx
wait_for 60 unit_is failed
# RestartSec=2: three of them without a restart
sleep 6
is "exit 2 (bad flag in /etc/default/scx): failed, not restarted" \
	"$(prop ActiveState) $(prop Result) $(prop ExecMainStatus) $(prop NRestarts) $(kstate)" \
	"failed exit-code 2 0 disabled"
like "... and the run's journal says what is wrong" "$(run_log)" 'no-such-flag'
[ "$_fail" = 0 ] || journal_diag -n 20
systemctl reset-failed scx

# 4. enable with scx_cadence, reboot; boot 2 checks the rest
set_default scx_cadence ""
check "systemctl enable --now scx (scx_cadence)" systemctl enable --now scx
if wait_for 180 attached cadence; then ok "scx_cadence attached before the reboot"; else
	nok "scx_cadence attached before the reboot"; fi
# Failures so far are carried over: boot 2's checks say something even then.
echo "rebooted $_n $_fail $(cat /proc/sys/kernel/random/boot_id)" >"$phase_file"
sync
diag "rebooting"
systemctl reboot
# systemd stops this job on the way down; the job runs again after the boot.
sleep 600
nok "the reboot did not happen"
done_testing
