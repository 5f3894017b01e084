#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-badinput-guard.sh SCRIPT - rel-badinput.sh must never run a binary
# where it could attach: with a sched_ext directory present (faked through
# SCXK_BADINPUT_SYSFS_EXTRA) and CAP_SYS_ADMIN it skips, before running the
# binary even once. The binary here only leaves a mark when it runs.
. "$(dirname "$0")/../lib/tap.sh"
script=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/badinput-guard.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cap=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status 2>/dev/null)
if [ -z "$cap" ] || [ $(((0x$cap >> 21) & 1)) != 1 ]; then
	skip_all "needs CAP_SYS_ADMIN: without it nothing can attach, so nothing to guard"
fi
mkdir "$tmp/sched_ext"
printf '#!/bin/sh\ntouch "%s/ran"\nexit 0\n' "$tmp" >"$tmp/scx_fake"
chmod +x "$tmp/scx_fake"

SCXK_BADINPUT_SYSFS_EXTRA=$tmp/sched_ext sh "$script" "$tmp/scx_fake" >"$tmp/out" 2>&1
is "a sched_ext directory and CAP_SYS_ADMIN: exit 77 (skip)" $? 77
is "saying why" "$(grep -c "sched_ext exists and scx_fake could attach" "$tmp/out")" 1
is "the binary never ran" "$([ -e "$tmp/ran" ] && echo ran || echo 'not run')" "not run"
SCXK_BADINPUT_SYSFS_EXTRA=$tmp/sched_ext sh "$script" --strict "$tmp/scx_fake" >/dev/null 2>&1
is "--strict (the VM's mode) is not refused: the binary ran" \
	"$([ -e "$tmp/ran" ] && echo ran || echo 'not run')" ran
rm -f "$tmp/ran"
if [ ! -d /sys/kernel/sched_ext ]; then
	# The same run without the fake directory reaches the binary: the guard,
	# not something else, stopped the first one.
	SCXK_BADINPUT_SYSFS_EXTRA=$tmp/none sh "$script" "$tmp/scx_fake" >/dev/null 2>&1
	is "without a sched_ext directory the binary runs" \
		"$([ -e "$tmp/ran" ] && echo ran || echo 'not run')" ran
fi
done_testing
