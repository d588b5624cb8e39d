#!/usr/bin/env python3
"""The transformer-block benchmark of docs/benchmarks.md, on a GPU host, in
one command (block-bench.sh is its shell entry):

  python3 examples/bench/block_bench.py TIRX [OUT_DIR] [--time S] [--deadline S]
        [--payload FILE.mlir] [--runner TIRX-RUN] [--compile-only] [--no-peers]
        [--samples N] [--peers-timeout S] [--precisions tf32,ieee] [--tune-arg A]...

TIRX is a tirx binary (on the GPU host the static one of `make pack`, with
tirx-run beside it). The steps, each a child process whose output is kept in
OUT_DIR, each bounded in time; a step that fails or times out is recorded
and the next ones still run:

1. profile: `tirx profile PAYLOAD --workspace OUT/ws` splits the block
   (examples/transformer-block.mlir: 20 kernels, one per linalg op, a fill
   with its consumer), schedules each with `tirx auto`, checks and times
   each (tirx-run: 3 input sets, L2 flushed before each sample, the median)
   and ranks them by time share (OUT/ws/profile.json).
2. whole: the same payload as ONE bundle (`tirx init` + `tirx auto`: every
   op scheduled by the same rules, 32 launches in program order, the
   intermediates in scratch buffers) run by `tirx run`: the whole block
   timed in one run, one L2 flush per sample, as torch's block is. Checked
   against the plainly mapped seed first; if that check fails (tirx-run's
   inputs are uniform in [-1, 1): the softmax is then nearly one-hot and
   tf32 products flip near-ties), run again against itself (`--reference`
   the same version: a timing, its check only the determinism of the
   bundle), which the table says.
3. peers: block_peers.py (torch eager and torch.compile of the same block
   at tf32 and ieee, timed by timing.py's loop) in a child process.
4. tune: `tirx tune --kernels --workspace OUT/ws --time T --json`: the
   kernels tuned hottest first, each its share of T; the block's time before
   (the automatic schedules) and after (each kernel's best) as the sum of the
   kernels' full timings. T is --time, cut to what is left of --deadline
   less 60 s for the tune's last phases (full checks, paired runs) and 45 s
   for step 5.
5. compose: the profile's kernels put back together into one bundle
   (block_compose.py), with their automatic schedules and with each
   kernel's best from the tune, each timed by tirx-run in one run of the
   whole block: the tuned block timed as torch's is. The automatic one is
   checked against step 2's bundle (the same schedules op by op: a check of
   the composition); the tuned one has no block reference (see step 2: a
   check against another schedule flips near-ties), only tirx-run's
   determinism check; each of its kernels passed its full checks in the tune.

--deadline S (default 450): seconds from the start by which every step is
over (SIGTERM then, SIGKILL 30 s later), so the whole command fits in one
600 s call of the GPU host.

Writes OUT/block.json (every figure, each step's status and command) and
OUT/block.md (the tables for docs/benchmarks.md, also printed), beside
each step's .out and .err, profile.json and block-peers.json: OUT's files
without its folders (ws, whole, cache: the workspaces) are the record. Exit 0 when
every step succeeded, else 1; the files are written either way. --runner
(test/Tune/fake_runner.py, a stand-in) and --compile-only give the same
path without a GPU (then with --no-peers); --payload another multi-op
payload (the peers implement the transformer block only: skipped then).
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BLOCK = os.path.join(ROOT, "examples", "transformer-block.mlir")
TUNE_RESERVE_S = 60     # the tune's last phases (full checks, paired runs)
COMPOSE_S = 45          # the composed bundles' two runs, after the tune


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def last_json_line(path):
    """The last line of a JSON-lines file that parses (None without one)."""
    try:
        lines = open(path).read().strip().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            v = json.loads(line)
            if isinstance(v, dict):
                return v
        except ValueError:
            continue
    return None


def json_of(path):
    """The JSON object a `tirx ... --json` printed to `path` (its last object:
    tirx prints one; a runner's messages may precede it on stderr only)."""
    try:
        text = open(path).read()
    except OSError:
        return None
    start = text.find("{")
    while start >= 0:
        try:
            return json.loads(text[start:])
        except ValueError:
            start = text.find("{", start + 1)
    return None


GRACE_S = 30            # from SIGTERM to SIGKILL
END = {"at": None}      # the wall-clock time no step may outlast (main sets it)


def step(log, name, cmd, out, timeout, env, stdout_name=None, term_group=False):
    """Runs `cmd` in a session of its own, its stdout into OUT/<stdout_name or
    name>.out, stderr into .err. At `timeout` seconds (cut to END) SIGTERM
    goes to the process (tirx tune stops between steps and reports), or with
    `term_group` to its whole group (torch.compile's worker processes);
    GRACE_S later SIGKILL to the group. Appends the step's record to `log`."""
    base = os.path.join(out, stdout_name or name)
    if END["at"] is not None:
        timeout = max(5, min(timeout, int(END["at"] - time.time())))
    rec = {"step": name, "command": " ".join(cmd), "timeout_s": timeout}
    start = time.time()
    print("block-bench: %s (at most %d s)" % (name, timeout), file=sys.stderr)
    try:
        with open(base + ".out", "w") as f, open(base + ".err", "w") as err:
            p = subprocess.Popen(cmd, stdout=f, stderr=err, env=env, start_new_session=True)
            try:
                rec["exit"] = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                rec["timed_out"] = True
                try:
                    if term_group:
                        os.killpg(p.pid, signal.SIGTERM)
                    else:
                        p.send_signal(signal.SIGTERM)
                    rec["exit"] = p.wait(timeout=GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # what is left of its group
                except ProcessLookupError:
                    pass
                rec["exit"] = p.wait()
    except OSError as e:
        rec["exit"] = None
        rec["error"] = "%s: %s" % (type(e).__name__, e)
    rec["wall_s"] = round(time.time() - start, 1)
    rec["ok"] = rec.get("exit") == 0 and not rec.get("timed_out")
    rec["stdout"] = os.path.basename(base + ".out")
    log.append(rec)
    return rec


def math_of(ws, version):
    """The `math` of a version's bundle (ieee, tf32, f16, bf16), None when it
    was not bundled."""
    if not version:
        return None
    m = load(os.path.join(ws, "bundles", version, "manifest.json"))
    return (m or {}).get("math")


def short_ops(ops):
    """linalg.fill at f:44:10, linalg.matmul at f:45:8 -> fill+matmul @45"""
    names = [o.split(" at ")[0].replace("linalg.", "") for o in ops or []]
    line = (ops or [""])[-1].rsplit(":", 2)
    where = " @%s" % line[-2] if len(line) == 3 else ""
    return "+".join(names) + where


# -- the steps ---------------------------------------------------------------

def profile_step(args, log, env):
    cmd = [args.tirx, "profile", args.payload, "--workspace", args.ws]
    if args.compile_only:
        cmd.append("--compile-only")
    if args.runner:
        cmd += ["--runner", args.runner]
    if args.samples:
        cmd += ["--samples", str(args.samples)]
    rec = step(log, "profile", cmd, args.out, args.profile_timeout, env)
    profile = load(os.path.join(args.ws, "profile.json"))
    if profile is None:
        rec["ok"] = False
        return None
    # A copy beside block.json: OUT without its workspaces is the record.
    shutil.copyfile(os.path.join(args.ws, "profile.json"), os.path.join(args.out, "profile.json"))
    total = profile.get("total_us") or 0
    rows = []
    for k in profile.get("kernels") or []:
        us = k.get("duration_us")
        kws = os.path.join(args.ws, k.get("workspace") or "")
        rows.append({"kernel": k.get("name"), "ops": short_ops(k.get("ops")),
                     "status": k.get("status"), "version": k.get("version"),
                     "duration_us": us, "share": us / total if us and total else None,
                     "math": math_of(kws, k.get("version")),
                     "detail": k.get("detail")})
    rows.sort(key=lambda r: -(r["duration_us"] or -1))
    for i, r in enumerate(rows):
        r["rank"] = i + 1
    untimed = [r["kernel"] for r in rows if r["status"] != "timed"]
    if untimed and not args.compile_only:  # the block's sum would be partial
        rec["ok"] = False
        rec["error"] = "not timed: " + ", ".join(untimed)
    return {"total_us": profile.get("total_us"), "compile_only": profile.get("compile_only"),
            "kernels": rows}


def whole_step(args, log, env):
    """The whole payload as one bundle, scheduled by `tirx auto`, run once."""
    ws = os.path.join(args.out, "whole")
    result = {"workspace": "whole"}
    if not os.path.exists(os.path.join(ws, "workspace.json")):
        rec = step(log, "whole-init", [args.tirx, "init", args.payload, "--workspace", ws,
                                       "--json"], args.out, 120, env)
        if not rec["ok"]:
            result["error"] = "init failed (whole-init.err)"
            return result
    rec = step(log, "whole-auto", [args.tirx, "auto", "v1", "--workspace", ws,
                                   "--max-steps", "1000", "--json"], args.out, 300, env)
    auto = json_of(os.path.join(args.out, "whole-auto.out")) or {}
    version = auto.get("final_version") if auto.get("ok") else None
    if not rec["ok"] or not version:
        rec["ok"] = False
        result["error"] = "auto did not map the block (whole-auto.err)"
        return result
    result["version"] = version
    result["math"] = None
    if args.compile_only:
        result["status"] = "scheduled"
        return result
    runner = ["--runner", args.runner] if args.runner else []
    samples = ["--samples", str(args.samples)] if args.samples else []
    for attempt, ref in (("whole-run", []), ("whole-run-self", ["--reference", version])):
        rec = step(log, attempt, [args.tirx, "run", version, "--workspace", ws, "--json"]
                   + ref + runner + samples, args.out, args.whole_timeout, env)
        fb = (json_of(os.path.join(args.out, attempt + ".out")) or {}).get("feedback") or {}
        entry = {"correctness": fb.get("correctness"), "rel_l2": fb.get("rel_l2_error"),
                 "duration_us": fb.get("duration_us"), "samples": fb.get("sample_count"),
                 "launches": fb.get("launch_count"), "flops": fb.get("flops"),
                 "bytes_moved": fb.get("bytes_moved"),
                 "reference": "itself" if ref else "seed, mapped plainly"}
        result["math"] = math_of(ws, version) or result["math"]
        manifest = load(os.path.join(ws, "bundles", version, "manifest.json")) or {}
        entry["launches"] = len(manifest.get("kernels") or []) or entry["launches"]
        result.setdefault("runs", []).append(entry)
        if fb.get("correctness") == "pass" and fb.get("duration_us"):
            result.update(entry)
            result["status"] = "timed"
            if ref:  # the check against the seed failed: say so, not fatal
                rec["ok"] = True
            return result
        if ref:
            break
        rec["ok"] = True  # the self-referenced run decides
    result["status"] = "not timed"
    log[-1]["ok"] = False
    return result


def peers_step(args, log, env):
    out = os.path.join(args.out, "block-peers.json")
    cmd = [sys.executable, os.path.join(HERE, "block_peers.py"), "-o", out,
           "--precisions", args.precisions, "--compile-precisions", args.compile_precisions]
    if args.samples:
        cmd += ["--samples", str(args.samples)]
    rec = step(log, "peers", cmd, args.out, args.peers_timeout, env, term_group=True)
    peers = load(out)
    if peers is None:
        rec["ok"] = False
    return peers


def tune_step(args, log, env, started):
    left = args.deadline - (time.time() - started) - TUNE_RESERVE_S - COMPOSE_S
    seconds = int(max(30, min(args.time, left)))
    cmd = [args.tirx, "tune", "--kernels", "--workspace", args.ws, "--time", str(seconds),
           "--json"] + args.tune_arg
    if args.compile_only:
        cmd.append("--compile-only")
    if args.runner:
        cmd += ["--runner", args.runner]
    rec = step(log, "tune", cmd, args.out, seconds + TUNE_RESERVE_S, env,
               stdout_name="tune")
    rec["time_s"] = seconds
    report = last_json_line(os.path.join(args.out, "tune.out"))
    if not report or "kernels" not in report:
        rec["ok"] = False
        error = (report or {}).get("error") or "no report line (tune.err)"
        return {"time_s": seconds,
                "error": error.get("message", str(error)) if isinstance(error, dict) else error}
    rows = []
    for r in report.get("kernels") or []:
        kws = os.path.join(args.ws, r.get("workspace") or "")
        verdict = ((r.get("speedup_vs_auto") or {}).get("paired") or {})
        rows.append({"rank": r.get("rank"), "kernel": r.get("kernel"), "share": r.get("share"),
                     "profile_us": r.get("profile_us"), "auto_us": r.get("auto_us"),
                     "best_us": r.get("best_us"), "best_version": r.get("best_version"),
                     "best_math": math_of(kws, r.get("best_version")),
                     "candidates": r.get("candidates"), "seconds": r.get("seconds"),
                     "paired": verdict or None, "summary": r.get("summary"),
                     "error": (r.get("error") or {}).get("message")})
    return {"time_s": seconds, "candidates": report.get("candidates"),
            "seconds": report.get("seconds"), "interrupted": report.get("interrupted"),
            "order": report.get("order"), "block_auto_us": report.get("block_auto_us"),
            "block_best_us": report.get("block_best_us"),
            "block_speedup": report.get("block_speedup"),
            "not_tuned": report.get("not_tuned"), "kernels": rows}


def feedback_of(path):
    fb = load(path)
    if isinstance(fb, list):
        fb = fb[0] if fb else None
    return fb if isinstance(fb, dict) else None


def compose_step(args, log, env, result):
    """The profile's kernels (their automatic schedules, then each one's best
    from the tune) put together into one bundle each (block_compose.py) and
    timed by tirx-run in one run of the whole block. The automatic one is
    checked against the whole block's own `tirx auto` bundle (the same
    schedules op by op: a check of the composition); the tuned one has no
    reference (each kernel passed its checks in the tune; tirx-run's
    determinism check still runs)."""
    whole = result.get("whole") or {}
    whole_auto = os.path.join(args.out, "whole", "bundles", whole.get("version") or "-")
    # The block's parameters: from its reference bundle, or its auto bundle.
    ref = os.path.join(args.out, "whole", "bundles", "v1-reference")
    ref = ref if os.path.isdir(ref) else whole_auto
    if not os.path.isdir(whole_auto) or not result.get("profile"):
        return {"note": "not composed: no whole-block bundle or no profile"}
    if END["at"] is not None and END["at"] - time.time() < 15:
        return {"note": "not composed: the deadline is reached"}
    runner = args.runner or os.path.join(os.path.dirname(args.tirx), "tirx-run")
    samples = ["--samples", str(args.samples)] if args.samples else []
    out = {}
    best = {k["kernel"]: k["best_version"] for k in (result.get("tune") or {}).get("kernels") or []
            if k.get("best_version")}
    for which, versions, reference in (("auto", {}, whole_auto), ("best", best, None)):
        if which == "best" and not best:
            out[which] = {"note": "no tuned versions"}
            continue
        bundle = os.path.join(args.out, "composed-" + which)
        cmd = [sys.executable, os.path.join(HERE, "block_compose.py"), args.payload, args.ws,
               ref, bundle] + ["--version=%s=%s" % kv for kv in sorted(versions.items())]
        rec = step(log, "compose-" + which, cmd, args.out, 60, env)
        summary = json_of(os.path.join(args.out, "compose-%s.out" % which)) or {}
        entry = {"launches": summary.get("launches"), "math": summary.get("math"),
                 "versions": summary.get("versions"),
                 "reference": "the whole block's tirx auto bundle" if reference else None}
        out[which] = entry
        if not rec["ok"]:
            entry["error"] = "not composed (compose-%s.err)" % which
            continue
        for attempt, ref in (("", reference), ("-unchecked", None)):
            name = "composed-%s-run%s" % (which, attempt)
            fbfile = os.path.join(args.out, name + ".json")
            cmd = [runner, bundle, "-o", fbfile] + (["--reference", ref] if ref else []) \
                + samples
            rec = step(log, name, cmd, args.out, 90, env)
            fb = feedback_of(fbfile) or {}
            if ref:
                entry.update({"correctness": fb.get("correctness"),
                              "rel_l2": fb.get("rel_l2_error")})
            entry.update({"duration_us": fb.get("duration_us"), "samples": fb.get("sample_count"),
                          "determinism": fb.get("bitwise_reproducible"),
                          "timed_against": "reference" if ref else "none"})
            if not fb.get("duration_us") or fb.get("correctness") == "fail":
                rec["ok"] = False
            if not ref or fb.get("correctness") != "fail":
                break
            # The composition differs from the whole block's bundle somewhere
            # (a near-tie flipped, or a wrong composition): recorded, and the
            # composed bundle timed unchecked below.
            rec["ok"] = False
    return out


# -- the tables --------------------------------------------------------------

def num(v, fmt="%.1f"):
    return fmt % v if isinstance(v, (int, float)) else "-"


def ratio(a, b):
    return "%.3f" % (a / b) if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
        and a and b else "-"


def peer_pick(peers, precision, kind, form=None):
    """The passing peer of `kind` (and `form`) at `precision` (None if none)."""
    for e in ((peers or {}).get("block") or {}).get("entries") or []:
        if e.get("precision") == precision and e.get("kind") == kind \
                and e.get("check") == "pass" and (form is None or e.get("form") == form):
            return e
    return None


def fastest_eager(peers, precision):
    es = [e for e in ((peers or {}).get("block") or {}).get("entries") or []
          if e.get("precision") == precision and e.get("kind") == "torch"
          and e.get("check") == "pass"]
    return min(es, key=lambda e: e["median_us"]) if es else None


def math_label(kernels):
    """The precisions of (name, math) kernels: "matmuls tf32, rest ieee"."""
    mm, rest = set(), set()
    for name, math in kernels:
        if math:
            (mm if "matmul" in (name or "") else rest).add(math)
    parts = (["matmuls " + "/".join(sorted(mm))] if mm else []) + \
        (["rest " + "/".join(sorted(rest))] if rest else [])
    return ", ".join(parts) or "-"


def summary_rows(result):
    """(label, microseconds, how it was timed, precision) of TIRx's block."""
    tune = result.get("tune") or {}
    whole = result.get("whole") or {}
    prof = result.get("profile") or {}
    maths = math_label((k["kernel"], k.get("math")) for k in prof.get("kernels") or [])
    best_maths = math_label((k["kernel"], k.get("best_math")) for k in tune.get("kernels") or [])
    kernels = prof.get("kernels") or []
    timed = sum(1 for k in kernels if k.get("duration_us"))
    rows = [("TIRx, `tirx auto` per kernel (profile)", prof.get("total_us"),
             "sum of %d kernels, each timed alone, L2 flushed" % timed
             + ("" if timed == len(kernels) else " (of %d: a partial sum)" % len(kernels)),
             maths),
            ("TIRx, `tirx auto` per kernel (tune's baseline)", tune.get("block_auto_us"),
             "sum of the kernels' full timings in the tune", maths),
            ("TIRx, tuned (each kernel's best)", tune.get("block_best_us"),
             "sum of the kernels' full timings in the tune", best_maths),
            ("TIRx, `tirx auto` of the whole block, one bundle", whole.get("duration_us"),
             "one run of %s launches, one L2 flush (checked against %s)"
             % (whole.get("launches") or "all", whole.get("reference") or "-"),
             whole.get("math") or "-")]
    composed = result.get("composed") or {}
    for which, label, checked in (
            ("auto", "TIRx, `tirx auto` per kernel, composed into one bundle",
             "checked against the whole block's auto bundle: %s"),
            ("best", "TIRx, tuned, composed into one bundle",
             "not checked as a block: each kernel was in its tune; bitwise reproducible: %s")):
        c = composed.get(which) or {}
        value = c.get("correctness") if which == "auto" else c.get("determinism")
        if which == "auto" and value == "fail":
            value = "fail (rel L2 %s), then timed unchecked" % num(c.get("rel_l2"), "%.1e")
        rows.append((label, c.get("duration_us"), "one run of %s launches, one L2 flush (%s)"
                     % (c.get("launches") or "all", checked % (
                         "-" if value is None else value)), c.get("math") or "-"))
    return rows


def render(result):
    lines = []
    meta = (result.get("peers") or {}).get("meta") or {}
    payload = result["payload"]
    what = "transformer block, 2048 tokens, width 1024, MLP 4096, f32" \
        if os.path.realpath(payload) == os.path.realpath(BLOCK) else "a multi-op payload"
    lines.append("%s (%s); device %s; torch %s, compile mode %s; commit %s; %s."
                 % (os.path.relpath(payload, ROOT) if payload.startswith(ROOT + os.sep)
                    else payload, what, meta.get("device", "-"), meta.get("torch", "-"),
                    meta.get("compile_mode", "-"), result.get("commit") or "-",
                    result["started"]))
    lines.append("")
    # Profile ranking
    prof = result.get("profile") or {}
    lines.append("Profile (`tirx profile`, the automatic schedule of each kernel):")
    lines.append("")
    lines.append("| rank | kernel | ops (line) | math | time (us) | share |")
    lines.append("|---|---|---|---|---|---|")
    for k in prof.get("kernels") or []:
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            k["rank"], k["kernel"], k["ops"], k.get("math") or "-",
            num(k["duration_us"]) if k["duration_us"] else k.get("status") or "-",
            "%.1f%%" % (100 * k["share"]) if k.get("share") else "-"))
    lines.append("")
    # Tune
    tune = result.get("tune") or {}
    if tune.get("kernels"):
        lines.append("Tune (`tirx tune --kernels`, %s s, %s candidates, order: %s%s):"
                     % (tune.get("time_s"), tune.get("candidates"), tune.get("order"),
                        ", interrupted" if tune.get("interrupted") else ""))
        lines.append("")
        lines.append("| rank | kernel | share | auto (us) | best (us) | best / auto "
                     "| verdict (paired) | cands | best version (math) |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for k in tune["kernels"]:
            p = k.get("paired") or {}
            verdict = "-"
            if p.get("low") and p.get("high"):
                verdict = "%s [%.3f, %.3f]" % ("faster" if p.get("winner") == k.get(
                    "best_version") and p.get("winner") else "no difference shown",
                    1 / p["high"], 1 / p["low"])
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s) |" % (
                k["rank"], k["kernel"], "%.1f%%" % (100 * k["share"]) if k.get("share") else "-",
                num(k["auto_us"]), num(k["best_us"]), ratio(k["best_us"], k["auto_us"]),
                verdict, k.get("candidates") if k.get("candidates") is not None else "-",
                k.get("best_version") or "-", k.get("best_math") or "-"))
        lines.append("")
        if tune.get("block_speedup"):
            lines.append("Block: %.1f us with the automatic schedules, %.1f us tuned "
                         "(%.3fx), sums of the kernels' full timings." % (
                             tune["block_auto_us"], tune["block_best_us"],
                             tune["block_speedup"]))
            lines.append("")
    elif tune.get("error"):
        lines.append("Tune: no result (%s)." % tune["error"])
        lines.append("")
    # The block against torch
    peers = result.get("peers")
    lines.append("The block against torch (ratios ours / peer: below 1, TIRx is faster; "
                 "the peers at tf32, the precision of `use_mma`'s matmuls, and at ieee):")
    lines.append("")
    eager = {p: fastest_eager(peers, p) for p in ("tf32", "ieee")}
    comp = {p: peer_pick(peers, p, "torch.compile") for p in ("tf32", "ieee")}
    lines.append("| TIRx block | how timed | math | us | / eager tf32 | / compile tf32 "
                 "| / eager ieee | / compile ieee |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for label, us, how, math in summary_rows(result):
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, how, math, num(us), ratio(us, (eager["tf32"] or {}).get("median_us")),
            ratio(us, (comp["tf32"] or {}).get("median_us")),
            ratio(us, (eager["ieee"] or {}).get("median_us")),
            ratio(us, (comp["ieee"] or {}).get("median_us"))))
    lines.append("")
    notes = [c.get("note") or c.get("error") for c in
             [result.get("composed") or {}] + list((result.get("composed") or {}).values())
             if isinstance(c, dict) and (c.get("note") or c.get("error"))]
    if notes:
        lines.append("Composed bundles: %s." % "; ".join(notes))
        lines.append("")
    whole = result.get("whole") or {}
    runs = whole.get("runs") or []
    if runs and runs[0].get("correctness") not in (None, "pass"):
        lines.append("The one-bundle block against the plainly mapped seed: %s (rel L2 %s); %s. "
                     "tirx-run's inputs are uniform in [-1, 1): the scores' rows then spread "
                     "by about 100 after the scale, the softmax is nearly one-hot and "
                     "near-ties flip under tf32 products (even under f32 reordering: "
                     "emulated on the CPU, rel L2 6.6e-3 at tf32, elements off at f32); "
                     "each kernel passed its own check in the profile."
                     % (runs[0]["correctness"], num(runs[0].get("rel_l2"), "%.1e"),
                        "timed against itself (its check then only the bundle's "
                        "determinism)" if whole.get("reference") == "itself" else "not timed"))
        lines.append("")
    entries = ((peers or {}).get("block") or {}).get("entries") or []
    if entries:
        lines.append("| peer | precision | median us | min-max | check (rel L2 to float64) "
                     "| kernels | first call s |")
        lines.append("|---|---|---|---|---|---|---|")
        for e in entries:
            lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                e.get("name"), e.get("precision"), num(e.get("median_us")),
                "%s-%s" % (num(e.get("min_us")), num(e.get("max_us"))) if e.get("min_us") else "-",
                "%s (%s)" % (e.get("check"), num(e.get("rel_l2"), "%.1e")),
                len(e["kernels"]) if e.get("kernels") else "-", num(e.get("first_call_s"))))
        agree = ((peers or {}).get("block") or {}).get("agreement") or []
        if agree:
            lines.append("")
            text = []
            for same, what in ((True, "at the same precision"), (False, "across precisions")):
                pairs = [a for a in agree if bool(a.get("same_precision", True)) == same]
                if pairs:
                    worst = max(pairs, key=lambda a: a["rel_l2"])
                    text.append("%s %d pairs, the largest relative L2 %.1e (%s vs %s)" % (
                        what, len(pairs), worst["rel_l2"], worst["a"], worst["b"]))
            lines.append("Peers against each other (same inputs): %s." % "; ".join(text))
        lines.append("")
    elif result.get("peers_note"):
        lines.append("Peers: %s" % result["peers_note"])
        lines.append("")
    lines.append("How the block is timed: TIRx's per-kernel figures are sums of kernels "
                 "each timed alone (its own inputs, L2 flushed before each sample, the "
                 "median); the one-bundle rows and torch's block are one run of the whole "
                 "block per sample (one L2 flush, intermediates through memory).")
    failed = [s["step"] for s in result["steps"] if not s.get("ok")]
    if failed:
        lines.append("")
        lines.append("Steps that failed or timed out: %s (their .err files in OUT)."
                     % ", ".join(failed))
    return "\n".join(lines) + "\n"


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tirx")
    ap.add_argument("out", nargs="?", default="block-bench")
    ap.add_argument("--payload", default=BLOCK)
    ap.add_argument("--time", type=int, default=240, help="the tune's seconds at most")
    ap.add_argument("--deadline", type=int, default=450,
                    help="seconds from the start by which every step is over "
                         "(SIGTERM then, SIGKILL 30 s later); the tune's --time "
                         "is cut to fit, less 60 s for its last phases")
    ap.add_argument("--runner", default="")
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--precisions", default="tf32,ieee",
                    help="the peers' precisions, in the order they run")
    ap.add_argument("--compile-precisions", default="tf32",
                    help="those of them torch.compile runs at (its max-autotune "
                         "takes a minute or more each)")
    ap.add_argument("--profile-timeout", type=int, default=240)
    ap.add_argument("--whole-timeout", type=int, default=120)
    ap.add_argument("--peers-timeout", type=int, default=240)
    ap.add_argument("--tune-arg", action="append", default=[],
                    help="an argument passed on to tirx tune (repeatable)")
    args = ap.parse_args(argv)
    args.tirx = os.path.abspath(args.tirx)
    args.payload = os.path.abspath(args.payload)
    if args.runner:
        args.runner = os.path.abspath(args.runner)
    os.makedirs(args.out, exist_ok=True)
    args.out = os.path.abspath(args.out)
    args.ws = os.path.join(args.out, "ws")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(args.out, "cache"))
    started = time.time()
    END["at"] = started + args.deadline
    result = {"format": "tirx-block-bench", "version": 1, "payload": args.payload,
              "tirx": args.tirx, "commit": os.environ.get("TIRX_BENCH_COMMIT") or git_commit(),
              "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "command": " ".join([os.path.basename(sys.argv[0])] + (argv or sys.argv[1:])),
              "steps": []}
    log = result["steps"]

    def write():
        result["wall_s"] = round(time.time() - started, 1)
        text = json.dumps(result, indent=1, default=str) + "\n"
        tmp = os.path.join(args.out, "block.json.tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(args.out, "block.json"))
        md = render(result)
        with open(os.path.join(args.out, "block.md"), "w") as f:
            f.write(md)
        return md

    result["profile"] = profile_step(args, log, env)
    write()
    result["whole"] = whole_step(args, log, env)
    write()
    same_block = os.path.realpath(args.payload) == os.path.realpath(BLOCK)
    if args.no_peers:
        result["peers_note"] = "not run (--no-peers)."
    elif not same_block:
        result["peers_note"] = "not run: block_peers.py implements %s only." \
            % os.path.relpath(BLOCK, ROOT)
    else:
        result["peers"] = peers_step(args, log, env)
    write()
    if result["profile"] is not None:
        result["tune"] = tune_step(args, log, env, started)
    else:
        log.append({"step": "tune", "ok": False, "error": "no profile to tune"})
    write()
    if not args.compile_only:
        result["composed"] = compose_step(args, log, env, result)
    md = write()
    print(md)
    return 0 if all(s.get("ok") for s in log) else 1


if __name__ == "__main__":
    sys.exit(main())
