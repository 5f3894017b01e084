#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test-ops-host.sh SRCDIR BUILDDIR - scxctl, the registry entries, man
# pages, scx.service, /etc/default/scx and "meson install" on the host,
# without a sched_ext kernel: sysfs is faked through SCX_SYSFS_PREFIX and
# everything that would load a scheduler must stop before the kernel.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib/tap.sh"
src=$1
build=$2
scxctl=$build/scxctl/scxctl
[ -x "$scxctl" ] || skip_all "scxctl not built in $build"
export SCXKIT_SCHED_DIR=$build/packaging/schedulers SCXKIT_BIN_DIR=$build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n1)

# ---- registry: one entry per built scheduler, its --help summary ----
bins=()
for b in "$build"/scx_*; do
	[ -f "$b" ] && [ -x "$b" ] && bins+=("$b")
done
names=$(ls "$SCXKIT_SCHED_DIR" | sort)
is "one registry entry per scheduler binary" "$names" \
	"$(for b in "${bins[@]}"; do basename "$b" | sed 's/^scx_//'; done | sort)"
for b in "${bins[@]}"; do
	n=$(basename "$b" | sed 's/^scx_//')
	is "entry of $n is its --help summary" "$(cat "$SCXKIT_SCHED_DIR/$n")" \
		"$("$b" --help | awk 'NR > 1 && NF { print; exit }')"
done

# ---- scxctl list / status against a fake sysfs ----
out=$("$scxctl" list)
is "list exits 0" $? 0
is "list names every scheduler" "$(echo "$out" | awk '{ print $1 }')" "$names"
fake=$tmp/sysfs
mkdir -p "$fake/sys/kernel/sched_ext/root"
echo disabled >"$fake/sys/kernel/sched_ext/state"
out=$(SCX_SYSFS_PREFIX=$fake "$scxctl" status)
is "status exits 0 with sched_ext disabled" $? 0
like "status reports disabled" "$out" "^sched_ext: +disabled"
like "and no scheduler" "$out" "^scheduler: +none"
first=$(echo "$names" | head -n1)
echo enabled >"$fake/sys/kernel/sched_ext/state"
echo "${first}_1.0" >"$fake/sys/kernel/sched_ext/root/ops"
echo 0 >"$fake/sys/kernel/sched_ext/switch_all"
out=$(SCX_SYSFS_PREFIX=$fake "$scxctl" status)
like "status names the enabled ops" "$out" "^scheduler: +${first}_1.0"
like "status reports partial mode" "$out" "only SCHED_EXT tasks"
like "status says when no loader process is found" "$out" "no scxkit process"
like "list marks the running scheduler (ops name with a version)" \
	"$(SCX_SYSFS_PREFIX=$fake "$scxctl" list | grep "^$first ")" "\[running\]$"

# ---- refusals: bad input exits 2, environment problems exit 1 ----
nosx="env SCX_SYSFS_PREFIX=$tmp/none"
$nosx "$scxctl" status >"$tmp/o" 2>&1
is "status without sched_ext exits 1" $? 1
like "with the reason" "$(cat "$tmp/o")" "this kernel has no sched_ext"
$nosx "$scxctl" start "$first" >"$tmp/o" 2>&1
is "start without sched_ext exits 1" $? 1
$nosx "$scxctl" start nosuch >"$tmp/o" 2>&1
is "start of an unknown scheduler exits 2" $? 2
like "naming it" "$(cat "$tmp/o")" "'nosuch' is not an installed scheduler"
for bad in 'x;reboot' '../../bin/sh' 'BRISK' 'scx_' "$(printf 'a%.0s' $(seq 20))"; do
	$nosx "$scxctl" start "$bad" >/dev/null 2>&1
	is "start '$bad' exits 2" $? 2
done
$nosx "$scxctl" switch "$first" -- --no-such-flag >"$tmp/o" 2>&1
is "flags the scheduler rejects exit 2" $? 2
like "with the scheduler's message" "$(cat "$tmp/o")" "unknown option '--no-such-flag'"

# ---- the argument check parses options only: no file read or written, time-limited ----
if echo "$names" | grep -qx strata; then
	$nosx "$scxctl" start strata -- -e "$tmp/written" >"$tmp/o" 2>&1
	check "start strata -- -e FILE: the check writes nothing" test ! -e "$tmp/written"
	# A "--" among the arguments must not turn the check flag into a spec.
	printf '"s3cretpassw0rd\n' >"$tmp/secret"
	$nosx "$scxctl" start strata -- "f:$tmp/secret" -- >"$tmp/o" 2>&1
	is "a '--' in the arguments: exits 1 (no sched_ext), not 2 (config read)" $? 1
	is "and shows nothing of the file named" "$(grep -c s3cret "$tmp/o")" 0
	mkfifo "$tmp/fifo"
	t0=$(date +%s)
	$nosx timeout 60 "$scxctl" start strata -- "f:$tmp/fifo" -- >"$tmp/o" 2>&1
	is "a spec naming a FIFO: the check does not open it (exits 1, no sched_ext)" $? 1
	check "within 5 s" test $(($(date +%s) - t0)) -le 5
