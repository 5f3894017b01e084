# SPDX-License-Identifier: GPL-2.0-only
"""Core of the scxkit benchmark runner (no VM, no I/O beyond files).

bench/run drives the VM and uses this module to build the plan, turn the
guest's SCXK-BENCH lines into the result document, validate it and compare
it with a baseline; bench/report and tests/bench/test_compare.py import it
too.  docs/benchmarking.md describes the result format and the rules.
"""
import json
import math
import os
import re
import shlex
import tarfile

SCHEMA_VERSION = 1
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS_FILE = os.path.join(HERE, "scenarios.json")
SCHEMA_FILE = os.path.join(HERE, "schema.json")

# --compare tolerates a change up to the larger run-to-run range of the two
# documents plus this fraction of the baseline median (see compare()).
FLOOR_REL = 0.05
# Scenarios whose offered load is a percentage of the closed-loop capacity.
CAPACITY_SCENARIO = "reqs-capacity"
PERCENTILES = ["p50_us", "p90_us", "p99_us", "p99_9_us"]


class BenchError(Exception):
    """A failure the runner reports as one clear message and exit 1."""


# ---- statistics ------------------------------------------------------------

def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return v[mid] if n % 2 else (v[mid - 1] + v[mid]) / 2


def spread(values):
    """Relative range (max - min) / |median|.

    With 2-5 runs an IQR is mostly interpolation, while the range is exact
    and conservative (it never hides an outlier run).  One run gives 0 (no
    spread is known); a zero median with a non-zero range has no relative
    spread and gives None.
    """
    if len(values) < 2:
        return 0.0
    rng = max(values) - min(values)
    med = median(values)
    if rng == 0:
        return 0.0
    return rng / abs(med) if med != 0 else None


def summarize(values):
    return {
        "values": list(values),
        "n": len(values),
        "median": median(values),
        "min": min(values),
        "max": max(values),
        "spread": spread(values),
    }


# ---- scenarios and scheduler configs ----------------------------------------

ARCHIVE_SUFFIX = ".tar.xz"


def result_stem(path):
    """RESULT.json or RESULT.tar.xz -> RESULT (the name of the run set)."""
    for suffix in (ARCHIVE_SUFFIX, ".json"):
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return os.path.splitext(path)[0]


def load_json(path):
    """A JSON document, or the result inside a run set's archive.

    Raw results are kept compressed, one archive per run set
    (docs/benchmarks/NAME.tar.xz): its member NAME.json is the bench/run
    result; other members (runs.jsonl of a partial configuration, ...) sit
    beside it and are read after "tar -xJf".
    """
    if not path.endswith(ARCHIVE_SUFFIX):
        with open(path) as f:
            return json.load(f)
    want = os.path.basename(result_stem(path)) + ".json"
    with tarfile.open(path, "r:xz") as tar:
        try:
            member = tar.getmember(want)
        except KeyError:
            raise BenchError("%s holds no %s (members: %s)"
                             % (path, want, ", ".join(tar.getnames())))
        return json.load(tar.extractfile(member))


def _fill(obj, values):
    """@obj with every "{name}" of @values replaced in its strings; other
    placeholders ({dur}, {cpus}, ...) are left for expand_cmd()."""
    if isinstance(obj, str):
        return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), obj)
    if isinstance(obj, list):
        return [_fill(x, values) for x in obj]
    if isinstance(obj, dict):
        return {k: _fill(v, values) for k, v in obj.items()}
    return obj


def expand_templates(defs):
    """Scenarios with "template": NAME are the template of that name (from
    the top-level "templates") with their "vars" filled in, plus their own
    keys, which win; so a matrix cell declares only what makes it a cell."""
    templates = defs.get("templates", {})
    for name, scen in list(defs["scenarios"].items()):
        if "template" not in scen:
            continue
        if scen["template"] not in templates:
            raise BenchError("scenario %r: unknown template %r" % (name, scen["template"]))
        full = _fill(templates[scen["template"]], dict(scen.get("vars", {}), name=name))
        full.update({k: v for k, v in scen.items() if k not in ("template", "vars")})
        defs["scenarios"][name] = full
    return defs


def load_scenarios():
    """bench/scenarios.json plus every bench/scenarios.d/*.json (sorted), so a
    scheduler's own scenarios live in their own file; a duplicate name is an
    error rather than a silent override."""
    defs = load_json(SCENARIOS_FILE)
    extra_dir = os.path.join(HERE, "scenarios.d")
    if os.path.isdir(extra_dir):
        for fn in sorted(os.listdir(extra_dir)):
            if not fn.endswith(".json"):
                continue
            extra = load_json(os.path.join(extra_dir, fn))
            for name, scen in extra.get("scenarios", {}).items():
                if name in defs["scenarios"]:
                    raise BenchError("scenario %r of scenarios.d/%s is already defined"
                                     % (name, fn))
                defs["scenarios"][name] = scen
    return expand_templates(defs)


