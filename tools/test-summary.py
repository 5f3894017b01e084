#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""test-summary.py TESTLOG.json - one line "N passed, N failed[, N skipped]"
from meson's testlog.json (one JSON object per test), for tools/test-all."""
import json
import sys


def main(path):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    with open(path) as f:
        for line in f:
            result = json.loads(line)["result"]
            if result in ("OK", "EXPECTEDFAIL"):
                counts["passed"] += 1
            elif result == "SKIP":
                counts["skipped"] += 1
            else:
                counts["failed"] += 1
    line = "%d passed, %d failed" % (counts["passed"], counts["failed"])
    if counts["skipped"]:
        line += ", %d skipped" % counts["skipped"]
    print(line)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: test-summary.py TESTLOG.json")
    main(sys.argv[1])
