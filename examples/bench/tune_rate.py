#!/usr/bin/env python3
"""End-to-end screening rate of `tirx tune` (issue 12: at least 20
candidates per second on one H200 host for the 2^26-element saxpy and for
2^20-element elementwise kernels; compiled in parallel, measured one at a
time, every candidate checked):

  python3 examples/bench/tune_rate.py TIRX [OUT_DIR] [--budget N] [--jobs N]
          [--policy P] [--only a,b] [--compile-only] [--runner TIRX-RUN]
          [--min-rate R]

For each payload, a fresh workspace (nothing resumed, nothing reused from
an earlier run) and `tirx tune v1 --budget N --json`: candidates, the
search's seconds and candidates per second (the tune's report: distinct
candidates over the search loop's wall time, screening included, the full
checks and paired runs of the best after it not), the builds, how many took
a build process (the others were realized from what earlier builds taught),
the duplicates, and the CPU time of the tune and all its processes per
candidate (getrusage of the children), with the build phases per build
process. The payloads: examples/saxpy.mlir (2^26 f32) and, at 2^20
elements, saxpy, axpby and residual_relu (the suite's, resized).

--compile-only: on a machine without a GPU (builds and lowers, measures
nothing): the build side's rate alone. --min-rate R fails when a payload's
rate is below R or a tune did not end ok. Prints one line a payload and
writes OUT_DIR/tune-rate.json.
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)

# name -> (source payload, elements it is resized to; None: as it is)
PAYLOADS = {
    "saxpy_2e26": (os.path.join(EXAMPLES, "saxpy.mlir"), None),
    "saxpy_2e20": (os.path.join(EXAMPLES, "saxpy.mlir"), 1 << 20),
    "axpby_2e20": (os.path.join(EXAMPLES, "suite", "axpby.mlir"), 1 << 20),
    "residual_relu_2e20": (os.path.join(EXAMPLES, "suite", "residual_relu.mlir"), 1 << 20),
}


def payload_text(source, elements):
    text = open(source).read()
    if elements is None:
        return text
    if "67108864" not in text:
        sys.exit("%s: no 2^26 extent to resize" % source)
    return text.replace("67108864", str(elements))


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(tirx, out, name, args):
    source, elements = PAYLOADS[name]
    mlir = os.path.join(out, name + ".mlir")
    with open(mlir, "w") as f:
        f.write(payload_text(source, elements))
    ws = os.path.join(out, "ws-" + name)
    shutil.rmtree(ws, ignore_errors=True)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(out, "cache"))
    subprocess.run([tirx, "init", mlir, "--workspace", ws], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    cmd = [tirx, "tune", "v1", "--workspace", ws, "--budget", str(args.budget),
           "--policy", args.policy, "--seed", str(args.seed), "--json"]
    if args.jobs:
        cmd += ["--jobs", str(args.jobs)]
    if args.compile_only:
        cmd.append("--compile-only")
    if args.runner:
        cmd += ["--runner", args.runner]
    lines = os.path.join(out, name + ".jsonl")
    cpu0, start = cpu_of_children(), time.time()
    with open(lines, "w") as f, open(lines + ".err", "w") as err:
        status = subprocess.run(cmd, stdout=f, stderr=err, env=env).returncode
    wall, cpu = time.time() - start, cpu_of_children() - cpu0
    try:
        result = json.loads(open(lines).read().strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"ok": False}
    report = result if result.get("ok") else {}
    candidates = report.get("candidates", 0)
    processes = report.get("build_processes", 0)
    phases = report.get("build_phases_ms", {})
    row = {
        "payload": name,
        "ok": bool(result.get("ok")) and status == 0,
        "exit_status": status,
        "command": " ".join(cmd[1:]),
        "candidates": candidates,
        "failed_builds": report.get("failed_builds", 0),
        "duplicates": report.get("duplicates", 0),
        "builds": report.get("built", 0),
        "build_processes": processes,
        "exhausted": report.get("exhausted", False),
        "search_s": report.get("search_seconds", 0.0),
        "rate": report.get("candidates_per_second", 0.0),
        "wall_s": wall,
        "cpu_s": cpu,
        "cpu_per_candidate_s": cpu / candidates if candidates else None,
        "ms_per_build_process": {k: v / processes for k, v in phases.items()}
                                if processes else {},
        "error": None if result.get("ok") else result.get("error"),
    }
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tirx")
    ap.add_argument("out", nargs="?", default="tune-rate")
    ap.add_argument("--budget", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--policy", default="evolutionary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--runner", default="")
    ap.add_argument("--min-rate", type=float, default=0.0)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in PAYLOADS if not args.only or n in args.only.split(",")]
    if not names:
        sys.exit("no payload named in --only (known: %s)" % ", ".join(PAYLOADS))
    rows, status = [], 0
    for name in names:
        r = run(os.path.abspath(args.tirx), args.out, name, args)
        rows.append(r)
        phases = " ".join("%s %.0f" % kv for kv in sorted(r["ms_per_build_process"].items()))
        print("%s: %d candidates in %.2f s: %.1f candidates/s%s (%s; %d builds, %d in "
              "a build process, %d duplicates, %d failed%s; CPU %.3f s a candidate; "
              "ms a build process: %s)" % (
                  r["payload"], r["candidates"], r["search_s"], r["rate"],
                  "" if r["ok"] else " NOT OK (exit %d: %s)" % (r["exit_status"], r["error"]),
                  "compile only" if args.compile_only else "screened on the GPU",
                  r["builds"], r["build_processes"], r["duplicates"], r["failed_builds"],
                  ", space exhausted" if r["exhausted"] else "",
                  r["cpu_per_candidate_s"] or 0.0, phases or "-"))
        sys.stdout.flush()
        if not r["ok"] or r["rate"] < args.min_rate:
            status = 1
    with open(os.path.join(args.out, "tune-rate.json"), "w") as f:
        json.dump({"budget": args.budget, "jobs": args.jobs, "policy": args.policy,
                   "compile_only": args.compile_only, "rows": rows}, f, indent=1)
    if args.min_rate and status:
        print("below %.1f candidates/s, or a tune failed" % args.min_rate)
    return status


if __name__ == "__main__":
    sys.exit(main())
