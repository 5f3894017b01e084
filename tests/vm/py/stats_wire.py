# SPDX-License-Identifier: GPL-2.0-only
"""stats_wire.py client SOCKET | metrics SOCKET FILE

client: upstream's protocol, strictly (scx_stats_strict.py), against one
scheduler's stats socket: stats_meta typed as scx_stats sends it, every
stats answer checked against it (twice, for the deltas), request args,
named targets (lavd's sched_samples where the meta declares SchedSample, a
clear error response otherwise), errors answered as upstream's server
does. metrics: FILE (scxctl metrics' output) is strict OpenMetrics and
holds every stat of the socket's meta, per-layer and per-domain included.
Prints one line per failed check; exit 1 if any.
"""
import sys
import time

import openmetrics_check as om
import scx_stats_strict as ss

EINVAL = 22
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
    return cond


def client(path):
    c = ss.Client(path)
    errno, meta = c.request("stats_meta")
    expect(errno == 0, "stats_meta: errno %d" % errno)
    top = ss.check_meta(meta)
    for args in (None, {"target": "top"}, {"target": "top"}, {"target": "top", "x": "y"}):
        errno, resp = c.request("stats", args)
        if expect(errno == 0, "stats %s: errno %d (%r)" % (args, errno, resp)):
            ss.check_struct(meta, top, resp)
    for fname, f in meta[top]["fields"].items():
        if "dict" in f:
            expect(resp.get(fname), "dict field %s is empty: nothing nested was checked"
                   % fname)
    for req, args in (("stats", {"target": "no_such_target"}), ("no_such_request", None),
                      ("stats", {"target": "top", "nr_samples": "x"})):
        errno, resp = c.request(req, args)
        if args and args.get("nr_samples"):
            continue  # top takes no args: ignored, as upstream's "top" closures do
        expect(errno == EINVAL, "%s %s: errno %d, want EINVAL" % (req, args, errno))
        expect(isinstance(resp, str) and resp, "%s %s: resp %r is no message" % (req, args, resp))
    if "SchedSample" in meta:
        samples = []
        for _ in range(30):
            errno, resp = c.request("stats", {"target": "sched_samples", "nr_samples": "20"})
            if not expect(errno == 0, "sched_samples: errno %d (%r)" % (errno, resp)):
                break
            ss._exact_keys(resp, ("samples",), (), "sched_samples resp")
            if not isinstance(resp["samples"], list):
                raise ss.Violation("sched_samples: samples is not an array")
            for i, s in enumerate(resp["samples"]):
                ss.check_struct(meta, "SchedSample", s, "samples[%d]" % i)
            samples += resp["samples"]
            if samples:
                break
            time.sleep(0.3)
        expect(samples, "sched_samples: no sample in 30 requests")
    else:
        errno, resp = c.request("stats", {"target": "sched_samples", "nr_samples": "20"})
        expect(errno != 0 and isinstance(resp, str) and "sched_samples" in resp,
               "sched_samples where it is not served: errno %d, resp %r" % (errno, resp))
    c.close()


def metrics(path, file):
    with open(file) as f:
        fams = om.parse(f.read())
    c = ss.Client(path)
    _, meta = c.request("stats_meta")
    _, stats = c.request("stats", {"target": "top"})
    c.close()
    want = om.expected(meta, stats)
    expect(want, "the meta maps to no metric at all")
    for fam, typ, sname, labels, vlabel in want:
        if not expect(fam in fams, "family %s missing" % fam):
            continue
        expect(fams[fam]["type"] == typ, "%s is a %s, want %s" % (fam, fams[fam]["type"], typ))
        have = [lab for (n, lab) in fams[fam]["samples"] if n == sname]
        # an info metric's string may change between the two reads: match the rest
        strip = lambda ls: tuple(p for p in ls if p[0] != vlabel)
        expect(strip(labels) in [strip(h) for h in have] if vlabel else labels in have,
               "%s: no sample %s%s" % (fam, sname, dict(labels)))
    print("# %d families, %d samples" % (len(fams),
                                         sum(len(f["samples"]) for f in fams.values())))


def main():
    try:
        if sys.argv[1] == "client":
            client(sys.argv[2])
        else:
            metrics(sys.argv[2], sys.argv[3])
    except (ss.Violation, om.Violation) as e:
        failures.append(str(e))
    for f in failures:
        print("VIOLATION: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
