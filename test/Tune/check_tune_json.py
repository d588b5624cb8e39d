"""Checks the JSON lines of `tirx tune --json`: every line one object with an
"event"; candidates numbered 1, 2, ... with a version, an origin and a
schedule of actions; the last line the result, with the report's fields."""
import json
import sys

lines = [l for l in open(sys.argv[1]) if l.strip()]
events = [json.loads(l) for l in lines]
assert events, "no output"
for e in events:
    assert isinstance(e, dict) and "event" in e, e
kinds = [e["event"] for e in events]
assert kinds[-1] == "result", kinds
assert kinds[-2] == "done", kinds
candidates = [e for e in events if e["event"] == "candidate"]
for n, c in enumerate(candidates, 1):
    assert c["index"] == n, (n, c)
    assert c["origin"] in ("auto", "random", "mutation", "crossover", "tree",
                           "neighbour", "db", "knowledge"), c
    if c.get("mapped", True):
        assert c["version"].startswith("v"), c
        assert isinstance(c["schedule"], list) and c["schedule"], c
        for a in c["schedule"]:
            assert isinstance(a["transform"], str) and isinstance(a["params"], dict), a
        assert "elapsed_s" in c, c
result = events[-1]
assert result["ok"] is True, result
for key, kind in (("candidates", int), ("failed_builds", int),
                  ("proposals", int), ("duplicates", int), ("refusals", dict),
                  ("compile_only", bool), ("search_seconds", float),
                  ("candidates_per_second", float), ("workload", str),
                  ("family", str), ("state", str), ("all", list),
                  ("exhausted", bool), ("interrupted", bool)):
    assert isinstance(result[key], kind), (key, result.get(key))
assert result["candidates"] + result["failed_builds"] == len(candidates), result
assert candidates[0]["origin"] == "auto", candidates[0]
print("tune json: %d candidates, %d events" % (result["candidates"], len(events)))
