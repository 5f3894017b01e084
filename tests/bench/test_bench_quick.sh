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
python3 - "$tmp/result.json" "$tmp/resumed.json" "$top/bench" <<'EOF' || fail "resumed result wrong"
import sys
sys.path.insert(0, sys.argv[3])
import bench
first, resumed = (bench.load_json(p) for p in sys.argv[1:3])
assert not bench.validate(resumed, bench.load_json(bench.SCHEMA_FILE)), "resumed doc invalid"
by = lambda doc: {s["config"]: s for s in doc["scheds"]}
a, b = by(first), by(resumed)
assert list(b) == ["default", "minimal"], list(b)
n = 0
for scen, res in a["default"]["results"].items():
    for metric, m in res["metrics"].items():
        assert b["default"]["results"][scen]["metrics"][metric]["values"] == m["values"], \
            (scen, metric)
        n += 1
assert n, "no default metrics compared"
for scen in resumed["params"]["scenarios"]:
    assert b["minimal"]["results"][scen]["metrics"], ("minimal", scen, "no metrics")
print("# resumed: %d default metrics carried over unchanged" % n)
EOF
echo "ok: --resume kept the finished runs and ran only the rest"
