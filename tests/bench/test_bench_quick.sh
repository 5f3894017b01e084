#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_bench_quick.sh BUILDDIR - end-to-end check of the benchmark tooling:
# one quick run of default + scx_minimal in the VM, the result validated
# against bench/schema.json, and bench/report producing markdown and PNGs;
# then --resume from the default's finished runs: only scx_minimal's run
# again, and the default's per-run values come back unchanged.
# No thresholds on the numbers: TCG timing is not a pass/fail criterion.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=${1:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

start=$(date +%s)
"$top/bench/run" --quick --scheds default,minimal --runs 1 --keep-logs \
	--builddir "$builddir" --out "$tmp/result.json" ||
	fail "bench/run exited with status $?"
echo "# bench/run took $(($(date +%s) - start)) s"

[ -s "$tmp/result.json" ] || fail "no result written"
python3 "$top/tests/bench/check_result.py" quick "$tmp/result.json" ||
	fail "result does not validate"

"$top/bench/report" "$tmp/result.json" --out "$tmp/report" >/dev/null || fail "bench/report failed"
md=$tmp/report/report.md
[ -s "$md" ] || fail "no report.md"
for want in "## probe-vs-burners" "| default" "## Scheduler overhead" "minimal"; do
	grep -qF -- "$want" "$md" || fail "report.md lacks '$want'"
done
pngs=$(find "$tmp/report" -name '*.png' -size +1k | wc -l)
[ "$pngs" -ge 1 ] || fail "no PNG plot produced"
echo "ok: result valid, report with $pngs plot(s)"

# Resume: keep only the default's runs; the guest must skip them.
runs=$tmp/result-logs/runs.jsonl
[ -s "$runs" ] || fail "no runs.jsonl kept beside the logs"
grep '"sched":"default"' "$runs" > "$tmp/default-runs.jsonl" || fail "no default runs in $runs"
grep -q '"sched":"minimal"' "$runs" || fail "no minimal runs in $runs"
"$top/bench/run" --quick --scheds default,minimal --runs 1 --interleave --keep-logs \
	--resume "$tmp/default-runs.jsonl" --builddir "$builddir" --out "$tmp/resumed.json" ||
	fail "bench/run --resume exited with status $?"
# The console shows which runs the guest started.
grep -q 'SCXK-BENCH {"sched":"default"' "$tmp/resumed-logs/default.log" &&
	fail "the resumed boot ran a default run again"
grep -q 'SCXK-BENCH {"sched":"minimal"' "$tmp/resumed-logs/default.log" ||
	fail "the resumed boot did not run scx_minimal"
python3 "$top/tests/bench/check_result.py" resumed "$tmp/result.json" "$tmp/resumed.json" ||
	fail "resumed result wrong"
echo "ok: --resume kept the finished runs and ran only the rest"
