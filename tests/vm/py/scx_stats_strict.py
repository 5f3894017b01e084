# SPDX-License-Identifier: GPL-2.0-only
"""A strict client of the scx_stats protocol, written from upstream's
documentation (sched-ext/scx rust/scx_stats: README and the serde types of
StatsRequest, StatsResponse and StatsMeta), not from scxkit's server.

Strict means: one JSON line per request, no duplicate keys, no NaN or
Infinity, exactly the members upstream's serde types have, every value
checked against the type the meta declares (u64 an integer >= 0, float a
number, a struct every declared field and nothing else, a dict's keys of
its key type). Each check that fails raises Violation with what and where.
Runs on Python 3.11 with the standard library only (json, socket): it is
copied into the test VM with a minimal interpreter (tests/vm/mkpython).
"""
import json
import socket

KINDS = ("i64", "u64", "float", "string")
U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


class Violation(Exception):
    pass


def _no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Violation("duplicate key in %r" % keys)
    return dict(pairs)


def _no_constant(name):
    raise Violation("non-JSON number %s" % name)


def loads(line):
    """strict JSON: one value, no duplicate keys, no NaN/Infinity"""
    try:
        return json.loads(line, object_pairs_hook=_no_dups, parse_constant=_no_constant)
    except ValueError as e:
        raise Violation("not JSON: %s in %r" % (e, line[:200]))


def _exact_keys(obj, required, optional, where):
    if not isinstance(obj, dict):
        raise Violation("%s: not an object: %r" % (where, obj))
    keys = set(obj)
    if not set(required) <= keys:
        raise Violation("%s: lacks %s" % (where, sorted(set(required) - keys)))
    extra = keys - set(required) - set(optional)
    if extra:
        raise Violation("%s: unexpected members %s" % (where, sorted(extra)))


class Client:
    """one connection; deltas are per connection, so keep it open"""

    def __init__(self, path, timeout=10):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""

    def close(self):
        self.sock.close()

    def raw(self, line):
        """send one line, return the response line (str)"""
        self.sock.sendall(line.encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Violation("server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf.split(b"\n", 1)
        try:
            return out.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Violation("response not UTF-8: %s" % e)

    def request(self, req, args=None):
        """upstream's StatsRequest {req, args: map of strings} -> (errno, resp)"""
        msg = {"req": req}
        if args is not None:
            if not all(isinstance(v, str) for v in args.values()):
                raise ValueError("upstream's args are strings")
            msg["args"] = args
        resp = loads(self.raw(json.dumps(msg)))
        # StatsResponse {errno: i32, args: map} with the value under "resp"
        _exact_keys(resp, ("errno", "args"), (), "response")
        errno = resp["errno"]
        if type(errno) is not int or not 0 <= errno < 2**31:
            raise Violation("errno is not an i32 >= 0: %r" % errno)
        _exact_keys(resp["args"], ("resp",), (), "response args")
        return errno, resp["args"]["resp"]


def _kind(kind, meta, where):
    """a StatsKind: one of KINDS or {"struct": NAME} naming a struct of meta"""
    if isinstance(kind, str):
        if kind not in KINDS:
            raise Violation("%s: unknown kind %r" % (where, kind))
        return
    _exact_keys(kind, ("struct",), (), where)
    if kind["struct"] not in meta:
        raise Violation("%s: struct %r is not in the meta" % (where, kind["struct"]))


def _user(obj, where):
    if "user" in obj:
        u = obj["user"]
        if not isinstance(u, dict) or not all(isinstance(v, str) for v in u.values()):
            raise Violation("%s: user is not a map of strings" % where)
        if not all(k.startswith("_") for k in u):
            raise Violation("%s: user attribute names start with '_'" % where)


def check_meta(meta):
    """StatsMeta per struct; returns the name of the top struct"""
    if not isinstance(meta, dict) or not meta:
        raise Violation("stats_meta resp is not a non-empty object")
    tops = []
    for name, st in meta.items():
        where = "meta %s" % name
        _exact_keys(st, ("name", "fields"), ("desc", "top", "user"), where)
        if st["name"] != name:
            raise Violation("%s: name %r differs from its key" % (where, st["name"]))
        if "desc" in st and not isinstance(st["desc"], str):
            raise Violation("%s: desc is not a string" % where)
        if "top" in st:
            # StatsStructAttrs.top is Option<String>: the string "true"
            if st["top"] != "true":
                raise Violation("%s: top is %r, upstream sends the string \"true\""
                                % (where, st["top"]))
            tops.append(name)
        _user(st, where)
        if not isinstance(st["fields"], dict):
            raise Violation("%s: fields is not an object" % where)
        for fname, f in st["fields"].items():
            fw = "%s.%s" % (where, fname)
            variants = [k for k in ("datum", "array", "dict") if k in f]
            if len(variants) != 1:
                raise Violation("%s: needs exactly one of datum/array/dict, has %s"
                                % (fw, variants))
            _exact_keys(f, variants, ("desc", "user"), fw)
            if "desc" in f and not isinstance(f["desc"], str):
                raise Violation("%s: desc is not a string" % fw)
            _user(f, fw)
            v = variants[0]
            if v == "dict":
                _exact_keys(f["dict"], ("key", "datum"), (), fw + " dict")
                if f["dict"]["key"] not in ("i64", "u64", "string"):
                    raise Violation("%s: dict key %r" % (fw, f["dict"]["key"]))
                _kind(f["dict"]["datum"], meta, fw)
            else:
                _kind(f[v], meta, fw)
    if len(tops) != 1:
        raise Violation("meta has %d top structs, want 1: %s" % (len(tops), tops))
    return tops[0]


def _value(kind, v, meta, where):
    if isinstance(kind, dict):
        check_struct(meta, kind["struct"], v, where)
    elif kind == "u64":
        if type(v) is not int or not 0 <= v <= U64_MAX:
            raise Violation("%s: %r is not a u64" % (where, v))
    elif kind == "i64":
        if type(v) is not int or not I64_MIN <= v <= I64_MAX:
            raise Violation("%s: %r is not an i64" % (where, v))
    elif kind == "float":
        if type(v) not in (int, float):
            raise Violation("%s: %r is not a number" % (where, v))
    elif kind == "string":
        if not isinstance(v, str):
            raise Violation("%s: %r is not a string" % (where, v))


def check_struct(meta, name, value, where=None):
    """value is struct NAME of meta: every field, of its type, nothing else"""
    where = where or name
    fields = meta[name]["fields"]
    _exact_keys(value, tuple(fields), (), where)
    for fname, f in fields.items():
        v, fw = value[fname], "%s.%s" % (where, fname)
        if "datum" in f:
            _value(f["datum"], v, meta, fw)
        elif "array" in f:
            if not isinstance(v, list):
                raise Violation("%s: not an array" % fw)
            for i, e in enumerate(v):
                _value(f["array"], e, meta, "%s[%d]" % (fw, i))
        else:
            if not isinstance(v, dict):
                raise Violation("%s: not an object (a dict)" % fw)
            for k, e in v.items():
                if f["dict"]["key"] != "string":
                    try:
                        _value(f["dict"]["key"], int(k, 10), meta, "%s key" % fw)
                    except ValueError:
                        raise Violation("%s: key %r is not a %s" % (fw, k, f["dict"]["key"]))
                _value(f["dict"]["datum"], e, meta, "%s[%s]" % (fw, k))
