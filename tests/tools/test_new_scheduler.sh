#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_new_scheduler.sh [--no-vm] - tools/new-scheduler on a copy of the
# tree: the new scheduler is complete everywhere a scheduler is listed (the
# build, the packaging, the VM and reliability suites, the README table),
# builds without edits, answers --help and --version, and (without --no-vm)
# its generated VM smoke scenario passes in the sched_ext kernel.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The working tree as it is (uncommitted edits included), without builds.
(cd "$top" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -C "$tmp" -xf -
cd "$tmp"
limit=$(sed -n 's/^#define SCXK_SCHED_NAME_MAX \([0-9]*\).*/\1/p' include/scxkit/sched_name.h)
[ -n "$limit" ] || fail "no SCXK_SCHED_NAME_MAX in include/scxkit/sched_name.h"
long=$(printf 'z%.0s' $(seq $((limit + 1))))
tools/new-scheduler Bad-Name >/dev/null 2>&1 && fail "accepted an invalid name"
tools/new-scheduler "$long" >/dev/null 2>&1 && fail "accepted a name of $((limit + 1)) characters"
tools/new-scheduler minimal >/dev/null 2>&1 && fail "overwrote an existing scheduler"
tools/new-scheduler zeta "a test scheduler" >/dev/null || fail "new-scheduler failed"

# Every place a scheduler is listed.
[ -f scheds/zeta/zeta.bpf.c ] || fail "no scheds/zeta/zeta.bpf.c"
grep -q "'zeta'" scheds/meson.build || fail "zeta not in scheds/meson.build"
grep -rq minimal scheds/zeta && fail "scheds/zeta still mentions minimal: $(grep -rl minimal scheds/zeta)"
grep -q '^## Current figures' scheds/zeta/README.md || fail "scheds/zeta/README.md lacks the skeleton"
grep -q '15.4×' scheds/zeta/README.md && fail "scheds/zeta/README.md claims the template's figures"
grep -q 'scheds/zeta/README.md' README.md || fail "no README.md table row for scx_zeta"
grep -q '^Package: scx-zeta$' packaging/debian/control || fail "no scx-zeta in debian/control"
[ -f packaging/debian/scx-zeta.install ] || fail "no debian/scx-zeta.install"
grep -q '^%package -n scx-zeta$' packaging/rpm/scxkit.spec || fail "no scx-zeta in the rpm spec"
grep -q '^package_scx-zeta()' packaging/arch/PKGBUILD || fail "no scx-zeta in the PKGBUILD"
python3 packaging/gen-packaging --check || fail "the packaging is stale after new-scheduler"
grep -q '^ALL_SCHEDS=".* zeta"' tests/vm/lib.sh || fail "zeta not in ALL_SCHEDS (tests/vm/lib.sh)"
grep -q '^	zeta) _k=' tests/vm/lib.sh || fail "zeta has no placements() case (tests/vm/lib.sh)"
[ -x scheds/zeta/tests/zeta-smoke.sh ] || fail "no scheds/zeta/tests/zeta-smoke.sh scenario"
grep -q "'zeta-smoke'" scheds/zeta/tests/meson.build || fail "zeta-smoke not in scheds/zeta/tests/meson.build"

meson setup b -Dschedulers=zeta >b.log 2>&1 || { tail -20 b.log; fail "meson setup failed"; }
ninja -C b scx_zeta packaging/schedulers/zeta >>b.log 2>&1 ||
	{ tail -20 b.log; fail "scx_zeta does not build"; }
[ -x b/scx_zeta ] || fail "no b/scx_zeta"
b/scx_zeta --help | grep -q "a test scheduler" || fail "--help lacks the description"
b/scx_zeta --version | grep -q "^scx_zeta " || fail "--version is wrong"
grep -q "a test scheduler" b/packaging/schedulers/zeta || fail "the registry entry lacks the summary"
tests=$(meson test -C b --list --no-rebuild 2>/dev/null)
for t in zeta-smoke rel-storm-zeta rel-fault-zeta rel-hotplug-zeta rel-oldest-zeta \
	partial-zeta placement-zeta rel-badinput-zeta; do
	grep -qx "[^ ]* / $t" <<<"$tests" || fail "no test $t registered"
done
grep -q "beh-rt$" <<<"$tests" || fail "no beh-rt test"
meson introspect --tests b | grep -q '"beh-rt.sh", [^]]*"zeta"' || fail "beh-rt does not run zeta"
echo "ok: scx_zeta created, wired everywhere and built"

if [ "${1:-}" != --no-vm ]; then
	ninja -C b bench/workloads/scxk-probe >/dev/null 2>&1 || true
	tests/vm/vm-run --builddir b --cpus 4 --timeout 600 zeta-smoke.sh vtime ||
		fail "the generated zeta-smoke scenario failed"
	echo "ok: the zeta-smoke scenario passed"
fi
