#!/usr/bin/env python3
"""The suite benchmark, on a GPU host, in one run on one GPU:
  python3 examples/suite/bench.py [BUILD_DIR] [OUT_DIR] [--only a,b]

For every suite payload whose bundle the build made
(BUILD_DIR/integration-bundles/suite-<name>, from its recipe): tirx-run
checks it against its reference (suite-<name>-ref) and times it (medians,
L2 flushed before each sample, CUDA events); then torch eager and
torch.compile of the equivalent (torch_ref.py) are timed with
examples/bench/timing.py's Timer, which times exactly as tirx-run does
(medians, L2 flushed, CUDA events), as the examples/bench peers are. Prints a table of ratios (peer time / tirx time:
above 1, tirx is faster) and writes OUT_DIR/suite-bench.json.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import torch_ref  # noqa: E402


def size_flags(bundle, name):
    """--size for each run-time dimension of the bundle (docs/bundle.md,
    "Dynamic sizes"), at the torch inputs' shapes: the same sizes as the peers."""
    try:
        manifest = json.load(open(os.path.join(bundle, "manifest.json")))
        spec = torch_ref.table()[name][1]
        flags = []
        for s in manifest.get("sizes", []):
            if s["param"] < len(spec):
                flags += ["--size", "%s=%d" % (s["name"], spec[s["param"]][0][s["dim"]])]
        return flags
    except (ImportError, OSError, ValueError, KeyError, IndexError, TypeError):
        return []


def tirx_time(build, bundles, name, out, samples):
    feedback = os.path.join(out, name + ".json")
    bundle = os.path.join(bundles, "suite-" + name)
    if os.path.exists(feedback):
        os.unlink(feedback)  # a stale one from an earlier run is no result
    subprocess.run([os.path.join(build, "bin", "tirx-run"), bundle,
                    "--reference", os.path.join(bundles, "suite-" + name + "-ref"),
                    "-o", feedback] + size_flags(bundle, name)
                   + (["--samples", str(samples)] if samples else []),
                   env=dict(os.environ, XDG_CACHE_HOME=os.path.join(out, "cache")))
    try:
        f = json.load(open(feedback))
    except (OSError, ValueError):
        return None, "no feedback", "ieee"
    if isinstance(f, list):
        f = f[0]
    d = f.get("duration_us")
    return (d / 1e3 if d else None), f.get("correctness"), f.get("math") or "ieee"


def peer_times(timer, name, samples, math="ieee"):
    """torch eager and torch.compile of the payload, each timed by
    examples/bench/timing.py's Timer: tirx-run's own loop (warm-up, L2 flush
    before each sample, CUDA events, median), so the ratios compare like
    with like. `math`: the precision ours ran at (the feedback's `math`):
    at tf32, f32 matmuls are torch's under
    torch.set_float32_matmul_precision("high") (cuBLAS and Inductor's
    templates on the tensor cores), else "highest" (ieee f32)."""
    import torch
    from timing import compile_fn
    fn, spec = torch_ref.table()[name]
    args = torch_ref.inputs(spec)
    out = {"math": math, "wall_s": {}}
    torch.set_float32_matmul_precision("high" if math == "tf32" else "highest")
    try:
        for label, g in (("eager", fn), ("compile", None)):
            try:
                t0 = time.perf_counter()
                if g is None:
                    # A fresh Dynamo per payload: one long run over the
                    # suite would otherwise reach its recompile limit
                    # (silu_f16's torch.compile failed so in session 6).
                    torch._dynamo.reset()
                    g = compile_fn(fn)
                g(*args)  # compiles, autotunes
                torch.cuda.synchronize()
                out["wall_s"][label + "_first_call"] = round(time.perf_counter() - t0, 2)
                out[label] = timer.time(lambda: g(*args), None, samples)["median"] / 1e3
            except Exception as e:  # a peer that fails is reported, not fatal
                out[label] = None
                out[label + "_error"] = str(e)[:200]
    finally:
        torch.set_float32_matmul_precision("highest")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("out", nargs="?", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--samples", type=int, default=0,
                    help="samples per kernel, tirx-run and peers alike (0: tirx-run's rule)")
    ap.add_argument("--bundles", default="",
                    help="the suite bundles (suite-<name>, suite-<name>-ref); "
                         "default BUILD/integration-bundles (check_suite.py "
                         "--bundles writes a recipe variant's)")
    args = ap.parse_args()
    from timing import Timer
    timer = Timer()
    out = args.out or os.path.join(args.build, "bench", "suite")
    os.makedirs(out, exist_ok=True)
    bundles = args.bundles or os.path.join(args.build, "integration-bundles")
    names = sorted(torch_ref.table().keys())
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    rows = []
    fmt = "%-18s %10s %10s %10s %9s %9s  %s"
    print(fmt % ("payload", "tirx ms", "eager ms", "compile ms", "eager/t", "compile/t", "correctness"))
    for name in names:
        if not os.path.isdir(os.path.join(bundles, "suite-" + name)):
            print(fmt % (name, "-", "-", "-", "-", "-", "no bundle yet (examples/suite/README.md)"))
            rows.append({"payload": name, "bundle": False})
            continue
        t0 = time.perf_counter()
        ours, correctness, math = tirx_time(args.build, bundles, name, out, args.samples)
        t1 = time.perf_counter()
        # The peers at the precision ours ran at (a tf32 matmul: tf32 torch).
        peers = peer_times(timer, name, args.samples or None, math)
        # Where a run's time goes (tirx-run's check and timing, the peers'
        # compilation and autotuning): what a device call must allow for.
        wall = dict(peers.pop("wall_s"), tirx_run=round(t1 - t0, 2),
                    payload=round(time.perf_counter() - t0, 2))
        e, c = peers.get("eager"), peers.get("compile")
        ratio = lambda p: "%.3f" % (p / ours) if p and ours else "-"  # noqa: E731
        num = lambda v: "%.4f" % v if v else "-"  # noqa: E731
        print(fmt % (name, num(ours), num(e), num(c), ratio(e), ratio(c),
                     "%s%s" % (correctness, "" if math == "ieee" else " (%s, peers too)" % math)))
        for k, v in peers.items():
            if k.endswith("_error"):
                print("  %s: %s failed: %s" % (name, k[:-len("_error")], v))
        sys.stdout.flush()
        rows.append({"payload": name, "bundle": True, "tirx_ms": ours, "correctness": correctness,
                     "math": math,
                     "torch_eager_ms": e, "torch_compile_ms": c, "wall_s": wall,
                     **{k: v for k, v in peers.items()
                                                                   if k.endswith("_error")}})
        # After each payload: a run cut short (a device call's time limit)
        # keeps what it measured.
        json.dump(rows, open(os.path.join(out, "suite-bench.json"), "w"), indent=1)
    json.dump(rows, open(os.path.join(out, "suite-bench.json"), "w"), indent=1)
    timed = [r for r in rows if r.get("wall_s")]
    if timed:
        print("wall: %.0f s for %d payloads (tirx-run %.0f s, torch.compile's first calls %.0f s)" % (
            sum(r["wall_s"]["payload"] for r in timed), len(timed),
            sum(r["wall_s"]["tirx_run"] for r in timed),
            sum(r["wall_s"].get("compile_first_call", 0) for r in timed)))


if __name__ == "__main__":
    main()
