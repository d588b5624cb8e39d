#!/usr/bin/env python3
"""Checks a bundle's global accesses as the static analysis records them
(manifest.json `accesses`, lib/Analysis/Access.cpp; the runner's
`uncoalesced_access` and `narrow_global_access` labels read the same
fields): every load and store contiguous across the threads along x, and
at least --bytes wide.

  check_accesses.py BUNDLE_DIR [--bytes N] [--count N]
  check_accesses.py --view VIEW.json

Prints a line per access ("load x: 16 B, contiguous"), then a verdict;
exit 1 when an access is not contiguous or narrower than --bytes, when the
count differs from --count, or when the manifest has no accesses.

--view reads `tirx view vN --what access_pattern` instead (the scheduled IR,
before lowering): a line per global access with its index and whether it
is coalesced, and per shared-memory vector access its bank-conflict risk;
exit 1 when a global access is not coalesced.
"""
import argparse
import json
import os
import sys


def check_view(path):
    try:
        accesses = json.load(open(path))["accesses"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("error: cannot read the view: %s" % e)
        return 1
    bad = 0
    for a in accesses:
        name = a["buffer"].split(" / ")[-1]
        if a["space"] == "global":
            print("global %s %s: %s, %d wide, %s" % (
                a["kind"], name, a["index"], a["vector_width"],
                "coalesced" if a["coalesced"] is True else "NOT coalesced"))
            bad += a["coalesced"] is not True
        elif a["space"] == "workgroup" and a["vector_width"] > 1:
            print("workgroup %s %s: %s, %d wide, bank conflicts %s" % (
                a["kind"], name, a["index"], a["vector_width"], a["bank_conflict_risk"]))
    if bad:
        print("FAIL: %d global accesses not coalesced" % bad)
        return 1
    print("every global access coalesced")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle", nargs="?")
    ap.add_argument("--bytes", type=int, default=16)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--view", default=None)
    args = ap.parse_args()
    if args.view:
        return check_view(args.view)
    if not args.bundle:
        ap.error("give a bundle directory or --view VIEW.json")
    try:
        manifest = json.load(open(os.path.join(args.bundle, "manifest.json")))
    except (OSError, ValueError) as e:
        print("error: cannot read the bundle's manifest: %s" % e)
        return 1
    bad, total = [], 0
    for kernel in manifest.get("kernels", []):
        for a in kernel.get("accesses", []):
            total += 1
            line = "%s %s: %d B, %s" % (a["op"], a["buffer"], a["bytes"],
                                        "contiguous" if a["contiguous"] else "NOT contiguous")
            print(line)
            if not a["contiguous"] or a["bytes"] < args.bytes:
                bad.append("%s at %s" % (line, a.get("loc", "?")))
    if total == 0:
        print("error: the manifest records no global access")
        return 1
    if args.count is not None and total != args.count:
        print("error: %d global accesses, expected %d" % (total, args.count))
        return 1
    if bad:
        print("FAIL: %d of %d global accesses not contiguous or under %d bytes:"
              % (len(bad), total, args.bytes))
        for b in bad:
            print("  " + b)
        return 1
    print("all %d global accesses contiguous, %d bytes or wider" % (total, args.bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
