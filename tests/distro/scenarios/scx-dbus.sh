#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scx-dbus.sh - the org.scx.Loader service (scxkit-loader, issue 27) as a
# GUI drives it: busctl for the calls and properties (dbus-send where the
# D-Bus error name is checked), on the system bus of the Debian guest with
# polkit. Expects the .debs in ./debs (boot --with-debs).
#
#  - the first property read activates the service (D-Bus activation,
#    scxkit-loader.service); every property with nothing running;
#  - bad input is refused with its own error name and nothing starts
#    (sched_ext stays disabled, no root/ops): an unknown scheduler, a
#    path as a name, mode 7, arguments the scheduler rejects (holding
#    shell metacharacters, which must not reach a shell), and an
#    unprivileged caller (nobody, refused by polkit; reading is allowed);
#  - StartScheduler, SwitchScheduler, SwitchSchedulerWithArgs,
#    StartSchedulerWithArgs, RestartScheduler, RestoreDefault and
#    StopScheduler change what the kernel runs (root/ops), and the
#    properties follow; the mode's flags are the scheduler's declaration
#    (scx_NAME --mode-flags); arguments with metacharacters reach the
#    scheduler as one literal argv word each;
#  - a bad call while a scheduler runs leaves it running (same pid);
#  - scxctl goes through the service when it runs (SchedulerMode follows
#    scxctl switch --mode), and nobody's scxctl stop is refused;
#  - SCX_MODE in /etc/default/scx: scx.service runs the mode's flags;
#  - power-profiles-daemon (when the image has it): setting ActiveProfile
#    switches the running scheduler to the mode SCX_POWER_PROFILE_MODES
#    maps the profile to.
# shellcheck source=SCRIPTDIR/../lib.sh # boot puts it next to this file
. ./lib.sh