fi
# A scheduler whose check hangs is stopped after scxctl's limit (10 s).
mkdir -p "$tmp/reg" "$tmp/bin"
echo "hangs when asked to check its arguments" >"$tmp/reg/hang"
printf '#!/bin/sh\nsleep 40\n' >"$tmp/bin/scx_hang"
chmod +x "$tmp/bin/scx_hang"
t0=$(date +%s)
SCXKIT_SCHED_DIR=$tmp/reg SCXKIT_BIN_DIR=$tmp/bin timeout 30 "$scxctl" start hang >"$tmp/o" 2>&1
is "a hanging argument check fails with exit 1" $? 1
like "saying it did not finish" "$(cat "$tmp/o")" "did not finish checking its arguments within 10 s"
check "after the 10 s limit, not the 40 s hang" test $(($(date +%s) - t0)) -le 15
"$scxctl" >/dev/null 2>&1
is "no command exits 2" $? 2
"$scxctl" frob >/dev/null 2>&1
is "unknown command exits 2" $? 2
"$scxctl" --bogus list >/dev/null 2>&1
is "unknown option exits 2" $? 2
"$scxctl" --timeout 0 list >/dev/null 2>&1
is "--timeout 0 exits 2" $? 2
"$scxctl" --log-dir relative list >/dev/null 2>&1
is "a relative --log-dir exits 2" $? 2
"$scxctl" list extra >/dev/null 2>&1
is "list with an argument exits 2" $? 2
is "--version" "$("$scxctl" --version)" "scxctl $version"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	# The checkout may sit in a directory only root can enter (mktemp -d):
	# run a copy that nobody can reach.
	pub=$(mktemp -d) && chmod 755 "$pub" && cp "$scxctl" "$pub/"
	setpriv --reuid=65534 --regid=65534 --clear-groups env SCX_SYSFS_PREFIX="$fake" \
		"$pub/scxctl" stop >"$tmp/o" 2>&1
	is "stop as non-root exits 1" $? 1
	like "and says it needs root" "$(cat "$tmp/o")" "needs root"
	rm -rf "$pub"
fi

# ---- service-exec: scx.service's ExecStart ----
env -u SCX_SCHEDULER "$scxctl" service-exec >"$tmp/o" 2>&1
is "service-exec without SCX_SCHEDULER exits 2" $? 2
SCX_SCHEDULER=scx_nosuch "$scxctl" service-exec >/dev/null 2>&1
is "service-exec with an unknown scheduler exits 2" $? 2
SCX_SCHEDULER=/usr/bin/env "$scxctl" service-exec >/dev/null 2>&1
is "service-exec with a path exits 2" $? 2
# --help-stats makes the exec'd scheduler stop before the kernel.
out=$(SCX_SCHEDULER=scx_$first SCX_FLAGS="  --exit-dump-len	4096   --help-stats " \
	"$scxctl" service-exec 2>/dev/null)
is "service-exec execs SCX_SCHEDULER with SCX_FLAGS split at blanks" "$out" \
	"$("$build/scx_$first" --help-stats)"
second=$(echo "$names" | sed -n 2p)
if [ -n "$second" ]; then
	out=$(SCX_SCHEDULER=scx_$first SCX_FLAGS=--no-such-flag SCX_SCHEDULER_OVERRIDE=$second \
		SCX_FLAGS_OVERRIDE=--help-stats "$scxctl" service-exec 2>/dev/null)
	is "an override scheduler runs with the override flags only" "$out" \
		"$("$build/scx_$second" --help-stats)"
fi

# ---- man pages: one per binary, every --help option in it ----
mandir=$build/packaging/man
if [ -d "$mandir" ] && [ -n "$(ls "$mandir"/*.8 2>/dev/null)" ]; then
	for b in "${bins[@]}" "$scxctl"; do
		n=$(basename "$b")
		page=$(MANWIDTH=200 man -l "$mandir/$n.8" 2>/dev/null)
		like "$n.8 renders with its NAME line" "$page" "^NAME"
		missing=
		for o in $("$b" --help | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
			echo "$page" | grep -qF -- "$o" || missing="$missing $o"
		done
		is "$n.8 documents every option of --help" "${missing:-none}" none
	done
else
	diag "man pages not built (-Dman=disabled or no scdoc)"
fi

# ---- scx.service and /etc/default/scx ----
unit=$build/packaging/systemd/scx.service
like "the unit runs scxctl service-exec" "$(cat "$unit")" "^ExecStart=/.*/scxctl service-exec$"
like "only where sched_ext exists" "$(cat "$unit")" "^ConditionPathIsDirectory=/sys/kernel/sched_ext$"
like "reading the defaults file" "$(cat "$unit")" "^EnvironmentFile=-/.*/default/scx$"
like "not restarting on configuration errors" "$(cat "$unit")" "^RestartPreventExitStatus=2$"
dfl=$(cat "$build/packaging/systemd/scx")
for n in $names; do
	like "defaults file lists scx_$n" "$dfl" "^#   scx_$n "
done
sel=$(echo "$dfl" | sed -n 's/^SCX_SCHEDULER=//p')
like "and selects an installed scheduler" "$sel" "^scx_($(echo $names | tr ' ' '|'))$"

# ---- meson install honours DESTDIR ----
dest=$tmp/dest
if meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/o" 2>&1; then
	_report 0 "meson install into DESTDIR"
	for f in bin/scxctl share/man/man8/scxctl.8 systemd/system/scx.service default/scx; do
		like "installs $f" "$(cd "$dest" && find . -path "*$f")" "$f$"
	done
	for n in $names; do
		like "installs scx_$n, its man page and entry" \
			"$(cd "$dest" && find . -name "scx_$n" -o -name "scx_$n.8" -o -path "*schedulers/$n" | sort | tr '\n' ' ')" \
			"bin/scx_$n .*man8/scx_$n.8 .*schedulers/$n"
	done
else
	_report 1 "meson install into DESTDIR"
	sed 's/^/#   /' "$tmp/o" | tail -n 20
fi
done_testing
