#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Host unit tests of bench/bench.py: statistics, --compare, schema, plan.

No VM: run with  python3 tests/bench/test_compare.py  (or via meson).
"""
import copy
import json
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench"))
import bench  # noqa: E402

SCHEMA = bench.load_json(bench.SCHEMA_FILE)
DEFS = bench.load_json(bench.SCENARIOS_FILE)


def summ(*values):
    return bench.summarize(list(values))


class Stats(unittest.TestCase):
    def test_median_odd_even(self):
        self.assertEqual(bench.median([3, 1, 2]), 2)
        self.assertEqual(bench.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(bench.median([7]), 7)
        with self.assertRaises(ValueError):
            bench.median([])

    def test_spread_is_relative_range(self):
        self.assertAlmostEqual(bench.spread([90, 100, 110]), 0.2)
        self.assertEqual(bench.spread([5]), 0.0)          # one run: unknown, 0
        self.assertEqual(bench.spread([3, 3, 3]), 0.0)
        self.assertEqual(bench.spread([0, 0]), 0.0)
        self.assertIsNone(bench.spread([-1, 0, 1]))       # zero median, non-zero range

    def test_summarize(self):
        s = summ(10, 30, 20)
        self.assertEqual((s["n"], s["median"], s["min"], s["max"]), (3, 20, 10, 30))
        self.assertAlmostEqual(s["spread"], 1.0)
        self.assertEqual(s["values"], [10, 30, 20])


class Compare(unittest.TestCase):
    def test_within_spread_is_same(self):
        base = summ(100, 110, 120)            # range 20, median 110
        new = summ(140, 145, 150)             # +35 worse, tolerance 20 + 5.5
        self.assertEqual(bench.compare_metric(base, new, "lower", 0)[0], "regression")
        new = summ(120, 125, 130)             # +15 worse: inside the range
        self.assertEqual(bench.compare_metric(base, new, "lower", 0)[0], "same")

    def test_larger_spread_of_either_side_counts(self):
        base = summ(100, 100, 100)            # no spread
        new = summ(100, 140, 180)             # range 80, +40 worse: noise
        verdict, worse, tol = bench.compare_metric(base, new, "lower", 0)
        self.assertEqual(verdict, "same")
        self.assertAlmostEqual(worse, 40)
        self.assertAlmostEqual(tol, 80 + 5)

    def test_floor_applies_without_spread(self):
        base, new = summ(100, 100), summ(104, 104)   # +4% < 5% floor
        self.assertEqual(bench.compare_metric(base, new, "lower", 0)[0], "same")
        new = summ(106, 106)
        self.assertEqual(bench.compare_metric(base, new, "lower", 0)[0], "regression")

    def test_abs_floor_for_counts_near_zero(self):
        base, new = summ(0, 0, 0), summ(1, 1, 2)     # one more missed frame
        self.assertEqual(bench.compare_metric(base, new, "lower", 2)[0], "same")
        self.assertEqual(bench.compare_metric(base, summ(5, 5, 5), "lower", 2)[0], "regression")

    def test_direction(self):
        base, new = summ(1000, 1000), summ(800, 800)
        self.assertEqual(bench.compare_metric(base, new, "higher", 0)[0], "regression")
        self.assertEqual(bench.compare_metric(base, new, "lower", 0)[0], "improvement")

    def test_compare_docs_only_common_entries(self):
        base = make_doc({"default": 100.0, "minimal": 100.0})
        new = make_doc({"default": 101.0, "minimal": 200.0, "brisk": 300.0})
        rows = bench.compare(base, new)
        got = {(r["sched"], r["metric"]): r["verdict"] for r in rows}
        self.assertEqual(got[("default", "probe_p99_us")], "same")
        self.assertEqual(got[("minimal", "probe_p99_us")], "regression")
        self.assertNotIn("brisk", {r["sched"] for r in rows})
        self.assertIn("REGRESSION", bench.format_compare(rows))


class Schema(unittest.TestCase):
    def test_valid_doc(self):
        self.assertEqual(bench.validate(make_doc({"default": 1.0, "x": 2.0}), SCHEMA), [])

    def test_rejects_missing_required(self):
        doc = make_doc({"default": 1.0})
        del doc["setup"]["vcpus"]
        errs = bench.validate(doc, SCHEMA)
        self.assertTrue(any("vcpus" in e for e in errs), errs)

    def test_rejects_wrong_types_and_enums(self):
        doc = make_doc({"default": 1.0})
        doc["setup"]["accel"] = "hvf"
        doc["params"]["runs"] = "5"
        summary = doc["scheds"][0]["results"]["probe-vs-burners"]["metrics"]["probe_p99_us"]
        summary["median"] = "fast"
        errs = bench.validate(doc, SCHEMA)
        self.assertEqual(len(errs), 3, errs)

    def test_rejects_unknown_top_level_and_nan(self):
        doc = make_doc({"default": 1.0})
        doc["surprise"] = 1
        self.assertTrue(bench.validate(doc, SCHEMA))
        doc = make_doc({"default": 1.0})
        doc["scheds"][0]["results"]["probe-vs-burners"]["metrics"]["probe_p99_us"]["max"] = \
            float("nan")
        self.assertTrue(bench.validate(doc, SCHEMA))

    def test_rejects_bool_as_number_and_empty_runs(self):
        doc = make_doc({"default": 1.0})
        doc["scheds"][0]["vm_wall_s"] = True
        self.assertTrue(bench.validate(doc, SCHEMA))
        doc = make_doc({"default": 1.0})
        doc["scheds"][0]["results"]["probe-vs-burners"]["runs"] = []
        self.assertTrue(bench.validate(doc, SCHEMA))

    def test_failures_entry(self):
        doc = make_doc({"default": 1.0})
        doc["failures"] = [{"config": "brisk", "error": "ejected"}]
        self.assertEqual(bench.validate(doc, SCHEMA), [])
        doc["failures"] = [{"config": "brisk"}]
        self.assertTrue(bench.validate(doc, SCHEMA))

    def test_every_scenario_file_is_valid(self):
        """scenarios.json plus scenarios.d/*.json, as the runner loads them,
        against the schema's scenario definition."""
        defs = bench.load_scenarios()
        doc = make_doc({"default": 1.0})
        doc["scenarios"] = defs["scenarios"]
        self.assertEqual(bench.validate(doc, SCHEMA), [])


class Plan(unittest.TestCase):
    def test_configs_default_first_once(self):
        c = bench.parse_sched_configs("minimal,default,brisk:-m performance,minimal")
        self.assertEqual([x["config"] for x in c], ["default", "minimal", "brisk:-m performance"])
        self.assertEqual(c[2]["binary"], "scx_brisk")
        self.assertEqual(c[2]["flags"], "-m performance")
        with self.assertRaises(bench.BenchError):
            bench.parse_sched_configs("../evil")

    def test_reqs_pulls_in_capacity_first(self):
        s = bench.select_scenarios(DEFS, "reqs-100,probe-vs-burners", False)
        self.assertLess(s.index("reqs-capacity"), s.index("reqs-100"))
        with self.assertRaises(bench.BenchError):
            bench.select_scenarios(DEFS, "nope", False)

    def test_guest_plan_quotes_and_expands(self):
        cfg = bench.parse_sched_configs("brisk:-m performance")[1]
        plan = bench.guest_plan(cfg, ["probe-vs-burners"], DEFS, 3, 2, False, 7, 1234.4)
        self.assertIn("BENCH_SCHED_CMD='scx_brisk -m performance'", plan)
        self.assertIn("BENCH_CAPACITY=1234", plan)
        self.assertIn("scxk-burn -n 4 -d 9", plan)       # bgdur = 7 + 2 * warmup
        self.assertIn("scxk-probe -d 7", plan)

    def guest_loop(self, plan):
        """The guest's own loop, run by sh with bench_run stubbed out."""
        import re
        import subprocess
        with open(os.path.join(TOP, "bench", "guest.sh")) as f:
            guest = f.read()
        funcs = "\n".join(re.findall(r"^(bench_(?:scenario|one)\(\) \{.*?^\})\n", guest,
                                   re.M | re.S))
        self.assertIn("bench_one()", funcs)
        script = plan + funcs + """

diag() { :; }
bench_run() { echo "$BENCH_SCHED|$2|$BENCH_SCHED_CMD"; }
bench_plan
"""
        out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True)
        return [tuple(l.split("|")) for l in out.stdout.splitlines()]

    def test_interleaved_plan_runs_abba(self):
        cfgs = bench.parse_sched_configs("minimal,brisk:-m performance")
        plan = bench.guest_plan(cfgs[0], ["probe-vs-burners"], DEFS, 3, 2, False, 7, None,
                                cfgs)
        self.assertIn("BENCH_NCFG=3", plan)
        got = self.guest_loop(plan)
        order = ["default", "minimal", "brisk:-m performance"]
        want = []
        for run in (1, 2, 3):
            for c in (order if run % 2 else order[::-1]):
                want.append((c, str(run), {"default": "", "minimal": "scx_minimal"}.get(
                    c, "scx_brisk -m performance")))
        self.assertEqual(got, want)
        # A boot after QEMU's trap skips the runs an earlier boot finished.
        done = [bench.done_key("probe-vs-burners", 1, c) for c in order] + \
            [bench.done_key("probe-vs-burners", 2, "brisk:-m performance")]
        plan = bench.guest_plan(cfgs[0], ["probe-vs-burners"], DEFS, 3, 2, False, 7, None,
                                cfgs, done)
        self.assertEqual(self.guest_loop(plan), want[4:])
        cfg = bench.parse_sched_configs("minimal")[1]
        plan = bench.guest_plan(cfg, ["probe-vs-burners"], DEFS, 3, 2, False, 7, None, None,
                                [bench.done_key("probe-vs-burners", 2, "minimal")])
        self.assertEqual([r[1] for r in self.guest_loop(plan)], ["1", "3"])

    def test_runs_file_round_trip_and_resume_filter(self):
        import tempfile
        cfgs = bench.parse_sched_configs("minimal")
        rec = lambda sched, scen, run: {"sched": sched, "scenario": scen, "run": run,
                                        "workloads": {"probe": {"results": {"p99": run}}}}
        recs = [rec("default", "probe-vs-burners", 1), rec("minimal", "probe-vs-burners", 1),
                rec("minimal", "probe-vs-burners", 1),        # twice: kept once
                rec("minimal", "probe-vs-burners", 4),        # beyond --runs 3
                rec("brisk", "probe-vs-burners", 1),          # config not planned
                rec("default", "hackbench", 2)]               # scenario not planned
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "runs.jsonl")
            bench.write_runs(path, recs)
            self.assertEqual(bench.read_runs(path), recs)
            kept, dropped = bench.resumable_runs(bench.read_runs(path), cfgs,
                                                 ["probe-vs-burners"], 3)
            self.assertEqual(kept, recs[:2])
            self.assertEqual(dropped, recs[2:])
            with open(path, "a") as f:
                f.write('{"sched": "default"}\n')
            with self.assertRaisesRegex(bench.BenchError, "runs.jsonl:7: not a run record"):
                bench.read_runs(path)
            with open(path, "w") as f:
                f.write("SCXK-BENCH {}\n")
            with self.assertRaisesRegex(bench.BenchError, "not JSON"):
                bench.read_runs(path)
            with self.assertRaisesRegex(bench.BenchError, "cannot read"):
                bench.read_runs(os.path.join(d, "missing.jsonl"))

    def test_bpf_deltas_struct_ops_only(self):
        before = [{"id": 1, "type": "struct_ops", "name": "a_enqueue", "run_cnt": 10,
                   "run_time_ns": 1000}]
        after = [{"id": 1, "type": "struct_ops", "name": "a_enqueue", "run_cnt": 30,
                  "run_time_ns": 5000},
                 {"id": 2, "type": "struct_ops", "name": "a_init", "run_cnt": 0,
                  "run_time_ns": 0},
                 {"id": 3, "type": "tracing", "name": "other", "run_cnt": 5, "run_time_ns": 5}]
        d = bench.bpf_deltas(before, after)
        self.assertEqual(d["a_enqueue"], {"run_cnt": 20, "run_time_ns": 4000, "avg_ns": 200.0})
        self.assertIsNone(d["a_init"]["avg_ns"])
        self.assertNotIn("other", d)


class Archives(unittest.TestCase):
    """The raw results kept in docs/benchmarks, one .tar.xz per run set."""

    def test_every_archive_loads_and_validates(self):
        import glob
        archives = sorted(glob.glob(os.path.join(TOP, "docs", "benchmarks", "*.tar.xz")))
        self.assertTrue(archives, "no run set archive in docs/benchmarks")
        for path in archives:
            doc = bench.load_json(path)
            self.assertEqual(bench.validate(doc, SCHEMA), [], path)
            self.assertIn("default", [s["config"] for s in doc["scheds"]], path)

    def test_archive_without_its_result(self):
        import io
        import tarfile
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "set.tar.xz")
            with tarfile.open(path, "w:xz") as tar:
                info = tarfile.TarInfo("other.json")
                info.size = 2
                tar.addfile(info, io.BytesIO(b"{}"))
            with self.assertRaisesRegex(bench.BenchError, "holds no set.json"):
                bench.load_json(path)
        self.assertEqual(bench.result_stem("a/b.tar.xz"), "a/b")
        self.assertEqual(bench.result_stem("a/b.json"), "a/b")


def make_doc(p99_by_sched):
    """A minimal valid result: one scenario, one metric, three runs."""
    sdef = copy.deepcopy(DEFS["scenarios"]["probe-vs-burners"])
    sdef["metrics"] = {"probe_p99_us": sdef["metrics"]["probe_p99_us"]}
    scheds = []
    for cfg, p99 in p99_by_sched.items():
        runs = [{"run": i + 1, "wall_s": 10.0, "ops": "", "rps_offered": None,
                 "metrics": {"probe_p99_us": p99 * f}, "histograms": {}, "bpf": {},
                 "user_cpu_ms": 0.0, "workloads": {"probe": {"results": {}}}}
                for i, f in enumerate((0.99, 1.0, 1.01))]
        res = dict(runs=runs, **bench.aggregate(runs, sdef))
        scheds.append({"config": cfg, "name": cfg, "flags": "", "command": None,
                       "ops": "", "vm_wall_s": 60.0, "results": {"probe-vs-burners": res}})
    return {
        "schema_version": 1, "tool": "scxkit-bench", "created": "2025-01-01T00:00:00+00:00",
        "command": ["bench/run"], "command_line": "bench/run",
        "setup": {"kernel": "7.3", "kernel_image": "/k", "vcpus": 2, "smp": "2", "numa": 1,
                  "mem": "2G", "accel": "tcg", "qemu": "QEMU 7", "host": {"cpus": 2, "cpu_model": "x"}},
        "params": {"runs": 3, "quick": False, "duration_override": None,
                   "scenarios": ["probe-vs-burners"], "spread": "relative_range",
                   "compare_floor_rel": 0.05},
        "scenarios": {"probe-vs-burners": sdef}, "reqs_capacity_rps": None, "scheds": scheds,
    }


GUEST = os.path.join(TOP, "bench", "guest.sh")
FIXTURES = os.path.join(TOP, "tests", "bench", "fixtures")


def guest_function(name):
    """The text of one shell function of bench/guest.sh."""
    import re
    with open(GUEST) as f:
        m = re.search(r"^(%s\(\) \{.*?^\})\n" % re.escape(name), f.read(), re.M | re.S)
    assert m, "no %s() in guest.sh" % name
    return m.group(1)


def awks():
    """The host's awk and grep, and busybox's (the guest's) when installed:
    the guest parses with busybox awk, which reads "000010" as octal unless
    the parser strips the zeros."""
    import shutil
    out = [[]]
    bb = shutil.which("busybox")
    if bb:
        out.append([bb])
    return out


class GuestParsers(unittest.TestCase):
    def to_json(self, fmt, path, prefix):
        import subprocess
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            if prefix:  # put busybox's awk and grep first in PATH
                os.symlink(prefix[0], os.path.join(d, "awk"))
                os.symlink(prefix[0], os.path.join(d, "grep"))
            env = dict(os.environ, PATH=d + os.pathsep + os.environ["PATH"])
            r = subprocess.run(["sh", "-c", guest_function("to_json") + '\nto_json "$@"',
                                "sh", fmt, path], capture_output=True, text=True, env=env)
        return r.returncode, r.stdout

    def test_cyclictest_histogram(self):
        """Two threads' columns summed (bucket 9 has a count in thread 1
        only: the empty-bucket filter must keep it), zero-padded numbers,
        overflows counted in the percentiles (p99.9 falls among them:
        reported as the max)."""
        want = {"workload": "cyclictest", "results": {
            "samples": 101, "overflows": 1,
            "latency": {"count": 101, "min_us": 3, "mean_us": 7.5, "p50_us": 5, "p90_us": 8,
                        "p99_us": 9, "p99_9_us": 250, "max_us": 250}}}
        for prefix in awks():
            rc, out = self.to_json("cyclictest", os.path.join(FIXTURES, "cyclictest-h10-t2.txt"),
                                   prefix)
            self.assertEqual(rc, 0, prefix)
            self.assertEqual(json.loads(out), want, prefix or "host awk")

    def test_cyclictest_without_summary_fails(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("cyclictest: invalid option -- 'n'\n")
            f.flush()
            for prefix in awks():
                rc, out = self.to_json("cyclictest", f.name, prefix)
                self.assertNotEqual(rc, 0)

    def test_stress_ng_rate(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write("stress-ng: metrc: [1] stressor       bogo ops real time  usr time  sys time"
                    "   bogo ops/s     bogo ops/s\n"
                    "stress-ng: metrc: [1]                           (secs)    (secs)    (secs)"
                    "   (real time) (usr+sys time)\n"
                    "stress-ng: metrc: [1] fork               4811      2.00      0.89      0.79"
                    "      2405.42        2867.42\n"
                    "stress-ng: metrc: [1] exec                 96      2.01      0.10      0.50"
                    "        47.76         160.00\n")
            f.flush()
            rc, out = self.to_json("stress-ng", f.name, [])
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["results"], {
            "fork_ops": 4811, "fork_ops_per_s": 2405.42, "exec_ops": 96, "exec_ops_per_s": 47.76})


class Matrix(unittest.TestCase):
    def test_templates_fill_vars_and_keep_placeholders(self):
        defs = {"templates": {"t": {"description": "period {p} on {name}", "duration_s": 8,
                                    "workloads": [{"cmd": "x -i {p} -n {cpus2} -d {dur}"}]}},
                "scenarios": {"c1": {"template": "t", "vars": {"p": 1000}, "duration_s": 3},
                              "plain": {"description": "as is {p}"}}}
        got = bench.expand_templates(copy.deepcopy(defs))["scenarios"]
        self.assertEqual(got["c1"], {"description": "period 1000 on c1", "duration_s": 3,
                                     "workloads": [{"cmd": "x -i 1000 -n {cpus2} -d {dur}"}]})
        self.assertEqual(got["plain"], {"description": "as is {p}"})
        defs["scenarios"]["c1"]["template"] = "nope"
        with self.assertRaises(bench.BenchError):
            bench.expand_templates(defs)

    def test_matrix_cells_are_complete(self):
        defs = bench.load_scenarios()
        cells = bench.select_scenarios(defs, None, False, matrix=True)
        self.assertEqual(sorted(cells), sorted(defs["matrix"]["scenarios"]))
        # A plain run keeps its old scenarios; the matrix's own cells need --matrix.
        plain = bench.select_scenarios(defs, None, False)
        self.assertIn("probe-vs-burners", plain)
        self.assertFalse([n for n in plain if n.startswith(("lat-", "pp-", "hb-", "forkexec"))])
        for name in cells:
            sdef = defs["scenarios"][name]
            self.assertNotIn("template", sdef)
            for w in sdef["workloads"] + sdef.get("quick_workloads", []):
                # Only expand_cmd's placeholders may be left.
                bench.expand_cmd(w["cmd"], 6, 1, 2)
            for m in sdef["metrics"].values():
                self.assertIn(m["from"], [w["label"] for w in sdef["workloads"]], name)
        self.assertEqual(bench.scenario_duration(defs["scenarios"]["lat-1ms-2n"], False, defs,
                                                 None, True), defs["matrix"]["duration_s"])
        self.assertEqual(bench.scenario_duration(defs["scenarios"]["lat-1ms-2n"], True, defs,
                                                 None, True), defs["matrix"]["quick_duration_s"])
        self.assertIn("4*cpus", defs["scenarios"]["lat-1ms-4n"]["description"])
        self.assertIn("-n 8 ", bench.expand_cmd(
            defs["scenarios"]["lat-1ms-4n"]["workloads"][0]["cmd"], 6, 1, 2))

    def matrix_loop(self, plan):
        """guest.sh's matrix loop with attach, detach and the run stubbed."""
        import subprocess
        funcs = "\n".join(guest_function(f) for f in
                          ("bench_matrix", "round_done", "bench_scenario", "bench_one"))
        script = plan + funcs + """

diag() { :; }
sched_attach() { echo "attach $BENCH_SCHED"; }
sched_detach() { echo "detach $BENCH_SCHED"; }
bench_run() { echo "run $BENCH_SCHED $1 $2 attached=$BENCH_ATTACHED"; }
bench_plan
"""
        out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True)
        return out.stdout.splitlines()

    def test_matrix_attaches_once_per_round_abba(self):
        defs = bench.load_scenarios()
        cfgs = bench.parse_sched_configs("brisk,scx_simple")
        scen = ["pp-pipe", "hb-pipe-g2"]
        plan = bench.guest_plan(cfgs[0], scen, defs, 2, 2, True, None, None, cfgs, (), True)
        got = self.matrix_loop(plan)
        want = []
        for rnd, order in ((1, ["default", "brisk", "scx_simple"]),
                           (2, ["scx_simple", "brisk", "default"])):
            for c in order:
                want += ["attach " + c] + ["run %s %s %d attached=1" % (c, s, rnd) for s in scen] \
                    + ["detach " + c]
        self.assertEqual(got, want)
        # A round an earlier boot finished is not attached again.
        done = [bench.done_key(s, 1, "brisk") for s in scen] + \
            [bench.done_key("pp-pipe", 2, "default")]
        plan = bench.guest_plan(cfgs[0], scen, defs, 2, 2, True, None, None, cfgs, done, True)
        got = self.matrix_loop(plan)
        self.assertNotIn("attach brisk", got[:8])
        self.assertEqual(got.count("attach brisk"), 1)
        self.assertIn("run default hb-pipe-g2 2 attached=1", got)
        self.assertNotIn("run default pp-pipe 2 attached=1", got)

    def test_scx_simple_is_external(self):
        cfg = bench.parse_sched_configs("scx_simple")[1]
        self.assertEqual(cfg["binary"], "scx_simple")
        self.assertTrue(os.access(os.path.join(TOP, cfg["external"]), os.X_OK))

    def test_bpf_ns_per_s(self):
        run = {"wall_s": 2.0, "bpf": {"a_enqueue": {"run_cnt": 10, "run_time_ns": 3000,
                                                    "avg_ns": 300.0},
                                      "a_dispatch": {"run_cnt": 0, "run_time_ns": 1000,
                                                     "avg_ns": None}}}
        self.assertEqual(bench.bpf_ns_per_s(run), 2000.0)
        sdef = {"metrics": {}}
        runs = [dict(run, run=1, metrics={}, histograms={}, user_cpu_ms=0.0)]
        o = bench.aggregate(runs, sdef)["overhead"]
        self.assertEqual(o["bpf_ns_per_s"]["median"], 2000.0)
        self.assertEqual(o["bpf"]["a_enqueue"]["calls_per_s"]["median"], 5.0)


if __name__ == "__main__":
    json.dumps(make_doc({"default": 1.0}))  # the fixture itself must be JSON
    unittest.main(verbosity=2)