def select_scenarios(defs, names, quick, matrix=False):
    """Scenario names to run, in file order.  reqs-capacity is added when a
    scenario's load depends on it, and always runs before it."""
    known = list(defs["scenarios"])
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
    elif matrix:
        wanted = list(defs["matrix"]["scenarios"])
    elif quick:
        wanted = list(defs["quick"]["scenarios"])
    else:
        # The matrix's own cells need --matrix or --scenarios: they would
        # multiply the time of a plain run.
        wanted = [n for n in known if not defs["scenarios"][n].get("matrix_only")]
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise BenchError("unknown scenario(s) %s; known: %s"
                         % (", ".join(unknown), ", ".join(known)))
    if any(defs["scenarios"][n].get("offered_load_pct") for n in wanted):
        wanted.append(CAPACITY_SCENARIO)
    return [n for n in known if n in wanted]


# Comparison schedulers that are not built from this tree: config name ->
# the script that builds the binary (it prints its path); the guest image
# takes the binary from there (tests/vm/mkinitramfs).
EXTERNAL_SCHEDS = {"scx_simple": "tools/get-scx-simple"}


def parse_sched_configs(text):
    """--scheds value -> list of configs, 'default' first and only once.

    A config is "name" or "name:flags"; name "default" is the kernel's own
    scheduler (EEVDF), a name of EXTERNAL_SCHEDS runs that binary (the
    kernel's scx_simple), anything else runs build/scx_<name> FLAGS.
    """
    configs = [{"config": "default", "name": "default", "flags": "", "binary": None}]
    for item in (text or "").split(","):
        item = item.strip()
        if not item or item == "default":
            continue
        name, _, flags = item.partition(":")
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise BenchError("bad scheduler config %r (want name or name:flags)" % item)
        if any(c["config"] == item for c in configs):
            continue
        configs.append({"config": item, "name": name, "flags": flags.strip(),
                        "binary": name if name in EXTERNAL_SCHEDS else "scx_" + name,
                        "external": EXTERNAL_SCHEDS.get(name)})
    return configs


def scenario_workloads(sdef, quick):
    return sdef.get("quick_workloads") if quick and "quick_workloads" in sdef \
        else sdef["workloads"]


def scenario_duration(sdef, quick, defs, override, matrix=False):
    """Foreground duration in seconds; 0 for fixed-work scenarios.  The
    matrix has its own short durations (many cells, several schedulers)."""
    if sdef["duration_s"] == 0:
        return 0
    if override:
        return override
    if matrix:
        return defs["matrix"]["quick_duration_s" if quick else "duration_s"]
    return defs["quick"]["duration_s"] if quick else sdef["duration_s"]


def expand_cmd(cmd, dur, warmup, cpus):
    return cmd.format(dur=dur, bgdur=dur + 2 * warmup, cpus=cpus, cpus2=2 * cpus, cpus4=4 * cpus)


def sched_cmd(cfg):
    return "" if cfg["binary"] is None else " ".join(
        x for x in (cfg["binary"], cfg["flags"]) if x)


def done_key(scenario, run, config):
    """How the guest names a finished run (BENCH_DONE in guest.sh)."""
    return "%s:%d:%s" % (scenario, run, config)


