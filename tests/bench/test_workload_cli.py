#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The command lines of the bench workloads (bench/workloads/scxk-*).

    python3 tests/bench/test_workload_cli.py BUILDDIR/bench/workloads

SPEC below is the contract bench/run and the VM scenarios rely on: each
option's name, short form, type, range and default. It is written here,
not read from the binaries, so that a table that drifts (a widened
range, a renamed option) fails. Checked against the binaries: their
--help-options and --help, then the parser itself (each range's ends
accepted, one step past them refused with exit 2 and one line naming the
option), the defaults as a short run reports them, and every invocation
of a workload in bench/ (scenarios, expanded as bench/run does) and in
the VM scenarios, run for 0.05 s. Host only: scxk-shares, which needs
cgroup2 and root, is never run for real (it is pointed at an empty
--cgroup-root, so a parsed command line ends with its exit 1).
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench"))
import bench  # noqa: E402

WLDIR = None  # set from argv
ONLINE = os.sysconf("SC_NPROCESSORS_ONLN")
QUICK = "0.05"  # seconds: long enough to start every thread and print the JSON

# Kinds of value, and what each must accept and refuse besides its range:
#   u64 MIN MAX, double MIN MAX: the engine's types (--help-options shows the range);
#   seconds MAX: 0 < SEC <= MAX at ns resolution (CUSTOM), as wl_parse_duration was;
#   choice VALUES, nice (burn's list), string.
DURATION = ("seconds", "d", 86400, "10")
SPEC = {
    "burn": {
        "count": ("u64", "n", 1, 4096, "online CPUs"),
        "nice": ("nice", None, None, None, "0"),
        "run-ms": ("u64", None, 1, 10000, "5"),
        "sleep-ms": ("u64", None, 0, 10000, "0"),
        "duration": DURATION,
    },
    "frames": {
        "fps": ("seconds", "f", 10000, "60"),  # the same rule: 0 < N <= 10000
        "chain": ("u64", "c", 1, 1024, "4"),
        "burst-us": ("u64", "b", 0, 1000000, "500"),
        "duration": DURATION,
    },
    "reqs": {
        "msg-threads": ("u64", "m", 1, 1024, "2"),
        "workers": ("u64", "w", 1, 1024, "4"),
        "work-us": ("u64", None, 0, 1000000, "200"),
        "rps": ("double", "r", 0, 10000000, "0"),
        "duration": DURATION,
    },
    "pingpong": {
        "mode": ("choice", "m", ["pipe", "unix", "tcp"], None, "pipe"),
        "size": ("u64", "s", 1, 65536, "1"),
        "duration": DURATION,
    },
    "probe": {
        "threads": ("u64", "t", 1, 4096, "4"),
        "sleep-min-us": ("u64", None, 0, 3600000000, "500"),
        "sleep-max-us": ("u64", None, 0, 3600000000, "5000"),
        "work-us": ("u64", None, 0, 3600000000, "100"),
        "duration": DURATION,
    },
    "shares": {
        "count": ("u64", "n", 1, 1024, "online CPUs"),
        "warm": ("double", None, 0, 3600, "2"),
        "window": ("seconds", "d", 86400, "5"),
        "duration": ("seconds", None, 86400, None),  # an alias of --window
        "cgroup-root": ("string", None, None, None, "/sys/fs/cgroup"),
    },
}
# What a short run with no option but -d reports in "params" (shares never runs).
DEFAULT_PARAMS = {
    "burn": {"count": ONLINE, "nice": "0", "run_ms": 5, "sleep_ms": 0},
    "frames": {"fps": 60, "chain": 4, "burst_us": 500},
    "reqs": {"msg_threads": 2, "workers": 4, "work_us": 200, "rps": 0, "mode": "closed"},
    "pingpong": {"mode": "pipe", "size": 1},
    "probe": {"threads": 4, "sleep_min_us": 500, "sleep_max_us": 5000, "work_us": 100},
}
ADDED = {"help": ("flag", "h"), "version": ("flag", "V"), "help-options": ("flag", None)}


def kind(spec):
    return spec[0]


def short(spec):
    return spec[1]


