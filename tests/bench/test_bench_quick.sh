#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test_bench_quick.sh BUILDDIR - end-to-end check of the benchmark tooling:
# one quick run of default + scx_minimal in the VM, the result validated
# against bench/schema.json, and bench/report producing markdown and PNGs.
# No thresholds on the numbers: TCG timing is not a pass/fail criterion.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
builddir=${1:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

start=$(date +%s)
"$top/bench/run" --quick --scheds default,minimal --runs 1 \
	--builddir "$builddir" --out "$tmp/result.json" ||
	fail "bench/run exited with status $?"
echo "# bench/run took $(($(date +%s) - start)) s"

[ -s "$tmp/result.json" ] || fail "no result written"
python3 - "$tmp/result.json" "$top/bench" <<'EOF' || fail "result does not validate"
import sys
sys.path.insert(0, sys.argv[2])
import bench
doc = bench.load_json(sys.argv[1])
errs = bench.validate(doc, bench.load_json(bench.SCHEMA_FILE))
for e in errs:
    print("  " + e, file=sys.stderr)
configs = [s["config"] for s in doc["scheds"]]
assert configs == ["default", "minimal"], configs
for s in doc["scheds"]:
    for name in doc["params"]["scenarios"]:
        assert s["results"][name]["metrics"], (s["config"], name, "no metrics")
minimal = doc["scheds"][1]
assert minimal["ops"].startswith("minimal"), minimal["ops"]
assert any(r["overhead"]["bpf"] for r in minimal["results"].values()), "no BPF stats"
sys.exit(1 if errs else 0)
EOF

"$top/bench/report" "$tmp/result.json" --out "$tmp/report" >/dev/null || fail "bench/report failed"
md=$tmp/report/report.md
[ -s "$md" ] || fail "no report.md"
for want in "## probe-vs-burners" "| default" "## Scheduler overhead" "minimal"; do
	grep -qF -- "$want" "$md" || fail "report.md lacks '$want'"
done
pngs=$(find "$tmp/report" -name '*.png' -size +1k | wc -l)
[ "$pngs" -ge 1 ] || fail "no PNG plot produced"
echo "ok: result valid, report with $pngs plot(s)"
