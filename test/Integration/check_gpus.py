"""Compares a plain `tirx tune --json` run with a `--gpus all` one (same
seed, policy, budget): the executor's report, every screening run of the
state naming its GPU and copy bandwidth, none lost, and the same best
schedule; where timing noise flips two candidates, a tie: each run's best
within 3% of the other's best in both runs' figures.

usage: check_gpus.py PLAIN.jsonl GPUS.jsonl GPUS_WORKSPACE/tune"""
import glob
import json
import os
import sys


def load(path):
    events = [json.loads(l) for l in open(path) if l.strip()]
    result = events[-1]
    assert result["event"] == "result" and result["ok"], result
    return events, result


plain_events, plain = load(sys.argv[1])
gpus_events, gpus = load(sys.argv[2])
ex = gpus.get("executor")
assert ex and ex["kind"] == "local" and ex["gpus"] >= 1, ex
print("executor local: %d GPU(s), %d workers started, %d retried"
      % (ex["gpus"], ex["workers_started"], ex["retried"]))
for state in glob.glob(os.path.join(sys.argv[3], "*.jsonl")):
    for line in open(state):
        r = json.loads(line)
        if r["kind"] == "measured" and r["phase"] == "screen":
            m = r["measurement"]
            assert m.get("device", "").startswith("gpu"), r
            assert m.get("copy_gbps", 0) > 0, r
            assert m.get("code") not in ("worker_lost", "runner_failed"), r
print("every screening run names its GPU and copy bandwidth")


def schedule(c):
    return json.dumps(c["schedule"], sort_keys=True)


def screened(events):
    """schedule -> screening median of a run's candidates."""
    out = {}
    for e in events:
        if e["event"] == "candidate" and e.get("screening", {}).get("median_us"):
            out[schedule(e)] = e["screening"]["median_us"]
    return out


a, b = plain["best"], gpus["best"]
assert a and b, (a, b)
if schedule(a) == schedule(b):
    print("best schedule: same (%s and %s)" % (a["version"], b["version"]))
else:
    sa, sb = screened(plain_events), screened(gpus_events)
    for run, s in (("plain", sa), ("gpus", sb)):
        ta, tb = s.get(schedule(a)), s.get(schedule(b))
        assert ta and tb, ("both bests not screened in the %s run" % run, ta, tb)
        assert abs(ta - tb) <= 0.03 * min(ta, tb), (run, ta, tb)
    print("best schedule: a tie within 3%% (%s and %s)" % (a["version"], b["version"]))
