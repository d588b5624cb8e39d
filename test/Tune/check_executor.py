"""Checks a tune measured by an executor (docs/scale-out.md): the report's
executor, every candidate screened exactly once in the state (never lost,
never counted twice, across reruns too), each screening run naming its
device, no two measurements on one GPU at a time (the stand-in fails a
measurement that finds its GPU held), the retried ones. Prints a summary
for FileCheck.

usage: check_executor.py TUNE.jsonl STATE.jsonl [--kind local|slurm]
       [--devices N] [--retried N] [--interrupted]"""
import argparse
import collections
import json

ap = argparse.ArgumentParser()
ap.add_argument("tune")
ap.add_argument("state")
ap.add_argument("--kind", default="local")
ap.add_argument("--devices", type=int)
ap.add_argument("--retried", type=int)
ap.add_argument("--interrupted", action="store_true")
a = ap.parse_args()

result = json.loads([l for l in open(a.tune) if l.strip()][-1])
assert result["ok"] is True, result
ex = result.get("executor")
assert ex and ex["kind"] == a.kind, ex
assert result["interrupted"] is a.interrupted, result["interrupted"]

screened = collections.Counter()
devices = set()
retried = 0
for line in open(a.state):
    r = json.loads(line)
    if r["kind"] != "measured":
        continue
    m = r["measurement"]
    assert "shared GPU" not in m.get("message", ""), m
    if r["phase"] != "screen":
        continue
    screened[r["digest"]] += 1
    assert m.get("device"), ("a screening run without its device", r)
    devices.add(m["device"])
    if m.get("attempts", 1) == 2:
        assert m.get("retried"), m
        retried += 1
    assert m["correctness"] == "pass" and m["median_us"] > 0, m
twice = [d for d, n in screened.items() if n > 1]
assert not twice, ("screened twice", twice)
if not a.interrupted:
    assert len(screened) == result["candidates"], (len(screened), result["candidates"])
    assert result["best"], result
if a.devices is not None:
    assert len(devices) == a.devices, devices
if a.retried is not None:
    assert ex["retried"] == a.retried, ex
    assert retried <= a.retried, retried
print("%s: %d candidates screened once each on %d devices, %d retried%s" % (
    a.kind, len(screened), len(devices), ex["retried"],
    ", interrupted" if a.interrupted else ""))
