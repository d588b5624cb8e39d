#!/usr/bin/env python3
"""`tirx tune` on eight suite payloads, on a GPU host, and the table of
docs/benchmarks.md ("tirx tune"):

  python3 examples/bench/tune_suite.py TIRX [OUT_DIR] [--time S] [--policy P]
                                       [--time-for NAME=S,...] [--budget N]
                                       [--only a,b] [--db FILE] [--jobs N]
                                       [--runner TIRX-RUN] [--no-peers]

Rerunning into the same OUT_DIR resumes each tune and keeps the rows of
payloads not run this time, so the table can be built over several
commands (`--only`).

TIRX is a tirx binary (e.g. the self-contained one of `make pack`: tirx-run
must be beside it or on PATH). For each payload: a workspace OUT_DIR/ws-NAME
(kept: rerunning resumes each tune), `tirx tune v1 --time S --json` (the
search from the seed, unattended; its JSON lines in OUT_DIR/NAME.jsonl),
then torch eager and torch.compile of the same computation timed as
examples/suite/bench.py times them (triton.testing.do_bench: medians, L2
flushed) in this same run. Writes OUT_DIR/tune-suite.json and
OUT_DIR/tune-suite.md (also printed): candidates, candidates per second,
the best time, the automatic (greedy) schedule's time (timed in full by
the same tune, in the same run), ours / greedy with the paired 95%
interval and whether the search beat it (the interval excludes 1), the
precision the best ran at (the feedback's `math`: an f32 matmul's best may
run its products as tf32 on the tensor cores), ours / torch eager and ours /
torch.compile timed at that precision (tf32: torch's f32 matmuls under
set_float32_matmul_precision("high")) (time ratios: below 1, ours is
faster; times in microseconds).

Each payload's tune is bounded by --time S (seconds, the issue's budget is
at most 600), or by --time-for NAME=S for some payloads, and by --budget N
distinct candidates. --runner names a stand-in runner (test/Tune's
fake_runner.py: the table's path without a GPU; --no-peers then).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(os.path.dirname(HERE), "suite")
sys.path.insert(0, SUITE)

# The payloads the issue names: elementwise f32 and f16, a prime length,
# row sum, softmax, RMSNorm, transpose, matmul.
PAYLOADS = ["add_f32", "silu_f16", "exp_prime", "rowsum", "softmax",
            "rmsnorm_weight", "transpose", "matmul_f32"]


def seconds_for(name, args):
    for item in filter(None, args.time_for.split(",")):
        key, _, value = item.partition("=")
        if key == name:
            return int(value)
    return args.time


def tune(tirx, out, name, args):
    ws = os.path.join(out, "ws-" + name)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(out, "cache"))
    if not os.path.isdir(ws):
        subprocess.run([tirx, "init", os.path.join(SUITE, name + ".mlir"),
                        "--workspace", ws], check=True, env=env,
                       stdout=subprocess.DEVNULL)
    cmd = [tirx, "tune", "v1", "--workspace", ws, "--time", str(seconds_for(name, args)),
           "--budget", str(args.budget), "--policy", args.policy, "--json"]
    if args.runner:
        cmd += ["--runner", args.runner]
    if args.db:
        cmd += ["--db", args.db]
    if args.jobs:
        cmd += ["--jobs", str(args.jobs)]
    lines = os.path.join(out, name + ".jsonl")
    start = time.time()
    with open(lines, "w") as f, open(lines + ".err", "w") as err:
        status = subprocess.run(cmd, stdout=f, stderr=err, env=env).returncode
    wall = time.time() - start
    try:
        result = json.loads(open(lines).read().strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"ok": False, "error": {"message": "no result line"}}
    result["wall_s"] = wall
    result["exit_status"] = status
    result["command"] = " ".join(cmd[1:])
    return result


def full_us(candidate):
    m = (candidate or {}).get("full") or {}
    return m.get("median_us") if m.get("correctness") == "pass" else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tirx")
    ap.add_argument("out", nargs="?", default="tune-suite")
    ap.add_argument("--time", type=int, default=600)
    ap.add_argument("--time-for", default="", help="NAME=S,... per payload")
    ap.add_argument("--budget", type=int, default=1000000)
    ap.add_argument("--runner", default="")
    ap.add_argument("--policy", default="evolutionary")
    ap.add_argument("--only", default="")
    ap.add_argument("--db", default="")
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--peer-samples", type=int, default=200,
                    help="samples of each torch peer (medians, as tirx-run times)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in PAYLOADS if not args.only or n in args.only.split(",")]
    # Rows of earlier invocations into the same OUT_DIR are kept (a GPU
    # host's commands may be limited in time: run a few payloads each).
    table_file = os.path.join(args.out, "tune-suite.json")
    try:
        kept = [r for r in json.load(open(table_file)) if r["payload"] not in names]
    except (OSError, ValueError):
        kept = []
    rows = []
    timer = None  # the peers' Timer, made once (examples/bench/timing.py)
    for name in names:
        print("tune: %s (%d s)" % (name, seconds_for(name, args)), file=sys.stderr)
        r = tune(os.path.abspath(args.tirx), args.out, name, args)
        best, auto = full_us(r.get("best")), full_us(r.get("baseline"))
        paired = (r.get("speedup_vs_baseline") or {}).get("paired") or {}
        row = {"payload": name, "ok": r.get("ok"), "candidates": r.get("candidates"),
               "time_s": seconds_for(name, args), "policy": args.policy,
               "beats_greedy": paired.get("winner") == (r.get("best") or {}).get("version")
               and bool(paired.get("winner")),
               "candidates_per_second": r.get("candidates_per_second"),
               "best_us": best, "best_version": (r.get("best") or {}).get("version"),
               "greedy_us": auto, "paired": paired, "wall_s": r["wall_s"],
               "refusals": r.get("refusals"), "summary": r.get("summary"),
               "error": (r.get("error") or {}).get("message"),
               "math": ((r.get("best") or {}).get("full") or {}).get("math") or "ieee"}
        if not args.no_peers:
            import bench as suite_bench  # examples/suite/bench.py
            from timing import Timer  # examples/bench/timing.py
            timer = timer or Timer()
            # At the precision the best ran at (a tf32 best: tf32 peers).
            peers = suite_bench.peer_times(timer, name, args.peer_samples,
                                           row["math"])  # ms
            row["eager_us"] = peers["eager"] * 1e3 if peers.get("eager") else None
            row["compile_us"] = peers["compile"] * 1e3 if peers.get("compile") else None
        rows.append(row)
        json.dump(kept + rows, open(table_file, "w"), indent=1)
    rows = sorted(kept + rows, key=lambda r: PAYLOADS.index(r["payload"])
                  if r["payload"] in PAYLOADS else len(PAYLOADS))

    def ratio(a, b):
        return "%.3f" % (a / b) if a and b else "-"

    def num(v, fmt="%.1f"):
        return fmt % v if v is not None else "-"
    table = ["| payload | candidates | cand/s | best (us) | greedy (us) | ours / greedy "
             "[95% paired] | beats greedy | math | ours / eager | ours / compile |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    beats = 0
    for row in rows:
        p = row["paired"]
        interval = ""
        if p:
            # paired ratio = greedy / ours; print ours / greedy.
            interval = " [%.3f, %.3f]" % (1 / p["high"], 1 / p["low"]) if p.get("low") and p.get("high") else ""
        beats += bool(row.get("beats_greedy"))
        verdict = "yes" if row.get("beats_greedy") else ("no" if p else "-")
        table.append("| %s | %s | %s | %s | %s | %s%s | %s | %s | %s | %s |" % (
            row["payload"], row["candidates"], num(row["candidates_per_second"], "%.2f"),
            num(row["best_us"]), num(row["greedy_us"]), ratio(row["best_us"], row["greedy_us"]),
            interval, verdict, row.get("math", "ieee"), ratio(row.get("best_us"), row.get("eager_us")),
            ratio(row["best_us"], row.get("compile_us"))))
    table.append("")
    for row in rows:
        if not row.get("ok"):
            table.append("- %s: no result (%s)" % (row["payload"], row.get("error") or "see its .jsonl"))
    table.append("The search beats the greedy (automatic) schedule, with 95%% confidence "
                 "(paired interleaved runs), on %d of %d payloads; %s s a payload, policy %s."
                 % (beats, len(rows), ", ".join(sorted({str(r.get("time_s", args.time))
                                                        for r in rows})), args.policy))
    text = "\n".join(table) + "\n"
    open(os.path.join(args.out, "tune-suite.md"), "w").write(text)
    print(text)
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
