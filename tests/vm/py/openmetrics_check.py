# SPDX-License-Identifier: GPL-2.0-only
"""A strict reader of the OpenMetrics text format (1.0), for the test of
`scxctl metrics`: parse() raises Violation at the first line that breaks
the format; expected() lists what the export must hold for a scx_stats
server's meta and stats (the mapping of docs/stats-protocol.md).
Standard library only (re), so it runs in the test VM.
"""
import re

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
TYPES = ("counter", "gauge", "histogram", "gaugehistogram", "stateset", "info", "summary",
         "unknown")
# the sample names a family of each type may have
SUFFIXES = {"counter": ("_total", "_created"), "gauge": ("",), "unknown": ("",),
            "info": ("_info",), "stateset": ("",),
            "histogram": ("_bucket", "_count", "_sum", "_created"),
            "gaugehistogram": ("_bucket", "_gcount", "_gsum"),
            "summary": ("", "_count", "_sum", "_created")}
NUMBER = re.compile(r"^[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    r"|[Ii]nf(?:inity)?|NaN)$")
ESCAPED = re.compile(r'^(?:[^\\"\n]|\\\\|\\"|\\n)*$')
DESCR = re.compile(r"^# (TYPE|HELP|UNIT) (%s)(?: (.*))?$" % NAME)
SAMPLE = re.compile(r"^(%s)(\{[^\n]*\})? (\S+)(?: (\S+))?$" % NAME)
LABEL_PAIR = re.compile(r'(%s)="((?:[^\\"\n]|\\\\|\\"|\\n)*)"' % LABEL)


class Violation(Exception):
    pass


def _unescape(v):
    out, i = [], 0
    while i < len(v):
        if v[i] == "\\":
            out.append({"\\": "\\", '"': '"', "n": "\n"}[v[i + 1]])
            i += 2
        else:
            out.append(v[i])
            i += 1
    return "".join(out)


def _labels(text, where):
    if text is None:
        return ()
    body, out, pos = text[1:-1], [], 0
    while pos < len(body):
        m = LABEL_PAIR.match(body, pos)
        if not m:
            raise Violation("%s: bad label syntax at %r" % (where, body[pos:pos + 30]))
        out.append((m.group(1), _unescape(m.group(2))))
        pos = m.end()
        if pos < len(body):
            if body[pos] != ",":
                raise Violation("%s: labels must be separated by ','" % where)
            pos += 1
            if pos == len(body):
                raise Violation("%s: trailing ',' in labels" % where)
    names = [n for n, _ in out]
    if len(names) != len(set(names)):
        raise Violation("%s: a label name twice" % where)
    return tuple(sorted(out))


def parse(text):
    """{family: {"type", "help", "samples": {(name, labels): value}}}"""
    if not text.endswith("# EOF\n"):
        raise Violation("does not end with '# EOF' and a newline")
    lines = text[:-len("# EOF\n")].split("\n")
    if lines[-1] != "":
        raise Violation("the line before '# EOF' has no newline")
    fams, current, closed = {}, None, set()
    for i, line in enumerate(lines[:-1], 1):
        where = "line %d" % i
        if "\r" in line or line == "":
            raise Violation("%s: empty line or carriage return" % where)
        if line.startswith("#"):
            m = DESCR.match(line)
            if not m:
                raise Violation("%s: not a TYPE, HELP or UNIT line: %r" % (where, line))
            kind, name, rest = m.groups()
            if name != current:
                if name in closed or name in fams:
                    raise Violation("%s: family %s continued after another" % (where, name))
                if current:
                    closed.add(current)
                current = name
                fams[name] = {"type": "unknown", "help": None, "samples": {}, "seen": set()}
            fam = fams[name]
            if fam["samples"]:
                raise Violation("%s: %s after %s's samples" % (where, kind, name))
            if kind in fam["seen"]:
                raise Violation("%s: a second %s for %s" % (where, kind, name))
            fam["seen"].add(kind)
            if kind == "TYPE":
                if rest not in TYPES:
                    raise Violation("%s: unknown type %r" % (where, rest))
                fam["type"] = rest
            elif kind == "HELP":
                if rest is None or not ESCAPED.match(rest):
                    raise Violation("%s: HELP text badly escaped" % where)
                fam["help"] = rest
            elif rest is None or not name.endswith("_" + rest):
                raise Violation("%s: UNIT must be a suffix of the name" % where)
            continue
        m = SAMPLE.match(line)
        if not m:
            raise Violation("%s: not a sample line: %r" % (where, line))
        sname, labels, value, ts = m.groups()
        if current is None:
            raise Violation("%s: sample %s outside any family" % (where, sname))
        fam = fams[current]
        if sname not in [current + s for s in SUFFIXES[fam["type"]]]:
            raise Violation("%s: sample %s does not belong to %s family %s"
                            % (where, sname, fam["type"], current))
        if not NUMBER.match(value) or (ts is not None and not NUMBER.match(ts)):
            raise Violation("%s: bad number %r" % (where, value))
        key = (sname, _labels(labels, where))
        if key in fam["samples"]:
            raise Violation("%s: sample %s%s twice" % (where, sname, labels or ""))
        if fam["type"] == "info" and float(value) != 1:
            raise Violation("%s: an info sample's value is 1" % where)
        fam["samples"][key] = float(value)
    return fams


def expected(meta, stats, prefix="scx_"):
    """[(family, type, sample name, labels, value label)] the export of stats must
    hold; value label: for info metrics, the label carrying the string (its
    value may change between two reads), else None"""
    top = [n for n, s in meta.items() if s.get("top") == "true"][0]
    out = []

    def field(fname, f, value, om_prefix, keylabel):
        base = keylabel or ()
        fam = prefix + om_prefix + fname
        if "datum" in f and f["datum"] in ("u64", "i64", "float"):
            out.append((fam, "gauge", fam, tuple(sorted(base)), None))
        elif "datum" in f and f["datum"] == "string":
            out.append((fam, "info", fam + "_info", tuple(sorted(base + ((fname, value),))),
                        fname))
        elif "array" in f and f["array"] in ("u64", "i64", "float"):
            for i in range(len(value)):
                out.append((fam, "gauge", fam, tuple(sorted(base + (("index", str(i)),))),
                            None))

    for fname, f in meta[top]["fields"].items():
        if fname not in stats:
            continue
        if "dict" not in f:
            field(fname, f, stats[fname], "", ())
            continue
        sub = meta[f["dict"]["datum"]["struct"]]
        user = sub.get("user", {})
        pfx, label = user.get("_om_prefix", fname + "_"), user.get("_om_label", "key")
        for key, obj in stats[fname].items():
            for sfname, sf in sub["fields"].items():
                field(sfname, sf, obj[sfname], pfx, ((label, key),))
    return out