ls ./debs/*.deb >/dev/null 2>&1 || skip_all "no ./debs/*.deb (boot --with-debs)"
diag "system state: $(timeout 300 systemctl is-system-running --wait 2>&1)"
check "apt-get installs the packages offline" install_debs debs
strata_config

# A switch through scx.service takes seconds under TCG; allow for a fallback.
bus=(busctl --system --timeout=240)
get() { "${bus[@]}" get-property org.scx.Loader /org/scx/Loader org.scx.Loader "$1" 2>&1; }
call() { "${bus[@]}" -- call org.scx.Loader /org/scx/Loader org.scx.Loader "$@" 2>&1; }
# dsend METHOD ARGS...: dbus-send, which prints the error's name
dsend() {
	dbus-send --system --print-reply --reply-timeout=240000 --dest=org.scx.Loader \
		/org/scx/Loader "org.scx.Loader.$@" 2>&1
}
# the running scheduler's pid and argv (as ps shows them)
sched_pid() { pgrep -x "scx_$1" | head -n 1; }
sched_cmd() { local p; p=$(sched_pid "$1") && [ -n "$p" ] && tr '\0' ' ' <"/proc/$p/cmdline"; }
nothing_runs() { [ "$(kstate)" = disabled ] && [ -z "$(kops)" ]; }
# refused DESC ERRNAME METHOD ARGS...: the call fails with ERRNAME and
# sched_ext is as before (nothing runs / the same pid still runs)
refused() {
	local desc=$1 err=$2 out before after
	shift 2
	before="$(kstate) $(kops) $(pgrep -d, '^scx_' || true)"
	out=$(dsend "$@")
	like "$desc: refused with $err" "$out" "Error $err"
	diag "  ${out//$'\n'/ }"
	after="$(kstate) $(kops) $(pgrep -d, '^scx_' || true)"
	is "$desc: sched_ext unchanged" "$after" "$before"
}

# 1. activation and the properties with nothing running
is "the loader is not running before the first call" "$(systemctl is-active scxkit-loader)" \
	inactive
is "CurrentScheduler with nothing running" "$(get CurrentScheduler)" 's "unknown"'
is "reading a property activated scxkit-loader.service" \
	"$(systemctl is-active scxkit-loader)" active
is "SchedulerMode with nothing running" "$(get SchedulerMode)" "u 0"
is "CurrentSchedulerArgs with nothing running" "$(get CurrentSchedulerArgs)" "as 0"
want="as $(installed_scheds | wc -l)$(installed_scheds | sed 's/^/ "scx_/; s/$/"/' | tr -d '\n')"
is "SupportedSchedulers: every installed scheduler, as scx_NAME" \
	"$(get SupportedSchedulers)" "$want"
is "DefaultScheduler: /etc/default/scx's" "$(get DefaultScheduler)" 's "scx_brisk"'
is "DefaultMode without SCX_MODE" "$(get DefaultMode)" "u 0"
like "introspection has the upstream interface" \
	"$("${bus[@]}" introspect org.scx.Loader /org/scx/Loader org.scx.Loader 2>&1)" \
	'SwitchSchedulerWithArgs +method +sas'

# 2. bad input, nothing running
refused "an unknown scheduler" org.scx.Loader.Error.UnknownScheduler \
	StartScheduler string:scx_nosuch uint32:0
refused "a path as the scheduler name" org.scx.Loader.Error.UnknownScheduler \
	StartScheduler string:../../bin/sh uint32:0
refused "mode 7" org.scx.Loader.Error.InvalidMode StartScheduler string:scx_brisk uint32:7
refused "arguments the scheduler rejects, with shell metacharacters" \
	org.scx.Loader.Error.InvalidArguments \
	StartSchedulerWithArgs string:scx_brisk 'array:string:--slice-us,1;touch /run/scxk-pwned'
is "no shell ran the metacharacters" "$(ls /run/scxk-pwned 2>&1 >/dev/null | wc -l)" 1
out=$(runuser -u nobody -- "${bus[@]}" get-property org.scx.Loader /org/scx/Loader \
	org.scx.Loader SupportedSchedulers 2>&1)
like "nobody may read the properties" "$out" '"scx_brisk"'
before="$(kstate) $(kops)"
out=$(runuser -u nobody -- dbus-send --system --print-reply --dest=org.scx.Loader \
	/org/scx/Loader org.scx.Loader.StartScheduler string:scx_brisk uint32:1 2>&1)
like "nobody's StartScheduler is refused (polkit)" "$out" \
	'Error org.freedesktop.DBus.Error.AccessDenied: .*not authorized'
diag "  $out"
is "nobody's StartScheduler started nothing" "$(kstate) $(kops)" "$before"

# 3. the methods, as a GUI calls them
is "StartScheduler scx_brisk Gaming" "$(call StartScheduler su scx_brisk 1)" ""
if wait_for 60 attached brisk; then ok "the kernel runs brisk"
else nok "the kernel runs brisk (state $(kstate), ops '$(kops)')"; fi
is "CurrentScheduler" "$(get CurrentScheduler)" 's "scx_brisk"'
is "SchedulerMode: Gaming" "$(get SchedulerMode)" "u 1"
is "CurrentSchedulerArgs: empty when started with a mode" "$(get CurrentSchedulerArgs)" "as 0"
gaming=$(/usr/bin/scx_brisk --mode-flags gaming | tr '\n' ' ')
is "brisk runs with its gaming flags (${gaming% })" "$(sched_cmd brisk)" \
	"/usr/bin/scx_brisk $gaming"
is "it runs in scx.service (the same path as scxctl)" "$(prop ActiveState)" active

is "SwitchScheduler scx_cadence PowerSave" "$(call SwitchScheduler su scx_cadence 2)" ""
if wait_for 60 attached cadence; then ok "the kernel runs cadence"
else nok "the kernel runs cadence (state $(kstate), ops '$(kops)')"; fi
is "SchedulerMode: PowerSave" "$(get SchedulerMode)" "u 2"
like "cadence runs with --powersave" "$(sched_cmd cadence)" "--powersave"

pid=$(sched_pid cadence)
refused "SwitchScheduler with mode 9 while cadence runs" org.scx.Loader.Error.InvalidMode \
	SwitchScheduler string:scx_brisk uint32:9
refused "SwitchSchedulerWithArgs with a rejected argument while cadence runs" \
	org.scx.Loader.Error.InvalidArguments \
	SwitchSchedulerWithArgs string:scx_brisk 'array:string:-s,$(touch /run/scxk-pwned)'
is "cadence still runs, the same process" "$(sched_pid cadence)" "$pid"
is "no shell ran the metacharacters" "$(ls /run/scxk-pwned 2>&1 >/dev/null | wc -l)" 1

# strata's layer spec: JSON with quotes, brackets and metacharacters in the
# layer name, one argv word that must arrive untouched
spec='[{"name":"a;b$(id)|`x`","matches":[[]],"kind":{"Open":{}}}]'
is "SwitchSchedulerWithArgs scx_strata with a metacharacter-laden spec" \
	"$(call SwitchSchedulerWithArgs sas scx_strata 3 --slice-us 5000 "$spec")" ""
if wait_for 60 attached strata; then ok "the kernel runs strata"
else nok "the kernel runs strata (state $(kstate), ops '$(kops)')"; fi
is "CurrentSchedulerArgs: the arguments, literally" "$(get CurrentSchedulerArgs)" \
	"as 3 \"--slice-us\" \"5000\" \"${spec//\"/\\\"}\""
is "SchedulerMode with arguments: Auto" "$(get SchedulerMode)" "u 0"
p=$(sched_pid strata)
is "strata's argv[3] is the spec, byte for byte" \
	"$(tr '\0' '\n' <"/proc/$p/cmdline" | sed -n 4p)" "$spec"

pid=$(sched_pid strata)
is "RestartScheduler" "$(call RestartScheduler)" ""
if wait_for 60 attached strata; then ok "strata runs again after RestartScheduler"
else nok "strata runs again after RestartScheduler (state $(kstate), ops '$(kops)')"; fi
isnt_pid=$([ -n "$(sched_pid strata)" ] && [ "$(sched_pid strata)" != "$pid" ] && echo new)
is "RestartScheduler started a new process" "$isnt_pid" new
is "RestartScheduler kept the arguments" "$(get CurrentSchedulerArgs)" \
	"as 3 \"--slice-us\" \"5000\" \"${spec//\"/\\\"}\""

is "StartSchedulerWithArgs scx_brisk while strata runs (replaces it, as upstream)" \
	"$(call StartSchedulerWithArgs sas scx_brisk 2 -s 5000)" ""
if wait_for 60 attached brisk; then ok "the kernel runs brisk"
else nok "the kernel runs brisk (state $(kstate), ops '$(kops)')"; fi
is "CurrentSchedulerArgs" "$(get CurrentSchedulerArgs)" 'as 2 "-s" "5000"'

is "StopScheduler" "$(call StopScheduler)" ""
if wait_for 60 detached; then ok "sched_ext is disabled after StopScheduler"
else nok "sched_ext is disabled after StopScheduler (state $(kstate))"; fi
is "CurrentScheduler after StopScheduler" "$(get CurrentScheduler)" 's "unknown"'

# 4. RestoreDefault: /etc/default/scx's scheduler and SCX_MODE
set_default cadence ""
echo "SCX_MODE=lowlatency" >>/etc/default/scx
is "DefaultScheduler follows /etc/default/scx" "$(get DefaultScheduler)" 's "scx_cadence"'
is "DefaultMode: SCX_MODE=lowlatency" "$(get DefaultMode)" "u 3"
is "RestoreDefault" "$(call RestoreDefault)" ""
if wait_for 60 attached cadence; then ok "RestoreDefault runs cadence"
else nok "RestoreDefault runs cadence (state $(kstate), ops '$(kops)')"; fi
is "SchedulerMode after RestoreDefault: LowLatency" "$(get SchedulerMode)" "u 3"

# 5. scxctl through the service
out=$(scxctl switch brisk --mode server 2>&1)
like "scxctl switch --mode goes through org.scx.Loader" "$out" "through org.scx.Loader"
if wait_for 60 attached brisk; then ok "the kernel runs brisk"
else nok "the kernel runs brisk (state $(kstate), ops '$(kops)')"; fi
is "SchedulerMode follows scxctl: Server" "$(get SchedulerMode)" "u 4"
out=$(scxctl switch cadence --mode turbo 2>&1)
is "scxctl switch --mode turbo: usage error" "$?" 2
like "  and says why" "$out" "'turbo' is not a mode"
is "  brisk still runs" "$(kops)" brisk
out=$(runuser -u nobody -- scxctl stop 2>&1)
is "nobody's scxctl stop fails" "$?" 1
like "  refused by the service" "$out" "not authorized"
is "  brisk still runs" "$(kops)" brisk
check "scxctl stop (through the service)" scxctl stop
if wait_for 60 detached; then ok "sched_ext is disabled"
else nok "sched_ext is disabled (state $(kstate))"; fi

# 6. SCX_MODE through scx.service alone (no D-Bus)
set_default brisk ""
check "systemctl restart scx with SCX_MODE=lowlatency" systemctl restart scx
if wait_for 60 attached brisk; then ok "scx.service runs brisk"
else nok "scx.service runs brisk (state $(kstate), ops '$(kops)')"; fi
lowlat=$(/usr/bin/scx_brisk --mode-flags lowlatency | tr '\n' ' ')
is "with its lowlatency flags (${lowlat% })" "$(sched_cmd brisk)" "/usr/bin/scx_brisk $lowlat"
sed -i 's/^SCX_MODE=.*/SCX_MODE=turbo/' /etc/default/scx
systemctl restart scx
wait_for 30 unit_is failed
is "SCX_MODE=turbo: the unit fails with status 2" "$(prop ActiveState) $(prop ExecMainStatus)" \
	"failed 2"
