#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""check_result.py - the assertions of test_bench_quick.sh on bench/run output.

  check_result.py quick RESULT.json
      RESULT validates against bench/schema.json, holds default and
      minimal with metrics for every scenario, and BPF stats for minimal.
  check_result.py resumed FIRST.json RESUMED.json
      RESUMED validates, and its default runs carry FIRST's values
      unchanged (--resume did not run them again).

Exits 1 with the failed assertion on stderr.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import bench  # noqa: E402


def schema_errors(doc):
    errs = bench.validate(doc, bench.load_json(bench.SCHEMA_FILE))
    for e in errs:
        print("  " + e, file=sys.stderr)
    return errs


def check_quick(path):
    doc = bench.load_json(path)
    errs = schema_errors(doc)
    configs = [s["config"] for s in doc["scheds"]]
    assert configs == ["default", "minimal"], configs
    for s in doc["scheds"]:
        for name in doc["params"]["scenarios"]:
            assert s["results"][name]["metrics"], (s["config"], name, "no metrics")
    minimal = doc["scheds"][1]
    assert minimal["ops"].startswith("minimal"), minimal["ops"]
    assert any(r["overhead"]["bpf"] for r in minimal["results"].values()), "no BPF stats"
    return 1 if errs else 0


def check_resumed(first_path, resumed_path):
    first, resumed = bench.load_json(first_path), bench.load_json(resumed_path)
    assert not schema_errors(resumed), "resumed doc invalid"
    a = {s["config"]: s for s in first["scheds"]}
    b = {s["config"]: s for s in resumed["scheds"]}
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
    return 0


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "quick":
            return check_quick(argv[2])
        if len(argv) == 4 and argv[1] == "resumed":
            return check_resumed(argv[2], argv[3])
    except AssertionError as e:
        print("assertion failed: %s" % (e,), file=sys.stderr)
        return 1
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