def guest_plan(cfg, scenarios, defs, runs, cpus, quick, override, capacity, interleave=None,
               done=(), matrix=False):
    """Shell header of the guest script: variables and bench_plan().

    With interleave (a list of configs), one boot runs every config: each
    run of a scenario goes through the configs in turn, in reverse order
    on every other round, so that a drift of the host's speed during the
    boot falls on all of them alike instead of on whichever booted later.
    With matrix too, a round attaches each config once and runs that round
    of every scenario under it (bench_matrix in guest.sh): one scheduler
    load per config and round instead of one per run.
    """
    q = shlex.quote
    lines = ["BENCH_SCHED=%s" % q(cfg["config"]),
             "BENCH_SCHED_CMD=%s" % q(sched_cmd(cfg)),
             "BENCH_NCFG=%d" % (len(interleave) if interleave else 0)]
    for i, c in enumerate(interleave or []):
        lines.append("bench_cfg_%d() { BENCH_SCHED=%s; BENCH_SCHED_CMD=%s; }" % (
            i + 1, q(c["config"]), q(sched_cmd(c))))
    # Runs an earlier boot of this plan already finished: the guest skips them.
    lines.append("BENCH_DONE=%s" % q("|" + "".join(k + "|" for k in done)))
    lines += ["BENCH_RUNS=%d" % runs,
             "BENCH_CAPACITY=%s" % ("" if capacity is None else "%.0f" % capacity),
             "BENCH_SCENARIO_NAMES=%s" % q(" ".join(scenarios)),
             "bench_scenarios() {" if matrix else "bench_plan() {"]
    for name in scenarios:
        sdef = defs["scenarios"][name]
        dur = scenario_duration(sdef, quick, defs, override, matrix)
        warm = sdef.get("warmup_s", 0)
        wls = ["%s %s %s %s" % (w["label"], w["role"], w["format"],
                                expand_cmd(w["cmd"], dur, warm, cpus))
               for w in scenario_workloads(sdef, quick)]
        lines.append("\tbench_scenario %s %s %s %s" % (
            q(name), warm, sdef.get("offered_load_pct", 0), " ".join(q(w) for w in wls)))
    lines.append("}")
    if matrix:
        lines.append("bench_plan() { bench_matrix; }")
    return "\n".join(lines) + "\n"


# ---- finished runs, kept across boots and invocations ----------------------

