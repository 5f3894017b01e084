#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scx-upgrade.sh - the packages' life cycle under real systemd: install
# the previous packages (./old-debs, boot --with-old-debs REF), run a
# scheduler through the enabled unit, upgrade to this tree's (./debs),
# then remove and purge them.
#
#  - upgrade: every package at the new version, the running scheduler
#    restarted exactly once (one new InvocationID and MainPID, one start
#    and one "attached" line in the journal, no Restart=), running the new
#    binary (not a deleted one), the administrator's /etc/default/scx kept;
#    nothing the old packages shipped and the new ones do not is left;
#  - apt-get remove: the scheduler stopped first, every file gone but the
#    conffile /etc/default/scx, kept with the administrator's edit (Debian
#    policy 10.7.3); the packages in state "rc";
#  - apt-get purge: the conffile and the enablement symlinks gone too, no
#    package left in dpkg's database, no file of any list left.
# shellcheck source=SCRIPTDIR/../lib.sh # boot puts it next to this file
. ./lib.sh

ls ./debs/*.deb ./old-debs/*.deb >/dev/null 2>&1 ||
	skip_all "no ./debs and ./old-debs (boot --with-debs --with-old-debs REF)"
diag "system state: $(timeout 300 systemctl is-system-running --wait 2>&1)"

# scx_pkgs: the scx packages dpkg knows, in any state
scx_pkgs() { dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' 'scx-*' 'libscxuser*' 2>/dev/null |
	awk 'NF > 1 && $2 != "un" { print $1 }'; }
# file_lists: every path the installed scx packages own, sorted
file_lists() { for p in $(scx_pkgs); do dpkg -L "$p"; done 2>/dev/null | sort -u; }
deb_version() { dpkg-deb -f "$(ls "$1"/scx-common_*.deb)" Version; }
old_ver=$(deb_version old-debs)
new_ver=$(deb_version debs)
diag "old packages $old_ver, new packages $new_ver"
if ! dpkg --compare-versions "$new_ver" gt "$old_ver"; then
	nok "the new packages ($new_ver) are newer than the old ones ($old_ver)"
	done_testing
fi

# 1. the old packages, a scheduler through the enabled unit
check "apt-get installs the old packages" install_debs old-debs
apply_break
set_default scx_minimal "-v"
check "systemctl enable --now scx (scx_minimal -v)" systemctl enable --now scx
if wait_for 180 attached minimal; then ok "scx_minimal attached (old packages)"; else
	nok "scx_minimal attached (old packages)"
	journal_diag
fi
pid=$(prop MainPID)
inv=$(prop InvocationID)
old_files=$(file_lists)
cursor=$(journalctl -n 0 --show-cursor -q 2>/dev/null | sed -n 's/^-- cursor: //p')

# 2. the upgrade. Old and new /etc/default/scx may differ (another
# scheduler, another summary): dpkg would ask, so the answer an
# administrator who edited it gives is passed: keep mine.
t0=$(date +%s)
if install_debs debs -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	>/tmp/upgrade.log 2>&1; then ok "apt-get upgrades to the new packages ($(($(date +%s) - t0)) s)"
else
	nok "apt-get upgrades to the new packages"
	tail -n 30 /tmp/upgrade.log | sed 's/^/#   /'
fi
mapfile -t pkgs < <(scx_pkgs)
stale=$(dpkg-query -W -f '${Package} ${Version}\n' "${pkgs[@]}" | awk -v v="$new_ver" '$2 != v')
is "every package is at $new_ver" "$stale" ""
is "dpkg --audit finds nothing" "$(dpkg --audit 2>&1)" ""
if wait_for 180 attached minimal; then ok "scx_minimal attached after the upgrade"; else
	nok "scx_minimal attached after the upgrade"; fi
newpid=$(prop MainPID)
newinv=$(prop InvocationID)
is "the upgrade restarted the unit: new InvocationID and MainPID, no Restart=" \
	"$([ "$newinv" != "$inv" ] && echo new-id) $([ "$newpid" != "$pid" ] && echo new-pid) $(prop NRestarts)" \
	"new-id new-pid 0"
since=$(journalctl -u scx --after-cursor="$cursor" --no-pager -q -o cat 2>&1)
is "... exactly once: one start of scx.service since the upgrade began" \
	"$(printf '%s\n' "$since" | grep -c '^Started scx.service')" 1
is "... and one attach" "$(printf '%s\n' "$since" | grep -c 'scheduler "minimal" attached')" 1
is "... and the running scheduler is the new binary" \
	"$(readlink "/proc/$newpid/exe")" /usr/bin/scx_minimal
is "the administrator's /etc/default/scx is kept" \
	"$(grep -E '^SCX_(SCHEDULER|FLAGS)=' /etc/default/scx | tr '\n' ' ')" \
	"SCX_SCHEDULER=scx_minimal SCX_FLAGS=-v "
[ "$_fail" = 0 ] || { diag "scx.service since the upgrade:"; printf '%s\n' "$since" |
	grep -v SCX_EV_ | tail -n 20 | sed 's/^/#   /'; }
new_files=$(file_lists)
left=$(comm -23 <(echo "$old_files") <(echo "$new_files") | while read -r f; do
	[ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done)
is "nothing the old packages shipped and the new ones do not is left" "$left" ""
missing=$(echo "$new_files" | while read -r f; do [ -e "$f" ] || [ -L "$f" ] || echo "$f"; done)
is "every file of dpkg -L is there" "$missing" ""
diag "$(echo "$new_files" | wc -l) paths in the new packages;" \
	"removed by the upgrade: $(comm -23 <(echo "$old_files") <(echo "$new_files") | wc -l)"

# 3. remove: the conffile stays, with the edit
conffiles=$(dpkg-query -W -f '${Conffiles}\n' "${pkgs[@]}" | awk 'NF { print $1 }' | sort -u)
is "the packages' conffiles" "$conffiles" /etc/default/scx
check "apt-get remove ${pkgs[*]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y "${pkgs[@]}"
is "the scheduler was stopped: sched_ext disabled, the unit gone" \
	"$(kstate) $(systemctl show scx -p LoadState --value)" "disabled not-found"
is "only scx-common, the owner of the conffile, is left, in state rc" \
	"$(dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null |
		awk '$2 != "un"' | tr -s ' ' | sed 's/ *$//')" "scx-common rc"
left=$(echo "$new_files" | while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done)
is "remove left only the conffile" "$left" /etc/default/scx
is "... with the administrator's edit" "$(grep '^SCX_SCHEDULER=' /etc/default/scx)" \
	SCX_SCHEDULER=scx_minimal
is "the runtime directory is gone" "$(ls -d /run/scx 2>/dev/null)" ""

# 4. purge: nothing left
# apt refuses to purge what dpkg has forgotten: only those left
mapfile -t left_pkgs < <(scx_pkgs)
check "apt-get purge ${left_pkgs[*]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y "${left_pkgs[@]}"
is "no scx package left in dpkg's database" "$(scx_pkgs)" ""
left=$(echo "$new_files" | while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done)
is "purge removed every file, the conffile too" "$left" ""
is "... and the enablement symlink and deb-systemd-helper's state" \
	"$(find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
		-name 'scx.service*' 2>/dev/null)" ""
is "... and no empty directory of the packages" \
	"$(echo "$new_files" | while read -r f; do [ -d "$f" ] && [ -z "$(ls -A "$f")" ] && echo "$f"; done)" ""
done_testing
