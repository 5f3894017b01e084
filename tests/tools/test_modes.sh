#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_modes.sh SRCDIR BUILDDIR - the scheduler modes (issue 27) on the
# host, nothing loaded: every built scheduler prints each mode's flags
# with --mode-flags (by name and by org.scx.Loader's number), Auto has
# none, and the flags pass the scheduler's own parser (--check-args); a
# bad mode is a usage error (exit 2) for the scheduler and for scxctl,
# before anything could start; scxctl checks a mode's flags together with
# the user's arguments. The VM side is tests/distro's scx-dbus.sh.
set -uo pipefail
src=${1:?SRCDIR}
build=${2:?BUILDDIR}
# shellcheck source=../lib/tap.sh
. "$src/tests/lib/tap.sh"
modes=(auto gaming powersave lowlatency server)

for exe in "$build"/scx_*; do
	[ -f "$exe" ] && [ -x "$exe" ] || continue
	name=$(basename "$exe")
	is "$name: auto (0) has no flags" "$("$exe" --mode-flags auto)" ""
	for i in 1 2 3 4; do
		m=${modes[$i]}
		mapfile -t flags < <("$exe" --mode-flags "$m")
		is "$name: mode $i is $m" "$("$exe" --mode-flags "$i")" "$("$exe" --mode-flags "$m")"
		out=$("$exe" --check-args "${flags[@]}" 2>&1 >/dev/null)
		is "$name: its $m flags (${flags[*]}) pass its parser${out:+: $out}" "$?" 0
	done
	# the README's Modes table shows the declaration (no drift)
	readme=$src/scheds/${name#scx_}/README.md
	if [ -f "$readme" ] && grep -q '^## Modes' "$readme"; then
		for i in 0 1 2 3 4; do
			f=$("$exe" --mode-flags "$i" | xargs)
			cell="(none: the defaults)"
			[ -z "$f" ] || cell="\`$f\`"
			want="| $i ${modes[$i]} | $cell |"
			if grep -qxF "$want" "$readme"; then ok "$name README: mode $i as declared"
			else nok "$name README: mode $i as declared: no line '$want'"; fi
		done
	fi
	out=$("$exe" --mode-flags turbo 2>&1)
	is "$name --mode-flags turbo: exit 2" "$?" 2
	like "$name --mode-flags turbo: names the modes" "$out" "'turbo' is not a mode \\(auto,"
done

# The upstream scx_loader profiles these follow (docs/upstream-compat.md)
is "scx_brisk gaming: scx_bpfland's" "$("$build/scx_brisk" --mode-flags gaming | xargs)" "-m all"
is "scx_cadence powersave: scx_lavd's (without --pinned-slice-us)" \
	"$("$build/scx_cadence" --mode-flags powersave | xargs)" "--powersave"

export SCXKIT_SCHED_DIR=$build/packaging/schedulers SCXKIT_BIN_DIR=$build
ctl=$build/scxctl/scxctl
out=$("$ctl" start brisk --mode turbo 2>&1)
is "scxctl start --mode turbo: exit 2" "$?" 2
like "  says what the modes are" "$out" "'turbo' is not a mode"
out=$("$ctl" switch brisk --mode 2>&1)
is "scxctl switch NAME --mode (no value): exit 2" "$?" 2
out=$("$ctl" start brisk --mode=gaming -- -s 1 2>&1)
is "scxctl start --mode gaming -- -s 1: the scheduler rejects the whole argv, exit 2" "$?" 2
like "  with the scheduler's words" "$out" "slice-us"
out=$("$ctl" --help)
like "scxctl --help documents --mode" "$out" "start NAME \\[--mode MODE\\]"
like "scxctl --help documents SCX_MODE" "$out" "SCX_MODE"
done_testing