def accepted(spec):
    """Values the option must take."""
    k = kind(spec)
    if k == "u64":
        return [str(spec[2]), str(spec[3]), str((spec[2] + spec[3]) // 2)]
    if k == "double":
        return [str(spec[2]), str(spec[3]), "%g" % ((spec[2] + spec[3]) / 2.0), "0.5"]
    if k == "seconds":
        return ["1e-9", "0.5", str(spec[2])]
    if k == "choice":
        return list(spec[2])
    if k == "nice":
        return ["-20", "19", "0,0,5,10", "-5,0,0,5,10"]
    return ["/some/dir"]


def refused(spec):
    """Values the option must refuse."""
    k = kind(spec)
    if k == "u64":
        bad = [str(spec[3] + 1), "abc", "-1", "1.5", "", "+1"]
        return bad + ([str(spec[2] - 1)] if spec[2] > 0 else [])
    if k == "double":
        return [str(spec[3]) + ".5", "-1", "nan", "inf", "abc", ""]
    if k == "seconds":
        return ["0", "1e-10", "%s.001" % spec[2], "-1", "nan", "inf", "abc", ""]
    if k == "choice":
        return ["bogus", ""]
    if k == "nice":
        return ["20", "-21", "0,,1", "", "a", "1,"]
    return [""]


def run(wl, args, timeout=30):
    return subprocess.run([os.path.join(WLDIR, "scxk-" + wl)] + list(args),
                          capture_output=True, text=True, timeout=timeout)


class Workload(unittest.TestCase):
    def assert_usage_error(self, wl, args, names):
        """Exit 2, nothing on stdout, one line naming @names and the hint."""
        r = run(wl, args)
        what = "scxk-%s %s" % (wl, shlex.join(args))
        self.assertEqual(r.returncode, 2, "%s: exit %d, stderr %r" % (what, r.returncode, r.stderr))
        self.assertEqual(r.stdout, "", what)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 2, "%s: stderr %r" % (what, r.stderr))
        self.assertTrue(lines[0].startswith("scxk-%s: " % wl), "%s: %r" % (what, lines[0]))
        self.assertIn(names, lines[0], what)
        self.assertEqual(lines[1], "try 'scxk-%s --help'" % wl, what)

    def test_help_options_match_the_spec(self):
        """The table the binary parses with is the one in SPEC (no more, no less)."""
        for wl, opts in SPEC.items():
            with self.subTest(wl=wl):
                r = run(wl, ["--help-options"])
                self.assertEqual(r.returncode, 0)
                got = {}
                for line in r.stdout.splitlines():
                    name, typ, sh, _metavar, lo, hi, _choices = line.split(" ")
                    got[name] = (typ, sh, lo, hi)
                self.assertEqual(set(got), set(opts) | set(ADDED), wl)
                for name, spec in opts.items():
                    typ, sh, lo, hi = got[name]
                    want_type = {"seconds": "custom", "nice": "custom"}.get(kind(spec), kind(spec))
                    self.assertEqual(typ, want_type, "%s --%s" % (wl, name))
                    self.assertEqual(sh, short(spec) or "-", "%s --%s" % (wl, name))
                    if kind(spec) in ("u64", "double"):
                        self.assertEqual((lo, hi), (str(spec[2]), str(spec[3])),
                                         "%s --%s range" % (wl, name))
                for name, (typ, sh) in ADDED.items():
                    self.assertEqual(got[name][:2], (typ, sh or "-"), "%s --%s" % (wl, name))

    def test_help_and_version(self):
        for wl, opts in SPEC.items():
            with self.subTest(wl=wl):
                r = run(wl, ["--help"])
                self.assertEqual(r.returncode, 0)
                self.assertEqual(r.stderr, "")
                self.assertTrue(r.stdout.startswith("Usage: scxk-%s [OPTIONS]\n" % wl))
                self.assertIn("Exit status: 0 success, 1 failure, 2 usage error.", r.stdout)
                self.assertNotIn("--partial", r.stdout)
                lines = r.stdout.splitlines()
                for name, spec in opts.items():
                    left = ("-%s, --%s" % (short(spec), name)) if short(spec) else "--" + name
                    line = [x for x in lines if re.match(r"\s+%s[= ]" % re.escape(left), x)]
                    self.assertEqual(len(line), 1, "%s: no help line for %s" % (wl, left))
                    if spec[-1] is not None:
                        self.assertIn("(default: %s)" % spec[-1], line[0], wl)
                self.assertEqual(run(wl, ["-h"]).stdout, r.stdout)
                v = run(wl, ["--version"])
                self.assertEqual(v.returncode, 0)
                self.assertRegex(v.stdout, r"^scxk-%s \d+\.\d+\.\d+\n$" % wl)

    def test_values_in_range_parse(self):
        """A value the parser takes lets it reach --help (exit 0); a bad one stops it first."""
        for wl, opts in SPEC.items():
            for name, spec in opts.items():
                forms = ["--" + name] + (["-" + short(spec)] if short(spec) else [])
                for value in accepted(spec):
                    for form in forms:
                        with self.subTest(wl=wl, opt=form, value=value):
                            r = run(wl, [form, value, "--help"])
                            self.assertEqual(r.returncode, 0, r.stderr)
                            self.assertTrue(r.stdout.startswith("Usage:"))
                with self.subTest(wl=wl, opt=name, form="--opt=value"):
                    self.assertEqual(run(wl, ["--%s=%s" % (name, accepted(spec)[0]),
                                              "--help"]).returncode, 0)

    def test_bad_values_exit_2_naming_the_option(self):
        for wl, opts in SPEC.items():
            for name, spec in opts.items():
                forms = ["--" + name] + (["-" + short(spec)] if short(spec) else [])
                for value in refused(spec):
                    for form in forms:
                        with self.subTest(wl=wl, opt=form, value=value):
                            # --help after it: a bad value must stop the parser before
                            self.assert_usage_error(wl, [form, value, "--help"], "--" + name)
                with self.subTest(wl=wl, opt=name, missing=True):
                    if kind(spec) != "flag":
                        self.assert_usage_error(wl, ["--" + name], "--" + name)

    def test_unknown_options_and_stray_arguments(self):
        for wl in SPEC:
            with self.subTest(wl=wl):
                self.assert_usage_error(wl, ["--bogus"], "'--bogus'")
                self.assert_usage_error(wl, ["-x"], "'-x'")
                self.assert_usage_error(wl, ["--bogus", "--help"], "'--bogus'")
                self.assert_usage_error(wl, ["stray"], "'stray'")
                self.assert_usage_error(wl, ["-d", QUICK, "stray"], "'stray'")
                # the scheduler options are not the workloads'
                self.assert_usage_error(wl, ["--partial"], "'--partial'")
                self.assert_usage_error(wl, ["-v"], "'-v'")

    def test_probe_sleep_range_checked_after_parsing(self):
        self.assert_usage_error("probe", ["--sleep-min-us", "10", "--sleep-max-us", "5",
                                          "-d", QUICK], "--sleep-min-us")

    def test_defaults_and_values_as_reported(self):
        """What a run reports as its params: the defaults, or the values given."""
        for wl, want in DEFAULT_PARAMS.items():
            with self.subTest(wl=wl):
                doc = self.run_json(wl, ["-d", QUICK])
                self.assertEqual(doc["params"]["duration_s"], float(QUICK))
                for key, value in want.items():
                    self.assertEqual(doc["params"][key], value, "%s %s" % (wl, key))
        given = {
            "burn": (["-n", "3", "--nice", "0,5", "--run-ms", "2", "--sleep-ms", "1"],
                     {"count": 3, "nice": "0,5", "run_ms": 2, "sleep_ms": 1}),
            "frames": (["-f", "200", "-c", "2", "-b", "50"],
                       {"fps": 200, "chain": 2, "burst_us": 50}),
            "reqs": (["-m", "1", "-w", "2", "--work-us", "10", "-r", "500"],
                     {"msg_threads": 1, "workers": 2, "work_us": 10, "rps": 500, "mode": "open"}),
            "pingpong": (["-m", "unix", "-s", "64"], {"mode": "unix", "size": 64}),
            "probe": (["-t", "2", "--sleep-min-us", "100", "--sleep-max-us", "200",
                       "--work-us", "5"],
                      {"threads": 2, "sleep_min_us": 100, "sleep_max_us": 200, "work_us": 5}),
        }
        for wl, (args, want) in given.items():
            with self.subTest(wl=wl, args=args):
                doc = self.run_json(wl, args + ["--duration", QUICK])
                for key, value in want.items():
                    self.assertEqual(doc["params"][key], value, "%s %s" % (wl, key))

    def run_json(self, wl, args):
        r = run(wl, args)
        self.assertEqual(r.returncode, 0, "scxk-%s %s: %s" % (wl, " ".join(args), r.stderr))
        doc = json.loads(r.stdout)
        self.assertEqual(doc["workload"], wl)
        return doc


# ---- every invocation of a workload in bench/ and the VM scenarios ----------

WL_RE = re.compile(r"(?:^|(?<=[\s;&|(]))scxk-(%s)(?=\s|$)" % "|".join(SPEC))


def shell_words(text):
    """Shell expansions ($((..)), $(..), $VAR) as "2": a count or a rate."""
    prev = None
    while prev != text:
        prev = text
        text = re.sub(r"\$\(\([^()]*\)\)", "2", text)
        text = re.sub(r"\$\([^()]*\)", "2", text)
    return re.sub(r"\$\{?\w+\}?", "2", text)


def invocations(text):
    """(workload, args) of every scxk-NAME command in one line of shell."""
    text = shell_words(text)
    out = []
    for m in WL_RE.finditer(text):
        rest = re.split(r"[&|;<>)\n]|\d>", text[m.end():], maxsplit=1)[0]
        out.append((m.group(1), shlex.split(rest)))
    return out


def bench_invocations():
    defs = bench.load_scenarios()
    found = []
    for name, sdef in defs["scenarios"].items():
        for key in ("workloads", "quick_workloads"):
            for w in sdef.get(key, []):
                cmd = bench.expand_cmd(w["cmd"], float(QUICK), 0, 2)
                found += [(name, wl, args) for wl, args in invocations(cmd)]
    return found


def script_invocations():
    found = []
    scripts = sorted(glob.glob(os.path.join(TOP, "tests", "vm", "scenarios", "*.sh")) +
                     glob.glob(os.path.join(TOP, "scheds", "*", "tests", "*.sh")))
    for path in scripts:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.lstrip().startswith("#"):
                    continue
                where = "%s:%d" % (os.path.relpath(path, TOP), n)
                found += [(where, wl, args) for wl, args in invocations(line)]
    return found


class Invocations(unittest.TestCase):
    def test_extraction(self):
        """The extraction itself: shell arithmetic, redirections, prefixes."""
        self.assertEqual(invocations("taskset -c 0 scxk-burn -n $((2 * $(nproc))) -d 5 "
                                     ">/dev/null 2>&1 &"),
                         [("burn", ["-n", "2", "-d", "5"])])
        self.assertEqual(invocations("scxk-reqs -r $RPS -d 3"), [("reqs", ["-r", "2", "-d", "3"])])
        self.assertEqual(invocations("grep 'comm=scxk-burn' x; ninja bench/workloads/scxk-probe"),
                         [])

    def test_every_invocation_parses(self):
        found = bench_invocations()
        self.assertGreaterEqual(len(found), 15, "bench/ scenarios: too few workload commands")
        scripts = script_invocations()
        self.assertGreaterEqual(len(scripts), 15, "VM scenarios: too few workload commands")
        seen = set()
        with tempfile.TemporaryDirectory() as empty:
            for where, wl, args in found + scripts:
                args = list(args)
                for i, a in enumerate(args[:-1]):
                    if a in ("-d", "--duration", "--window"):
                        args[i + 1] = QUICK
                key = (wl, tuple(args))
                if key in seen:
                    continue
                seen.add(key)
                with self.subTest(where=where, cmd="scxk-%s %s" % (wl, " ".join(args))):
                    if wl == "shares":
                        # parsed, then it finds no cgroup2 there: exit 1, never 2
                        r = run(wl, args + ["--cgroup-root", empty])
                        self.assertEqual(r.returncode, 1, r.stderr)
                        self.assertIn("no cgroup2 with the cpu controller", r.stderr)
                        continue
                    r = run(wl, args)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    self.assertEqual(json.loads(r.stdout)["workload"], wl)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: test_workload_cli.py BUILDDIR/bench/workloads")
    WLDIR = sys.argv.pop(1)
    unittest.main(verbosity=2)
