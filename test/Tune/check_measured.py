"""Checks a measured `tirx tune --json` run (test/Tune/measure.test):
  check_measured.py RUN.jsonl DB.jsonl [--reach FIRST.jsonl | --family FIRST.jsonl]"""
import json
import sys

events = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
result = events[-1]
assert result["ok"], result
db = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
if "--family" in sys.argv:
    # Another size of the same op: the database's seeds are the first
    # tune's best schedules (its family), candidate 2 follows one.
    first = [json.loads(l) for l in open(sys.argv[sys.argv.index("--family") + 1]) if l.strip()][-1]
    assert result["workload"] != first["workload"] and result["family"] == first["family"], \
        (result["workload"], first["workload"])
    print("database seeds: %d" % result["database"]["seeds"])
    cands = [e for e in events if e["event"] == "candidate"]
    second = cands[1]
    assert second["origin"] == "db", second
    names = [a["transform"] for a in second["schedule"]]
    assert names == [a["transform"] for a in first["best"]["schedule"]], (names, first["best"])
    print("candidate 2 (db) follows the first tune's best: " + " ".join(names))
elif "--reach" not in sys.argv:
    cands = [e for e in events if e["event"] == "candidate"]
    for c in cands:
        s = c["screening"]
        assert s["correctness"] == "pass" and s["median_us"] > 0, c
        assert s["samples"] == 10, s  # screening: few samples
    print("every candidate screened: %d" % len(cands))
    full = [c for c in result["all"] if c["median_us"]]
    assert result["best"]["full"]["correctness"] == "pass", result["best"]
    nfull = sum(1 for e in db if e["samples"] != 10)
    print("full checks: %d" % nfull)
    p = result["vs_runner_up"]
    assert p["low"] <= p["ratio"] <= p["high"] and p["pairs"] >= 3, p
    print("paired: %s against %s, %d pairs, 95%% [%.3f, %.3f]"
          % (p["a"], p["b"], p["pairs"], p["low"], p["high"]))
    keys = {json.dumps(e["fingerprint"], sort_keys=True) for e in db}
    assert all(e["schema"] == 1 and e["correctness"] == "pass" for e in db), db
    assert len(db) == len(cands) + nfull, (len(db), len(cands), nfull)
    print("database: %d records, %s" % (len(db), "one fingerprint" if len(keys) == 1 else "%d fingerprints" % len(keys)))
    base = result["baseline"]
    assert base["origin"] == "auto" and base["full"]["median_us"] > 0, base
    print("the automatic schedule timed in full: %s" % base["full"]["correctness"])
else:
    first = [json.loads(l) for l in open(sys.argv[sys.argv.index("--reach") + 1]) if l.strip()][-1]
    print("database seeds: %d" % result["database"]["seeds"])
    # The first tune's best is candidate 1 (the automatic schedule) or 2
    # (the database's best, right after it).
    cands = [e for e in events if e["event"] == "candidate"]
    at = [c["index"] for c in cands if c.get("schedule") == first["best"]["schedule"]]
    assert at and at[0] <= 2, (at, first["best"])
    assert at[0] == 1 or cands[1]["origin"] == "db", cands[1]
    print("the first tune's best schedule is candidate %d" % at[0])