like "  and says why" "$(run_log)" "SCX_MODE=turbo is not a mode"

# 7. power-profiles-daemon: a profile change switches the running
# scheduler to the mode SCX_POWER_PROFILE_MODES maps it to
pp=(net.hadess.PowerProfiles /net/hadess/PowerProfiles net.hadess.PowerProfiles ActiveProfile)
mode_is() { [ "$(get SchedulerMode)" = "u $1" ]; }
if busctl --system get-property "${pp[@]}" >/dev/null 2>&1; then
	sed -i -e 's/^SCX_MODE=.*/SCX_MODE=/' -e '/^SCX_POWER_PROFILE_MODES=/d' /etc/default/scx
	echo 'SCX_POWER_PROFILE_MODES="power-saver=powersave balanced=gaming"' >>/etc/default/scx
	systemctl reset-failed scx
	diag "power profile now: $(busctl --system get-property "${pp[@]}")"
	is "SwitchScheduler scx_brisk Auto" "$(call SwitchScheduler su scx_brisk 0)" ""
	wait_for 60 attached brisk
	check "power-profiles-daemon takes power-saver" \
		busctl --system set-property "${pp[@]}" s power-saver
	if wait_for 90 mode_is 2; then ok "power-saver: SchedulerMode PowerSave"
	else nok "power-saver: SchedulerMode PowerSave (got '$(get SchedulerMode)')"; fi
	wait_for 60 attached brisk
	like "  brisk runs with its powersave flags" "$(sched_cmd brisk)" "-m powersave"
	check "power-profiles-daemon takes balanced" \
		busctl --system set-property "${pp[@]}" s balanced
	if wait_for 90 mode_is 1; then ok "balanced: SchedulerMode Gaming (as mapped)"
	else nok "balanced: SchedulerMode Gaming (as mapped) (got '$(get SchedulerMode)')"; fi
	wait_for 60 attached brisk
	like "  brisk runs with its gaming flags" "$(sched_cmd brisk)" "-m all"
	check "scxctl stop" scxctl stop
