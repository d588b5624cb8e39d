#!/usr/bin/env python3
"""Several agents at once on one workspace.

  concurrency.py TIRX PAYLOAD WORKDIR [PROCESSES] [REQUESTS]

Each process applies REQUESTS scripts to v1: distinct tilings, every fifth
one a script that fails, and one request that every process makes (the same
script: it must become one version, or be answered from the first). Then
checks: every request got exactly one version or one recorded refusal; no two
versions share an id; ids are v1..vN without gaps; the index, the request
records and the audit log agree; replay reproduces every version; a reader
running `tirx log` meanwhile never fails.
"""
import json
import multiprocessing
import os
import subprocess
import sys

TILE = """// tile {size}
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %g = transform.structured.match ops{{["linalg.generic"]}} in %root
        : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_forall %g tile_sizes [{size}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }}
}}
"""
FAIL = """// failing {tag}
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %f = transform.structured.match ops{{["func.func"]}} in %root
        : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_forall %f tile_sizes [4]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }}
}}
"""


def agent(args):
    tirx, ws, workdir, p, requests = args
    results = []
    for r in range(requests):
        if r == requests // 2:
            name, text = "shared", TILE.format(size=7)
        elif r % 5 == 4:
            name, text = "fail-%d-%d" % (p, r), FAIL.format(tag="%d-%d" % (p, r))
        else:
            size = 1000 + p * requests + r
            name, text = "tile-%d" % size, TILE.format(size=size)
        script = os.path.join(workdir, "%s-%d-%d.mlir" % (name, p, r))
        with open(script, "w") as f:
            f.write(text)
        run = subprocess.run([tirx, "apply", "v1", "--script", script,
                              "--workspace", ws, "--json", "--actor", "agent%d" % p],
                             stdout=subprocess.PIPE, text=True)
        out = json.loads(run.stdout)
        results.append({"name": name, "exit": run.returncode,
                        "version": out.get("version", {}).get("id"),
                        "error": out.get("error", {}).get("code"),
                        "reason": out.get("error", {}).get("message", "")[:300]})
    return results


def main():
    tirx, payload, workdir = sys.argv[1:4]
    processes = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    requests = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    ws = os.path.join(workdir, "ws")
    subprocess.run([tirx, "init", payload, "--workspace", ws], check=True,
                   stdout=subprocess.DEVNULL)
    problems = []
    with multiprocessing.Pool(processes) as pool:
        pending = pool.map_async(agent, [(tirx, ws, workdir, p, requests)
                                         for p in range(processes)])
        # A reader while they write: `tirx log` must never see a line that a
        # writer is still appending (readers take the lock shared).
        reads = 0
        while not pending.ready():
            log = subprocess.run([tirx, "log", "--workspace", ws, "--json"],
                                 stdout=subprocess.PIPE, text=True)
            reads += 1
            if log.returncode != 0:
                problems.append("a concurrent `tirx log` failed: %s"
                                % log.stdout[-300:])
        per_agent = pending.get()
    results = [r for rs in per_agent for r in rs]

    # Every request: one version or one refusal.
    for r in results:
        ok = r["exit"] == 0 and r["version"] and not r["error"]
        refused = r["exit"] == 1 and r["error"] and not r["version"]
        if ok == refused:
            problems.append("request %s: neither one version nor one refusal: %s"
                            % (r["name"], r))
        if r["name"].startswith("fail") and not refused:
            problems.append("failing script %s was not refused" % r["name"])
        if r["name"].startswith("tile") and not ok:
            problems.append("script %s was refused: %s" % (r["name"], r))

    # The shared request became one version.
    shared = [r for r in results if r["name"] == "shared"]
    if len({r["version"] for r in shared}) != 1 or not shared[0]["version"]:
        problems.append("the shared request gave %s" % shared)

    index = [json.loads(l) for l in open(os.path.join(ws, "index.jsonl"))]
    ids = [e["id"] for e in index]
    if ids != ["v%d" % (i + 1) for i in range(len(ids))]:
        problems.append("ids are not v1..vN in order: %s" % ids)
    accepted = {r["version"] for r in results if r["version"]}
    if accepted != set(ids[1:]):
        problems.append("index versions %d, accepted versions %d"
                        % (len(ids) - 1, len(accepted)))
    distinct_ok = {r["name"] for r in results if r["version"]}
    if len(distinct_ok) != len(ids) - 1:
        problems.append("%d distinct accepted scripts but %d versions"
                        % (len(distinct_ok), len(ids) - 1))

    requests_log = [json.loads(l) for l in open(os.path.join(ws, "requests.jsonl"))]
    signatures = [q["signature"] for q in requests_log]
    if len(signatures) != len(set(signatures)):
        problems.append("a request signature is recorded twice")
    distinct_names = {r["name"] for r in results}
    if len(signatures) != len(distinct_names):
        problems.append("%d request records for %d distinct requests"
                        % (len(signatures), len(distinct_names)))

    audit = [json.loads(l) for l in open(os.path.join(ws, "audit.jsonl"))]
    applies = [a for a in audit if a["command"] == "apply"]
    if len(applies) != len(results):
        problems.append("%d apply requests but %d audit lines"
                        % (len(results), len(applies)))
    audited = {a["version"] for a in applies if a["outcome"] == "accepted"}
    if audited != accepted:
        problems.append("audit and index disagree on the versions")

    replay = subprocess.run([tirx, "replay", "--workspace", ws, "--json"],
                            stdout=subprocess.PIPE, text=True)
    summary = json.loads(replay.stdout)
    if replay.returncode != 0 or summary["failed"] != 0:
        problems.append("replay failed: %s" % replay.stdout[-500:])

    print("requests %d, versions %d, refusals %d, replayed %d"
          % (len(results), len(ids) - 1,
             sum(1 for r in results if r["error"]), summary.get("reproduced", -1)))
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("consistent")


if __name__ == "__main__":
    main()
