#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test-deb.sh SRCDIR - build the Debian packages (packaging/build-deb, i.e.
# dpkg-buildpackage -us -uc -b), run lintian on them, install them into an
# empty root with "dpkg --root" and check what landed there: the file list
# of every package, scx_<name> --version, scxctl list seeing every
# scheduler, and systemd-analyze verify on the installed unit.
#
# Maintainer scripts run chrootless (DPKG_ROOT points deb-systemd-helper
# at the root); the packages' library dependencies (libc, libelf, jansson,
# zlib) are the host's, so the binaries run from the root as installed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lib/tap.sh"
src=$1
for t in dpkg-buildpackage dh lintian systemd-analyze; do
	command -v $t >/dev/null || skip_all "$t missing (tools/setup installs it)"
done
[ "$(id -u)" = 0 ] || skip_all "needs root (dpkg --root with maintainer scripts)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n1)

check "the committed packaging matches the scheduler list (packaging/gen-packaging --check)" \
	python3 "$src/packaging/gen-packaging" --check

# The unit tests run in their own suite; dbgsym packages add nothing here.
export DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)"
debs=$tmp/debs
if ! check "dpkg-buildpackage -us -uc -b" "$src/packaging/build-deb" -o "$debs"; then
	done_testing
fi
changes=$(ls "$debs"/*.changes)
out=$(lintian --fail-on error --tag-display-limit 0 "$changes" 2>&1)
rc=$?
_report $rc "lintian reports no errors"
[ -z "$out" ] || printf '%s\n' "$out" | grep -v 'root privileges' | head -n 40 | sed 's/^/#   /'

# Every scheduler of the source package has a binary package.
scheds=$(sed -n 's/^Package: scx-\(.*\)$/\1/p' "$src/packaging/debian/control" | grep -v '^common$')
for s in $scheds; do
	ls "$debs"/scx-${s}_${version}_amd64.deb >/dev/null 2>&1
	is "scx-$s package built" $? 0
done
ls "$debs"/scx-common_${version}_amd64.deb >/dev/null 2>&1
is "scx-common package built" $? 0

# ---- file lists ----
files_of() { dpkg-deb -c "$1" | awk '{ print $NF }' | sed 's|^\./|/|' | grep -v '/$' | sort; }
common=$(files_of "$debs/scx-common_${version}_amd64.deb")
for f in /usr/bin/scxctl /usr/share/man/man8/scxctl.8.gz /lib/systemd/system/scx.service \
	/etc/default/scx /usr/share/doc/scx-common/copyright; do
	like "scx-common ships $f" "$common" "^$f$"
done
like "/etc/default/scx is a conffile" \
	"$(dpkg-deb -I "$debs/scx-common_${version}_amd64.deb" conffiles)" "^/etc/default/scx$"
for s in $scheds; do
	n=${s//-/_}
	list=$(files_of "$debs/scx-${s}_${version}_amd64.deb")
	is "scx-$s ships its binary, man page, registry entry and docs" \
		"$(echo "$list" | grep -E "^/usr/(bin|share/man/man8|share/scxkit/schedulers|share/doc/scx-$s)/" |
			grep -vE 'changelog|copyright|README|examples' | tr '\n' ' ')" \
		"/usr/bin/scx_$n /usr/share/man/man8/scx_$n.8.gz /usr/share/scxkit/schedulers/$n "
	like "scx-$s depends on the same scx-common" \
		"$(dpkg-deb -f "$debs/scx-${s}_${version}_amd64.deb" Depends)" "scx-common \(= $version\)"
done

# ---- install into an empty root ----
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
check "dpkg --root installs every package" dpkg --root="$root" --log=/dev/null \
	--force-script-chrootless --force-depends -i $(ls "$debs"/*.deb)
is "dpkg knows them as installed" \
	"$(dpkg --root="$root" -l 'scx-*' 2>/dev/null | grep -c '^ii')" "$(($(echo $scheds | wc -w) + 1))"
for s in $scheds; do
	n=${s//-/_}
	is "installed scx_$n --version" "$("$root/usr/bin/scx_$n" --version 2>&1)" "scx_$n $version"
done
is "installed scxctl --version" "$("$root/usr/bin/scxctl" --version)" "scxctl $version"
out=$(SCXKIT_SCHED_DIR=$root/usr/share/scxkit/schedulers SCXKIT_BIN_DIR=$root/usr/bin \
	"$root/usr/bin/scxctl" list)
is "scxctl list sees every installed scheduler" "$(echo "$out" | awk '{ print $1 }' | sort)" \
	"$(for s in $scheds; do echo "${s//-/_}"; done | sort)"
is "the installed scxctl looks in /usr/share/scxkit/schedulers by default" \
	"$(strings "$root/usr/bin/scxctl" | grep -c '^/usr/share/scxkit/schedulers$')" 1
sel=$(sed -n 's/^SCX_SCHEDULER=scx_//p' "$root/etc/default/scx")
like "/etc/default/scx selects an installed scheduler" "$sel" \
	"^($(echo $scheds | tr ' -' '|_'))$"
is "the service is installed disabled" \
	"$(find "$root/etc/systemd" -name scx.service 2>/dev/null | wc -l)" 0

# systemd-analyze resolves the unit's dependencies (sysinit.target, ...)
# and its Documentation= man page from the root: give the root the host's
# systemd units and point MANPATH at the installed pages.
for u in /lib/systemd/system/*; do
	[ -e "$root/lib/systemd/system/$(basename "$u")" ] || cp -a "$u" "$root/lib/systemd/system/"
done
out=$(MANPATH=$root/usr/share/man systemd-analyze --root="$root" verify scx.service 2>&1)
rc=$?
is "systemd-analyze verify: no error, no warning" "$rc:$out" "0:"
done_testing
