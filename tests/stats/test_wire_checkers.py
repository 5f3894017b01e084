#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The checkers of the stats wire test (tests/vm/py) on the host, so that
each can be seen to fail: test_wire_checkers.py BUILD_DIR

- the strict scx_stats client's meta and value checks take a meta shaped
  as upstream's scx_stats documents it and refuse each way of breaking it
  (top as a bool, a field with a name member, an unknown kind, ...);
- the OpenMetrics reader takes valid text and refuses each broken form;
- `scxctl metrics SOCKET` against a fake upstream-shaped server (nested
  dict of structs, _om_prefix/_om_label, an array, a string) gives text the
  reader accepts and that holds every stat. TAP output.
"""
import copy
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm", "py"))
import openmetrics_check as om  # noqa: E402
import scx_stats_strict as ss  # noqa: E402

# A meta as upstream's scx_stats sends it for a cluster with domains (own data).
META = {
    "ClusterStats": {
        "name": "ClusterStats", "desc": "cluster", "top": "true",
        "fields": {
            "at": {"datum": "u64", "desc": "update time"},
            "load": {"datum": "float"},
            "mode": {"datum": "string", "desc": "a \"mode\"\nwith a newline"},
            "hist": {"array": "u64", "desc": "a histogram"},
            "doms": {"dict": {"key": "u64", "datum": {"struct": "DomainStats"}},
                     "desc": "domains"},
        },
    },
    "DomainStats": {
        "name": "DomainStats", "desc": "a domain",
        "user": {"_om_prefix": "d_", "_om_label": "domain"},
        "fields": {"events": {"datum": "u64"}, "pressure": {"datum": "float"},
                   "name": {"datum": "string"}},
    },
}
STATS = {"at": 12, "load": 1.5, "mode": "fast", "hist": [1, 2, 3],
         "doms": {"0": {"events": 4, "pressure": 0.25, "name": "a"},
                  "1": {"events": 5, "pressure": 0.5, "name": "b\\\"x"}}}

GOOD_OM = ('# TYPE a gauge\n# HELP a some \\"help\\"\\n\na 1\n'
           '# TYPE b info\nb_info{x="y\\\\"} 1\n'
           '# TYPE c counter\nc_total{l="1",m="2"} 3.5e3\nc_created 1\n# EOF\n')
BAD_OM = {
    "no EOF": GOOD_OM[:-len("# EOF\n")],
    "text after EOF": GOOD_OM + "a 1\n",
    "interleaved family": "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na 2\n# EOF\n",
    "family reopened": "# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\n# HELP a x\n# EOF\n",
    "TYPE after samples": "a 1\n# TYPE a gauge\n# EOF\n",
    "unknown type": "# TYPE a meter\na 1\n# EOF\n",
    "bad metric name": "# TYPE 1a gauge\n1a 1\n# EOF\n",
    "bad label name": '# TYPE a gauge\na{1x="y"} 1\n# EOF\n',
    "unquoted label": "# TYPE a gauge\na{x=y} 1\n# EOF\n",
    "bad escape": '# TYPE a gauge\na{x="\\t"} 1\n# EOF\n',
    "trailing comma": '# TYPE a gauge\na{x="y",} 1\n# EOF\n',
    "duplicate label": '# TYPE a gauge\na{x="y",x="z"} 1\n# EOF\n',
    "duplicate sample": "# TYPE a gauge\na 1\na 2\n# EOF\n",
    "bad value": "# TYPE a gauge\na one\n# EOF\n",
    "counter without _total": "# TYPE c counter\nc 1\n# EOF\n",
    "info value not 1": '# TYPE b info\nb_info{x="y"} 2\n# EOF\n',
    "gauge with suffix": "# TYPE a gauge\na_total 1\n# EOF\n",
    "empty line": "# TYPE a gauge\n\na 1\n# EOF\n",
    "HELP with raw quote": '# TYPE a gauge\n# HELP a say "x"\na 1\n# EOF\n',
    "two spaces": "# TYPE a gauge\na  1\n# EOF\n",
}


def bad_metas():
    def m(f):
        x = copy.deepcopy(META)
        f(x)
        return x
    return {
        "top as a JSON bool": m(lambda x: x["ClusterStats"].__setitem__("top", True)),
        "a field with a name member": m(lambda x: x["ClusterStats"]["fields"]["at"]
                                        .__setitem__("name", "at")),
        "an unknown kind": m(lambda x: x["ClusterStats"]["fields"]["at"]
                             .__setitem__("datum", "u32")),
        "two variants": m(lambda x: x["ClusterStats"]["fields"]["at"]
                          .__setitem__("array", "u64")),
        "a dict of a missing struct": m(lambda x: x.pop("DomainStats")),
        "no top": m(lambda x: x["ClusterStats"].pop("top")),
        "name differs from key": m(lambda x: x["DomainStats"].__setitem__("name", "D")),
        "a struct member upstream lacks": m(lambda x: x["DomainStats"].__setitem__("x", 1)),
        "user not a map of strings": m(lambda x: x["DomainStats"]["user"]
                                       .__setitem__("_om_skip", True)),
    }


def bad_values():
    def s(f):
        x = copy.deepcopy(STATS)
        f(x)
        return x
    return {
        "u64 negative": s(lambda x: x.__setitem__("at", -1)),
        "u64 as a float": s(lambda x: x.__setitem__("at", 1.5)),
        "u64 as a bool": s(lambda x: x.__setitem__("at", True)),
        "float as a string": s(lambda x: x.__setitem__("load", "1.5")),
        "string as an object": s(lambda x: x.__setitem__("mode", {})),
        "a field missing": s(lambda x: x.pop("load")),
        "a field the meta lacks": s(lambda x: x.__setitem__("extra", 1)),
        "array of strings": s(lambda x: x.__setitem__("hist", ["1"])),
        "dict as a string": s(lambda x: x.__setitem__("doms", "0:a")),
        "dict key not u64": s(lambda x: x["doms"].__setitem__("x", x["doms"]["0"])),
        "nested field missing": s(lambda x: x["doms"]["0"].pop("events")),
    }


n = failed = 0


def result(ok, desc, detail=""):
    global n, failed
    n += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, desc))
    if not ok:
        failed += 1
        for line in str(detail).splitlines()[:10]:
            print("#   " + line)


def refuses(fn, *args):
    try:
        fn(*args)
    except (ss.Violation, om.Violation):
        return True
    return False


def serve(path, ready):
    """a fake upstream server: stats_meta and stats (top), one line each"""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    ready.set()
    conn, _ = srv.accept()
    buf = b""
    while True:
        data = conn.recv(4096)
        if not data:
            break
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            req = json.loads(line)
            resp = META if req["req"] == "stats_meta" else STATS
            conn.sendall(json.dumps({"errno": 0, "args": {"resp": resp}}).encode() + b"\n")
    conn.close()
    srv.close()


def main():
    build = sys.argv[1]
    result(not refuses(ss.check_meta, META), "the strict client takes upstream's meta shape")
    result(not refuses(ss.check_struct, META, "ClusterStats", STATS),
           "the strict client takes values of the declared types")
    for what, meta in bad_metas().items():
        result(refuses(ss.check_meta, meta), "the strict client refuses a meta with " + what)
    for what, value in bad_values().items():
        result(refuses(ss.check_struct, META, "ClusterStats", value),
               "the strict client refuses stats with " + what)
    result(refuses(ss.loads, '{"a":1,"a":2}') and refuses(ss.loads, '{"a":NaN}'),
           "the strict client refuses duplicate keys and NaN")
    try:
        om.parse(GOOD_OM)
        result(True, "the OpenMetrics reader takes valid text")
    except om.Violation as e:
        result(False, "the OpenMetrics reader takes valid text", e)
    for what, text in BAD_OM.items():
        result(refuses(om.parse, text), "the OpenMetrics reader refuses " + what)

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "stats")
        ready = threading.Event()
        t = threading.Thread(target=serve, args=(path, ready), daemon=True)
        t.start()
        ready.wait(5)
        p = subprocess.run([os.path.join(build, "scxctl", "scxctl"), "metrics", path],
                           capture_output=True, text=True, timeout=30)
        result(p.returncode == 0, "scxctl metrics reads an upstream-shaped server",
               p.stderr)
        try:
            fams = om.parse(p.stdout)
            result(True, "its output is strict OpenMetrics")
        except om.Violation as e:
            fams = {}
            result(False, "its output is strict OpenMetrics", "%s\n%s" % (e, p.stdout))
        want = om.expected(META, STATS)
        missing = [(f, s, dict(lab)) for f, typ, s, lab, _ in want
                   if f not in fams or fams[f]["type"] != typ or (s, lab) not in fams[f]["samples"]]
        result(not missing and len(want) == 12,
               "it holds every stat: %d samples, nested per domain with _om_prefix/_om_label"
               % len(want), "missing: %s\n%s" % (missing, p.stdout))
        result(fams.get("scx_d_events", {}).get("samples", {})
               .get(("scx_d_events", (("domain", "1"),))) == 5,
               "a per-domain value comes through: scx_d_events{domain=\"1\"} 5", p.stdout)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