else
	diag "no power-profiles-daemon in this image: profile switching not checked"
fi
# 7. every installed scheduler in every mode, as a GUI's mode menu does
# it: SwitchScheduler NAME MODE, then the kernel runs NAME, SchedulerMode
# reads MODE and the process runs exactly the flags NAME declares for it
read -r -a supported <<<"$(get SupportedSchedulers)"
[ "${supported[0]}" = as ] && [ "${supported[1]}" -ge 6 ] && ok "SupportedSchedulers lists ${supported[1]}" ||
	nok "SupportedSchedulers lists the six (got '${supported[*]}')"
# strata started with no spec runs the system's layers (/etc/scx/strata.json)
cat >/etc/scx/strata.json <<'JSON'
[{"name": "all", "matches": [[]], "kind": {"Open": {}}}]
JSON
for name in "${supported[@]:2}"; do
	name=${name//\"/}
	for m in 0 1 2 3 4; do
		flags=$("/usr/bin/$name" --mode-flags "$m" | tr '\n' ' ')
		is "SwitchScheduler $name $m" "$(call SwitchScheduler su "$name" "$m")" ""
		if wait_for 60 attached "${name#scx_}" && [ "$(get SchedulerMode)" = "u $m" ]; then
			ok "  the kernel runs $name, SchedulerMode $m"
		else
			nok "  the kernel runs $name, SchedulerMode $m (state $(kstate), ops '$(kops)', mode '$(get SchedulerMode)')"
		fi
		is "  $name runs its mode-$m flags" "$(sched_cmd "${name#scx_}")" "/usr/bin/$name ${flags}"
	done
done
is "StopScheduler after the mode sweep" "$(call StopScheduler)" ""
rm -f /etc/scx/strata.json
if wait_for 60 detached; then ok "sched_ext is disabled"
else nok "sched_ext is disabled (state $(kstate))"; fi

journalctl -b -u scxkit-loader --no-pager -q -o cat | tail -n 30 | sed 's/^/#   /'
done_testing
