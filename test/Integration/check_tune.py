"""Checks the JSON lines of a `tirx tune --json` run on a GPU:

  check_tune.py RUN.jsonl [--reach FIRST.jsonl]

Every candidate that built was screened (correctness checked); the best
passed the full check and is not slower than the automatic schedule beyond
5%; the paired comparison has an interval around its ratio. With --reach:
the database seeded this tune, and one of its first candidates (a tenth of
the first tune's) is within 5% of the first tune's best."""
import json
import sys


def load(path):
    events = [json.loads(l) for l in open(path) if l.strip()]
    result = events[-1]
    assert result["event"] == "result" and result["ok"], result
    return events, result


events, result = load(sys.argv[1])
candidates = [e for e in events if e["event"] == "candidate" and e.get("mapped", True)]
for c in candidates:
    s = c["screening"]
    assert s["correctness"] in ("pass", "fail") or s.get("code"), c
print("tune: %d candidates, every one screened (%.2f candidates/s)"
      % (result["candidates"], result["candidates_per_second"]))
best, base = result["best"], result["baseline"]
assert best["full"]["correctness"] == "pass", best
if "--reach" not in sys.argv:
    assert best["full"]["median_us"] <= base["full"]["median_us"] * 1.05, (best, base)
    print("best %s: correct on the full check, not slower than the automatic schedule"
          % best["version"])
    vs = result.get("speedup_vs_baseline")
    if vs:
        p = vs["paired"]
        assert p["low"] <= p["ratio"] <= p["high"], p
        print("paired: ratio %.3f 95%% [%.3f, %.3f] %s" % (p["ratio"], p["low"], p["high"], p["verdict"]))
    else:
        print("paired: ratio 1 95% [1, 1] the automatic schedule is the best")
else:
    first_events, first = load(sys.argv[sys.argv.index("--reach") + 1])
    target = first["best"]["full"]["median_us"]
    print("database: %d seeds" % result["database"]["seeds"])
    limit = max(1, first["candidates"] // 10)
    at = next((c["index"] for c in result["all"]
               if c["median_us"] and c["median_us"] <= target * 1.05), None)
    # +1: the automatic schedule is always candidate 1.
    assert at is not None and at <= limit + 1, (at, limit, target, result["all"])
    print("reached the first tune's best at candidate %d" % at)
