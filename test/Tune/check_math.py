"""Prints the math mode of each candidate of a `tirx tune --json` run by
the transforms that decide it (use_mma or use_wgmma: tensor cores; else
SIMT threads),
then the best's and the summary (test/Tune/measure.test):
  check_math.py RUN.jsonl"""
import json
import sys

events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seen = set()
# A failed build's event has no schedule or screening: skipped.
for c in (e for e in events if e["event"] == "candidate" and "screening" in e):
    names = [a["transform"] for a in c["schedule"]]
    kind = "tensor-cores" if {"use_mma", "use_wgmma"} & set(names) else "simt"
    math = c["screening"]["math"]
    # The precision follows the schedule: tensor cores tf32, SIMT ieee.
    assert math == ("tf32" if kind == "tensor-cores" else "ieee"), (names, math)
    if kind not in seen:
        seen.add(kind)
        print(kind, math)
result = events[-1]
if len(seen) == 1:
    print("best: %s %s" % (result["best"]["full"]["math"], result["summary"]))
