#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_new_scheduler.sh - tools/new-scheduler on a copy of the tree: the new
# scheduler is wired into meson and the VM suite, builds without edits, and
# its binary answers --help and --version, and its generated VM smoke
# scenario passes in the sched_ext kernel (skipped with --no-vm).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$top" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -C "$tmp" -xf -
cd "$tmp"
tools/new-scheduler Bad-Name >/dev/null 2>&1 && fail "accepted an invalid name"
tools/new-scheduler minimal >/dev/null 2>&1 && fail "overwrote an existing scheduler"
tools/new-scheduler zeta "a test scheduler" >/dev/null || fail "new-scheduler failed"
[ -f scheds/zeta/zeta.bpf.c ] || fail "no scheds/zeta/zeta.bpf.c"
grep -q "'zeta'" scheds/meson.build || fail "zeta not in scheds/meson.build"
grep -q "zeta-smoke" tests/vm/meson.build || fail "no zeta-smoke VM test"
[ -f tests/vm/scenarios/zeta-smoke.sh ] || fail "no zeta-smoke.sh scenario"
grep -rq minimal scheds/zeta && fail "scheds/zeta still mentions minimal: $(grep -rl minimal scheds/zeta)"
meson setup b -Dschedulers=zeta -Dtests=false >/dev/null || fail "meson setup failed"
ninja -C b scx_zeta >b.log 2>&1 || { tail -20 b.log; fail "scx_zeta does not build"; }
b/scx_zeta --help | grep -q "a test scheduler" || fail "--help lacks the description"
b/scx_zeta --version | grep -q "^scx_zeta " || fail "--version is wrong"
if [ "${1:-}" != --no-vm ]; then
	ninja -C b bench/workloads/scxk-probe >/dev/null 2>&1 || true
	tests/vm/vm-run --builddir b --cpus 4 --timeout 600 zeta-smoke.sh vtime ||
		fail "the generated zeta-smoke scenario failed"
fi
echo "ok: scx_zeta created, wired, built and smoke-tested"
