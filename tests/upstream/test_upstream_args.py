#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Upstream command lines against every scheduler's parser (issue 26, part 3).

usage: test_upstream_args.py SOURCE_ROOT BUILD_DIR

For each scheduler the test holds upstream's options as this project read
them from the upstream scheduler's clap definitions (scx_bpfland, scx_lavd,
scx_rusty, scx_layered, scx_rustland, the kernel's scx_simple), and
scx_loader's mode profiles for bpfland and lavd, written out here. Each is
parsed with --check-args (parse only: nothing is loaded, nothing attached)
and must exit 0; an option the scheduler's --help-upstream table calls
ignored must print exactly one notice naming it, any other none, and the
value it maps to must show in --check-args' name=value listing. The
README's table must be --help-upstream's output, every upstream option
must have its row, and bad values still exit 2. TAP output.
"""
import subprocess
import sys

# "SHORT/LONG=VALUE": either part may be missing; VALUE only for options
# that take one. The common options (stats, monitor, verbose, libbpf, ...)
# are in COMMON below, for the schedulers whose upstream has them.
UPSTREAM = {
    "brisk": ["/exit-dump-len=0", "s/slice-us=1000", "L/slice-min-us=0", "l/slice-us-lag=40000",
              "t/throttle-us=0", "I/idle-resume-us=-1", "p/local-pcpu", "k/local-kthreads",
              "w/no-wake-sync", "S/sticky-tasks", "m/primary-domain=auto", "P/preferred-idle-scan",
              "/disable-smt", "/disable-numa", "f/cpufreq", "T/timely", "/timely-tlow-us=5000",
              "/timely-thigh-us=50000", "/timely-gain-min=128", "/timely-gain-step=32",
              "/timely-hai-thresh=768", "/timely-hai-multiplier=2", "/timely-backoff-low=768",
              "/timely-backoff-high=960", "/timely-backoff-gradient=992",
              "/timely-gradient-margin-us=125", "/timely-control-interval-us=500", "d/debug",
              "v/verbose", "/stats=1", "/monitor=1", "/help-stats"],
    "cadence": ["v/verbose", "/autopilot", "/autopower", "/performance", "/powersave", "/balanced",
                "/slice-max-us=5000", "/slice-min-us=500", "/lat-load-target-pct=100",
                "/mig-delta-pct=0", "/warm-cpu-us=0", "/lb-low-util-pct=25",
                "/lb-local-dsq-util-pct=10", "/pinned-slice-us=5000", "/preempt-shift=6",
                "/cpu-pref-order=0-3", "/no-use-em", "/no-futex-boost", "/no-fast-lb",
                "/no-preemption", "/no-wake-sync", "/no-slice-boost", "/per-cpu-dsq",
                "/enable-cpu-bw", "/partial", "/no-core-compaction", "/no-freq-scaling",
                "/stats=1", "/monitor=1", "/monitor-sched-samples=10", "/log-level=info",
                "/run-id=7", "/help-stats", "/virt-llc", "/virt-llc=2-8"],
    "balance": ["u/slice-us-underutil=20000", "o/slice-us-overutil=1000", "i/interval=2.0",
                "I/tune-interval=0.1", "l/load-half-life=1.0", "c/cache-level=3", "C/cpumasks=0",
                "g/greedy-threshold=1", "/greedy-threshold-x-numa=0", "/no-load-balance",
                "k/kthreads-local", "b/balanced-kworkers", "f/fifo-sched",
                "D/direct-greedy-under=90.0", "K/kick-greedy-under=100.0", "r/direct-greedy-numa",
                "p/partial", "/mempolicy-affinity", "/stats=1", "/monitor=1", "/exit-dump-len=0",
                "v/verbose", "/help-stats", "/perf=0"],
    "strata": ["v/verbose", "s/slice-us=20000", "M/max-exec-us=0", "i/interval=0.1",
               "n/no-load-frac-limit", "/exit-dump-len=0", "/log-level=info", "t/disable-topology",
               "/disable-topology=true", "/monitor-disable", "/layer-preempt-weight-disable=0.0",
               "/layer-growth-weight-disable=0.0", "/stats=1", "/monitor=1",
               "/stats-columns=95", "/stats-no-llc", "/run-example", "/allow-partial-core",
               "/local-llc-iteration", "/lo-fb-wait-us=10000", "/lo-fb-share=.05",
               "/disable-antistall", "/enable-gpu-affinitize", "/gpu-affinitize-secs=900",
               "/enable-match-debug", "/antistall-sec=3", "/enable-gpu-support",
               "/gpu-kprobe-level=3", "/util-compensation", "/netdev-irq-balance",
               "/disable-queued-wakeup", "/disable-percpu-kthread-preempt",
               "/percpu-kthread-preempt-all", "/run-id=7", "/help-stats",
               "/layer-refresh-ms-avgruntime=2000", "/task-hint-map=/tmp/map",
               "/hi-fb-thread-name=irq", "/virt-llc=2-8"],
    "relay": ["s/slice-us=20000", "S/slice-us-min=1000", "l/percpu-local", "n/numa-local",
              "p/partial", "/exit-dump-len=0", "v/verbose", "/stats=1", "/monitor=1",
              "/help-stats"],
    "minimal": ["f", "v"],
}
# upstream's libbpf options (scx_utils), in every Rust counterpart
LIBBPF = ["/relaxed-maps=true", "/pin-root-path=/sys/fs/bpf", "/kconfig=CONFIG_HZ=1000",
          "/btf-custom-path=/sys/kernel/btf/vmlinux", "/bpf-token-path=/sys/fs/bpf"]
# What the common options become: name=value in --check-args' listing.
COMMON = {
    "exit-dump-len": {"0": "32768"}, "stats": None, "monitor": None, "help-stats": None,
    "verbose": {None: "1", "": "1", "info": "0", "debug": "1"}, "run-id": None,
    "relaxed-maps": None, "pin-root-path": None, "kconfig": None, "btf-custom-path": None,
    "bpf-token-path": None, "partial": "true",
}
# Upstream values whose meaning differs from their text here.
MAPPED = {("brisk", "idle-resume-us", "-1"): "off", ("brisk", "slice-min-us", "0"): "10",
          ("brisk", "primary-domain", "none"): "all", ("balance", "cpumasks", "0"): "0"}
# scx_loader's mode profiles (auto, gaming, lowlatency, powersave, server)
PROFILES = {
    "brisk": [["-m", "auto"], ["-m", "all"], ["-m", "performance", "-w"],
              ["-s", "20000", "-m", "powersave", "-I", "100", "-t", "100"],
              ["-s", "20000", "-S"]],
    "cadence": [["--autopilot", "--pinned-slice-us", "500"],
                ["--performance", "--pinned-slice-us", "500"],
                ["--powersave", "--pinned-slice-us", "500"],
                ["--performance", "--slice-min-us", "3000", "--slice-max-us", "10000",
                 "--pinned-slice-us", "3000"]],
}
# The spellings issue 26 names, with what they must become.
NAMED = [
    ("brisk", ["--exit-dump-len", "0"], {"exit-dump-len": "32768"}),
    ("brisk", ["-I", "-1"], {"idle-resume-us": "off"}),
    ("brisk", ["-L", "0"], {"slice-min-us": "10"}),
    ("brisk", ["-m", "none"], {"primary-domain": "all"}),
    ("balance", ["-p"], {"partial": "true"}),
    ("relay", ["-p"], {"partial": "true"}),
    ("balance", ["-C", "0", "1-3"], {"cpumasks": "0 1-3"}),
    ("balance", ["-C", "0", "1", "-C", "2-3", "-f"], {"cpumasks": "0 1 2-3", "fifo-sched": "true"}),
    ("relay", ["-n", "-s", "5000"], {"slice-us": "5000"}),
    ("cadence", ["--log-level", "info,scx_lavd=debug"], {"verbose": "1"}),
    ("cadence", ["--run-id", "42"], {"run-id": "42"}),
    ("strata", ["--relaxed-maps", "true", "--kconfig", "CONFIG_X=y"],
     {"relaxed-maps": "true", "kconfig": "CONFIG_X=y"}),
    ("strata", ["--relaxed-maps", "false"], {"relaxed-maps": "false"}),
    ("strata", ["-t", "--disable-topology=false"], {"disable-topology": "false"}),
]
# Bad values must still be refused: exit 2, one line naming the option.
BAD = [
    ("brisk", ["-I", "-2"], "idle-resume-us"), ("brisk", ["-L", "5"], "slice-min-us"),
    ("brisk", ["-m", "nowhere"], "primary-domain"), ("brisk", ["--timely-tlow-us", "x"], "timely"),
    ("cadence", ["--pinned-slice-us", "-5"], "pinned-slice-us"),
    ("cadence", ["--mig-delta-pct", "101"], "mig-delta-pct"),
    ("cadence", ["--virt-llc=3-1"], "virt-llc"), ("balance", ["-C"], "-C"),
    ("balance", ["-C", "0", "zz"], "cpumasks"), ("strata", ["--disable-topology=1"], "disable-topology"),
    ("strata", ["--relaxed-maps=yes"], "relaxed-maps"), ("relay", ["-n=1"], "-n"),
    ("cadence", ["--exit-dump-len", "-1"], "exit-dump-len"),
]

n = 0
failed = 0


def result(ok, desc, detail=""):
    global n, failed
    n += 1
    print(("ok %d - %s" if ok else "not ok %d - %s") % (n, desc))
    if not ok:
        failed += 1
        for line in detail.splitlines()[:8]:
            print("#   " + line)


def run(name, args):
    p = subprocess.run([BUILD + "/scx_" + name] + args, capture_output=True, text=True,
                       timeout=30, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def same(got, want):
    """equal as text, or as numbers (upstream writes 2.0 where this prints 2)"""
    try:
        return got == want or float(got) == float(want)
    except (TypeError, ValueError):
        return False


def values(out):
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def table(name):
    """--help-upstream: {spelling: (target long name or None, ignored)}"""
    rc, out, err = run(name, ["--help-upstream"])
    assert rc == 0, err
    rows = {}
    for line in out.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        ups = [s.strip("` ") for s in cells[0].split(",")]
        if "(common options)" in cells[1]:
            continue
        ignored = cells[1].startswith("accepted, ignored")
        target = None
        if not ignored:
            target = [s.strip("`") for s in cells[1].split(";")[0].split(", ")][-1][2:]
        for u in ups:
            rows[u] = (target, ignored)
    return out, rows


def invocations(spec):
    """every spelling of one upstream option, as argument lists"""
    names, _, value = spec.partition("=")
    short, _, long_ = names.partition("/") if "/" in names else (names, "", "")
    out = []
    for sp in (["-" + short] if short else []) + (["--" + long_] if long_ else []):
        out.append((sp, [sp] + ([value] if value else []), value))
    return out


def check_sched(name, specs):
    out, rows = table(name)
    with open("%s/scheds/%s/README.md" % (SRC, name)) as f:
        readme = f.read()
    result(out in readme, "%s: README holds --help-upstream's table" % name,
           "run 'scx_%s --help-upstream' and paste it into the README" % name)
    for spec in specs:
        for spelling, args, value in invocations(spec):
            long_name = spec.partition("=")[0].partition("/")[2] or None
            rc, sout, serr = run(name, ["--check-args"] + args)
            desc = "%s: upstream '%s' parses" % (name, " ".join(args))
            if rc != 0:
                result(False, desc, "exit %d\n%s" % (rc, serr))
                continue
            common = long_name in COMMON or long_name == "log-level" or spelling == "-v"
            if not common and spelling not in rows:
                result(False, desc, "%s has no row in --help-upstream" % spelling)
                continue
            if common:
                key = "verbose" if spelling in ("-v", "--verbose", "--log-level") else long_name
                want = COMMON[key]
                if isinstance(want, dict):
                    want = want.get(value)
                elif want is None and value:
                    want = value
                got = values(sout).get(key)
                ok = serr == "" and (want is None or got == want)
                result(ok, desc + (" as %s=%s" % (key, want) if want else ""),
                       "got %s=%s, stderr %r" % (key, got, serr))
                continue
            target, ignored = rows[spelling]
            if ignored:
                lines = serr.splitlines()
                ok = len(lines) == 1 and ("upstream's --" in lines[0] and "ignored" in lines[0])
                result(ok, desc + " with one notice", "stderr: %r" % serr)
                continue
            want = MAPPED.get((name, target, value), value or "true")
            got = values(sout).get(target)
            result(serr == "" and same(got, want), desc + " as %s=%s" % (target, want),
                   "got %s=%s, stderr %r" % (target, got, serr))


def main():
    global SRC, BUILD
    SRC, BUILD = sys.argv[1], sys.argv[2]
    for name, specs in UPSTREAM.items():
        check_sched(name, specs + (LIBBPF if name != "minimal" else []))
    for name, profiles in PROFILES.items():
        for args in profiles:
            rc, out, err = run(name, ["--check-args"] + args)
            notices = [line for line in err.splitlines() if "note:" in line]
            result(rc == 0 and len(notices) == len(err.splitlines()),
                   "%s: scx_loader profile '%s' parses" % (name, " ".join(args)),
                   "exit %d\n%s" % (rc, err))
    for name, args, want in NAMED:
        rc, out, err = run(name, ["--check-args"] + args)
        got = values(out)
        bad = {k: got.get(k) for k, v in want.items() if got.get(k) != v}
        result(rc == 0 and not bad, "%s '%s' gives %s" % (name, " ".join(args), want),
               "exit %d, got %s\n%s" % (rc, bad, err))
    for name, args, what in BAD:
        rc, out, err = run(name, ["--check-args"] + args)
        ok = rc == 2 and what in err and out == ""
        result(ok, "%s '%s' is refused (exit 2, names %s)" % (name, " ".join(args), what),
               "exit %d\n%s%s" % (rc, out, err))
    print("1..%d" % n)
    if failed:
        print("# %d of %d checks failed" % (failed, n))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