def write_runs(path, lines):
    """Every finished run so far, one guest record a line (atomically)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for l in lines:
            f.write(json.dumps(l, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def read_runs(path):
    """Records written by write_runs (or cut from a console log)."""
    out = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    raise BenchError("%s:%d: not JSON (%s)" % (path, n, e))
                if not (isinstance(rec, dict) and isinstance(rec.get("sched"), str)
                        and isinstance(rec.get("scenario"), str)
                        and isinstance(rec.get("run"), int)
                        and isinstance(rec.get("workloads"), dict)):
                    raise BenchError("%s:%d: not a run record (sched, scenario, run, "
                                     "workloads)" % (path, n))
                out.append(rec)
    except OSError as e:
        raise BenchError("cannot read %s: %s" % (path, e.strerror))
    return out


def resumable_runs(records, configs, scenarios, runs):
    """(kept, dropped) records of an earlier invocation: a run is kept when
    this invocation plans it (same config, scenario, run number), once."""
    want = {c["config"] for c in configs}
    kept, dropped, seen = [], [], set()
    for r in records:
        key = done_key(r["scenario"], r["run"], r["sched"])
        if r["sched"] in want and r["scenario"] in scenarios and 1 <= r["run"] <= runs \
                and key not in seen:
            seen.add(key)
            kept.append(r)
        else:
            dropped.append(r)
    return kept, dropped


# ---- guest output -> records -----------------------------------------------

def parse_console(text):
    """(setup, results, failures) from a guest console log."""
    setup, results, fails = None, [], []
    for line in text.splitlines():
        if line.startswith("SCXK-BENCH-SETUP "):
            setup = json.loads(line.split(" ", 1)[1])
        elif line.startswith("SCXK-BENCH-FAIL"):
            fails.append(line.split(" ", 1)[1] if " " in line else line)
        elif line.startswith("SCXK-BENCH {"):
            try:
                results.append(json.loads(line.split(" ", 1)[1]))
            except ValueError as e:
                fails.append("unparsable SCXK-BENCH line (%s): %.200s" % (e, line))
    return setup, results, fails


def get_path(obj, path):
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def bpf_deltas(before, after):
    """Per struct_ops program: calls and mean ns per call during the run.

    Only struct_ops programs are kept: those are the scheduler's callbacks
    (the previous scheduler is detached before the next run starts).
    """
    old = {p["id"]: p for p in before}
    out = {}
    for p in after:
        if p.get("type") != "struct_ops":
            continue
        o = old.get(p["id"], {})
        cnt = p.get("run_cnt", 0) - o.get("run_cnt", 0)
        ns = p.get("run_time_ns", 0) - o.get("run_time_ns", 0)
        name = p.get("name") or "id%d" % p["id"]
        if name in out:
            name = "%s#%d" % (name, p["id"])
        out[name] = {"run_cnt": cnt, "run_time_ns": ns,
                     "avg_ns": (ns / cnt) if cnt > 0 else None}
    return out


def run_record(line, sdef):
    """One guest result line -> the run entry of the result document."""
    wls = line["workloads"]
    metrics, hists = {}, {}
    for mname, m in sdef["metrics"].items():
        v = get_path(wls.get(m["from"]), m["path"])
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            metrics[mname] = v
    for hname, h in sdef.get("histograms", {}).items():
        v = get_path(wls.get(h["from"]), h["path"])
        if isinstance(v, dict):
            hists[hname] = v
    ticks = line.get("user_cpu_ticks") or 0
    return {
        "run": line["run"],
        "wall_s": line["wall_s"],
        "ops": line.get("ops", ""),
        "rps_offered": line.get("rps_offered"),
        "metrics": metrics,
        "histograms": hists,
        "bpf": bpf_deltas(line.get("bpf_before", []), line.get("bpf_after", [])),
        "user_cpu_ms": ticks * 1000.0 / line.get("clk_tck", 100),
        "workloads": wls,
    }


def aggregate(runs, sdef):
    """Per-metric summaries, median histograms and overhead of a scenario."""
    metrics = {}
    for mname in sdef["metrics"]:
        vals = [r["metrics"][mname] for r in runs if mname in r["metrics"]]
        if vals:
            metrics[mname] = summarize(vals)
    hists = {}
    for hname in sdef.get("histograms", {}):
        hs = [r["histograms"][hname] for r in runs if hname in r["histograms"]]
        if hs:
            hists[hname] = {p: median([h[p] for h in hs]) for p in PERCENTILES + ["max_us"]}
    bpf = {}
    for prog in sorted({p for r in runs for p in r["bpf"]}):
        rs = [(r["bpf"][prog], r["wall_s"]) for r in runs if prog in r["bpf"]]
        avgs = [x["avg_ns"] for x, _ in rs if x["avg_ns"] is not None]
        bpf[prog] = {"run_cnt": summarize([x["run_cnt"] for x, _ in rs]),
                     "avg_ns": summarize(avgs) if avgs else None,
                     "calls_per_s": summarize([x["run_cnt"] / max(w, 1e-3) for x, w in rs])}
    overhead = {"user_cpu_ms": summarize([r["user_cpu_ms"] for r in runs]), "bpf": bpf,
                "bpf_ns_per_s": summarize([bpf_ns_per_s(r) for r in runs])}
    return {"metrics": metrics, "histograms": hists, "overhead": overhead}


def bpf_ns_per_s(run):
    """ns spent in all the scheduler's BPF callbacks per second of wall time
    of one run: the CPU cost of the policy itself (0 for default)."""
    return sum(p["run_time_ns"] for p in run["bpf"].values()) / max(run["wall_s"], 1e-3)


def sched_entry(cfg, lines, defs, scenarios, wall_s):
    """All results of one scheduler config (one VM boot)."""
    results = {}
    for name in scenarios:
        sdef = defs["scenarios"][name]
        runs = [run_record(l, sdef) for l in lines if l["scenario"] == name]
        if not runs:
            raise BenchError("%s: no result for scenario %s" % (cfg["config"], name))
        results[name] = dict(runs=runs, **aggregate(runs, sdef))
    ops = next((l.get("ops") for l in lines if l.get("ops")), "")
    return {"config": cfg["config"], "name": cfg["name"], "flags": cfg["flags"],
            "command": None if cfg["binary"] is None else
            " ".join(x for x in (cfg["binary"], cfg["flags"]) if x),
            "ops": ops, "vm_wall_s": round(wall_s, 1), "results": results}


def capacity_of(entry):
    """Median closed-loop req/s of a scheduler entry, or None."""
    r = entry["results"].get(CAPACITY_SCENARIO)
    return r["metrics"]["rps"]["median"] if r and "rps" in r["metrics"] else None


# ---- schema validation (the subset of draft-07 that schema.json uses) -------

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value)
    return isinstance(value, _TYPES[t])


def validate(doc, schema, root=None, where="$"):
    """List of error strings; empty when doc matches schema.

    Supports type (name or list), anyOf, enum, const, required, properties,
    additionalProperties (bool or schema), items, minItems, minimum,
    pattern and $ref to "#/definitions/NAME".
    """
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return validate(doc, root["definitions"][name], root, where)
    if "anyOf" in schema:
        alts = [validate(doc, alt, root, where) for alt in schema["anyOf"]]
        if all(alts):
            return ["%s: matches no alternative (%s)" % (where, "; ".join(a[0] for a in alts))]
    errs = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(_type_ok(doc, t) for t in types):
            return ["%s: expected %s, got %s" % (where, "/".join(types), type(doc).__name__)]
    if "enum" in schema and doc not in schema["enum"]:
        errs.append("%s: %r not one of %r" % (where, doc, schema["enum"]))
    if "const" in schema and doc != schema["const"]:
        errs.append("%s: %r is not %r" % (where, doc, schema["const"]))
    if isinstance(doc, str) and "pattern" in schema and not re.search(schema["pattern"], doc):
        errs.append("%s: %r does not match /%s/" % (where, doc, schema["pattern"]))
    if _type_ok(doc, "number") and "minimum" in schema and doc < schema["minimum"]:
        errs.append("%s: %r below minimum %r" % (where, doc, schema["minimum"]))
    if isinstance(doc, dict):
        errs += _validate_object(doc, schema, root, where)
    if isinstance(doc, list):
        if len(doc) < schema.get("minItems", 0):
            errs.append("%s: fewer than %d items" % (where, schema["minItems"]))
        if "items" in schema:
            for i, item in enumerate(doc):
                errs += validate(item, schema["items"], root, "%s[%d]" % (where, i))
    return errs


def _validate_object(doc, schema, root, where):
    errs = ["%s: missing required %r" % (where, k)
            for k in schema.get("required", []) if k not in doc]
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for k, v in doc.items():
        sub = "%s.%s" % (where, k)
        if k in props:
            errs += validate(v, props[k], root, sub)
        elif extra is False:
            errs.append("%s: unexpected property" % sub)
        elif isinstance(extra, dict):
            errs += validate(v, extra, root, sub)
    return errs


# ---- comparison with a baseline ---------------------------------------------

def metric_tolerance(base, new, abs_floor, floor_rel=FLOOR_REL):
    """Largest change of the median that is still noise, in metric units.

    The larger of the two documents' run-to-run ranges (max - min) says how
    far a median moves between repetitions; the floor covers what a range of
    a few runs cannot show (see docs/benchmarking.md).
    """
    rng = max(base["max"] - base["min"], new["max"] - new["min"])
    return rng + max(floor_rel * abs(base["median"]), abs_floor)


def compare_metric(base, new, better, abs_floor, floor_rel=FLOOR_REL):
    """(verdict, change, tolerance): verdict is 'regression', 'improvement'
    or 'same'; change is the worsening in metric units (negative = better)."""
    delta = new["median"] - base["median"]
    worse = delta if better == "lower" else -delta
    tol = metric_tolerance(base, new, abs_floor, floor_rel)
    if worse > tol:
        return "regression", worse, tol
    if -worse > tol:
        return "improvement", worse, tol
    return "same", worse, tol


def compare(base_doc, new_doc, floor_rel=FLOOR_REL):
    """Rows for every scheduler config / scenario / metric in both docs."""
    rows = []
    base_scheds = {s["config"]: s for s in base_doc["scheds"]}
    for s in new_doc["scheds"]:
        b = base_scheds.get(s["config"])
        if not b:
            continue
        for scen, res in s["results"].items():
            bres = b["results"].get(scen)
            if not bres:
                continue
            mdefs = new_doc["scenarios"].get(scen, {}).get("metrics", {})
            for m, summ in res["metrics"].items():
                if m not in bres["metrics"] or m not in mdefs:
                    continue
                bsum = bres["metrics"][m]
                verdict, worse, tol = compare_metric(
                    bsum, summ, mdefs[m]["better"], mdefs[m].get("abs_floor", 0), floor_rel)
                rows.append({"sched": s["config"], "scenario": scen, "metric": m,
                             "better": mdefs[m]["better"], "base": bsum["median"],
                             "new": summ["median"], "worse_by": worse, "tolerance": tol,
                             "n": (bsum["n"], summ["n"]), "verdict": verdict})
    return rows


def setup_differences(base_doc, new_doc):
    keys = ["kernel", "vcpus", "smp", "numa", "mem", "accel", "tcg_thread"]
    return ["%s: %r -> %r" % (k, base_doc["setup"].get(k), new_doc["setup"].get(k))
            for k in keys if base_doc["setup"].get(k) != new_doc["setup"].get(k)]


def fmt_num(v):
    if v is None:
        return "-"
    if isinstance(v, int) or (abs(v) >= 100 and float(v).is_integer()):
        return "%d" % v
    if abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.3g" % v


def format_compare(rows):
    head = ["sched", "scenario", "metric", "baseline", "new", "worse by", "tolerance", "verdict"]
    body = [[r["sched"], r["scenario"], r["metric"], fmt_num(r["base"]), fmt_num(r["new"]),
             fmt_num(r["worse_by"]), fmt_num(r["tolerance"]),
             r["verdict"].upper() if r["verdict"] == "regression" else r["verdict"]]
            for r in rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    return "\n".join([fmt % tuple(head)] + [fmt % tuple(b) for b in body])
