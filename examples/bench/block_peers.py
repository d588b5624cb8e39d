#!/usr/bin/env python3
"""Peers of the transformer-block benchmark (examples/bench/block-bench.sh):
the block of examples/transformer-block.mlir (pre-norm, single head, f32;
2048 tokens, width 1024, MLP width 4096) in torch, timed on the same GPU in
the same run as TIRx's kernels, by timing.py's loop (tirx-run's warm-up,
L2 flush before each sample, sample count and median):

  python3 examples/bench/block_peers.py [-o FILE] [--samples N]
                                        [--precisions tf32,ieee]
                                        [--compile-precisions tf32,ieee] [--no-profile]

The block, as the MLIR computes it (each line one linalg op or two):
  n1   = x * rsqrt(sum(x^2, row) * (1/1024) + 1e-6) * g1
  q, k, v = n1 Wq, n1 Wk, n1 Wv
  s    = q k^T
  e    = exp((s - max(s, row)) * 0.03125);  p = e / sum(e, row)
  h    = x + (p v) Wo
  n2   = h * rsqrt(sum(h^2, row) * (1/1024) + 1e-6) * g2
  out  = h + silu(n2 W1) W2,  silu(u) = u / (1 + exp(-u))

Peers, at each precision (torch.set_float32_matmul_precision "high": the
matmuls' products in tf32 on tensor cores, as `tirx auto`'s `use_mma`
schedules compute them, `math: tf32`; "highest": f32 FMA, `ieee`):
- torch eager, op by op as the MLIR writes it (`block_literal`);
- torch eager with torch's fused ops for the same math (`F.rms_norm`,
  `torch.softmax` of the scaled scores, `F.silu`: `block_fused_ops`; the
  softmax of s * 0.03125 equals the MLIR's exp((s - max s) * 0.03125) / sum
  since 0.03125 > 0);
- torch.compile of the literal block (timing.COMPILE_MODE,
  max-autotune-no-cudagraphs unless TIRX_BENCH_COMPILE_MODE says otherwise),
  at the precisions of --compile-precisions (default: all; block-bench.sh
  asks for tf32 alone: the autotuning takes a minute or more each).
Each is checked against the block in float64 with tirx-run's tolerances at
its precision (timing.check), and the peers are compared with each other
(`agreement`: relative L2 between each pair's outputs on the same inputs).

Inputs: x uniform in [-1, 1); the weights uniform in [-1/sqrt(fan_in),
1/sqrt(fan_in)) (nn.Linear's initialisation); g1, g2 uniform in [0.9, 1.1).
(tirx-run draws every input uniform in [-1, 1): with such weights the
scores' rows have a spread of about 100 after the scale, the softmax is
nearly one-hot and a tf32 block flips near-ties against a float64 one; the
values do not change the timing.)

Writes JSON (to -o FILE after each precision, so a run cut short keeps what
it measured; to stdout without -o): {"meta", "block": {"flops",
"bytes_moved", "entries", "agreement", "inputs"}}. After all timing each
passing peer runs once more under torch.profiler to list its kernels
(peers.list_kernels; --no-profile skips it).
"""
import argparse
import json
import os
import sys
import time

try:  # at import, for torch.compile (fullgraph: no import in the block)
    import torch
    import torch.nn.functional as F
except ImportError:  # --help and syntax checks on hosts without torch
    torch = F = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TOKENS, WIDTH, HIDDEN = 2048, 1024, 4096
INV_D = 9.765625e-04     # 1 / WIDTH, as the MLIR's constant
EPS = 1.0e-06
SCALE = 3.125e-02        # 1 / sqrt(WIDTH)
PRECISIONS = ("tf32", "ieee")
# The longest sum of the block (W2's K): the check's ieee rmsRel grows with it.
TERMS = HIDDEN
FLOPS = 2 * TOKENS * WIDTH * WIDTH * 4 + 2 * 2 * TOKENS * TOKENS * WIDTH \
    + 2 * 2 * TOKENS * WIDTH * HIDDEN   # the eight matmuls (68.7 GFLOP)
# Read once and written once: x, g1, g2, the six weights, the output.
BYTES_MOVED = 4 * (2 * TOKENS * WIDTH + 2 * WIDTH + 4 * WIDTH * WIDTH
                   + 2 * WIDTH * HIDDEN)


def block_literal(x, g1, g2, wq, wk, wv, wo, w1, w2):
    """examples/transformer-block.mlir, op by op."""
    n1 = x * torch.rsqrt((x * x).sum(-1, keepdim=True) * INV_D + EPS) * g1
    q = n1 @ wq
    k = n1 @ wk
    v = n1 @ wv
    s = q @ k.t()
    e = torch.exp((s - s.amax(-1, keepdim=True)) * SCALE)
    p = e / e.sum(-1, keepdim=True)
    h = x + (p @ v) @ wo
    n2 = h * torch.rsqrt((h * h).sum(-1, keepdim=True) * INV_D + EPS) * g2
    u = n2 @ w1
    return h + (u / (1 + torch.exp(-u))) @ w2


def block_fused_ops(x, g1, g2, wq, wk, wv, wo, w1, w2):
    """The same math with torch's fused ops (what a torch user writes)."""
    n1 = F.rms_norm(x, (WIDTH,), g1, EPS)
    p = torch.softmax((n1 @ wq) @ (n1 @ wk).t() * SCALE, -1)
    h = x + (p @ (n1 @ wv)) @ wo
    n2 = F.rms_norm(h, (WIDTH,), g2, EPS)
    return h + F.silu(n2 @ w1) @ w2


# One function per precision for torch.compile: each is compiled under its
# own float32 matmul precision only (as matmul_peers.py does).
def block_tf32(*args):
    return block_literal(*args)


def block_ieee(*args):
    return block_literal(*args)


def make_inputs(device="cuda", seed=0):
    gen = torch.Generator(device=device).manual_seed(seed)

    def uniform(shape, low, high):
        return torch.rand(shape, generator=gen, device=device) * (high - low) + low

    def weight(fan_in, fan_out):
        bound = fan_in ** -0.5
        return uniform((fan_in, fan_out), -bound, bound)
    return (uniform((TOKENS, WIDTH), -1, 1), uniform((WIDTH,), 0.9, 1.1),
            uniform((WIDTH,), 0.9, 1.1), weight(WIDTH, WIDTH), weight(WIDTH, WIDTH),
            weight(WIDTH, WIDTH), weight(WIDTH, WIDTH), weight(WIDTH, HIDDEN),
            weight(HIDDEN, WIDTH))


def rel_l2(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def run(timer, samples, keep, precisions=PRECISIONS, compiled_at=PRECISIONS,
        written=lambda r: None):
    """The peers at each precision (torch.compile at those of `compiled_at`);
    `written(result)` after each precision."""
    from timing import measure, compile_fn, COMPILE_MODE
    args = make_inputs()
    with torch.no_grad():
        want = block_literal(*[a.double() for a in args])
    compiled = {"tf32": compile_fn(block_tf32), "ieee": compile_fn(block_ieee)}
    result = {"flops": FLOPS, "bytes_moved": BYTES_MOVED, "entries": [],
              "agreement": [],
              "inputs": "x uniform [-1, 1); weights uniform +-1/sqrt(fan_in); "
                        "g1, g2 uniform [0.9, 1.1); seed 0"}
    outputs = {}
    try:
        for precision in precisions:
            torch.set_float32_matmul_precision(
                "highest" if precision == "ieee" else "high")
            cfn = compiled[precision]
            cases = (
                ("torch eager %s, op by op as the MLIR" % precision, "torch",
                 lambda: block_literal(*args)),
                ("torch eager %s, F.rms_norm + softmax + F.silu" % precision,
                 "torch", lambda: block_fused_ops(*args)),
                ("torch.compile %s (%s)" % (precision, COMPILE_MODE),
                 "torch.compile", lambda cfn=cfn: cfn(*args)))
            for name, kind, fn in cases:
                if kind == "torch.compile" and precision not in compiled_at:
                    continue
                with torch.no_grad():
                    e = measure(timer, samples, name, kind, precision, fn, want,
                                lambda r: r, terms=TERMS)
                    if e.get("check") == "pass":
                        outputs[name] = (precision, fn().clone())
                e["form"] = "compiled" if kind == "torch.compile" else (
                    "literal" if "op by op" in name else "fused ops")
                result["entries"].append(e)
                keep.append((e, fn, lambda: None, precision))
                print("block peers: %s: %s %s" % (
                    name, e.get("check"), e.get("median_us", e.get("error", ""))),
                    file=sys.stderr)
            written(result)
    finally:
        torch.set_float32_matmul_precision("highest")
    names = list(outputs)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            result["agreement"].append({
                "a": a, "b": b, "same_precision": outputs[a][0] == outputs[b][0],
                "rel_l2": rel_l2(outputs[a][1], outputs[b][1])})
    written(result)
    return result


def main(argv=None):
    p = argparse.ArgumentParser(
        description="torch eager and torch.compile of examples/transformer-block.mlir "
                    "(block-bench.sh's peers), timed as tirx-run times")
    p.add_argument("-o", "--output", default="-")
    p.add_argument("--samples", type=int, default=0,
                   help="timed samples per peer (0: tirx-run's rule, about 1 s)")
    p.add_argument("--precisions", default=",".join(PRECISIONS),
                   help="a comma list of tf32, ieee (in this order of running)")
    p.add_argument("--compile-precisions", default=None,
                   help="the precisions torch.compile runs at (default: all of "
                        "--precisions; its max-autotune takes a minute or more each)")
    p.add_argument("--no-profile", action="store_true",
                   help="skip listing each peer's kernels with torch.profiler")
    args = p.parse_args(argv)
    precisions = [x for x in args.precisions.split(",") if x]
    compiled_at = precisions if args.compile_precisions is None else \
        [x for x in args.compile_precisions.split(",") if x]
    for x in precisions + compiled_at:
        if x not in PRECISIONS:
            p.error("unknown precision %r (known: %s)" % (x, ", ".join(PRECISIONS)))

    import peers
    import timing
    timer = timing.Timer()
    out = {"meta": peers.meta(timer, args.samples), "block": {}}
    started = time.time()

    def written(result):
        out["block"] = result
        out["meta"]["timer_quantum_us"] = timer.resolution_us()
        out["meta"]["peers_wall_s"] = round(time.time() - started, 1)
        if args.output != "-":
            tmp = args.output + ".tmp"
            with open(tmp, "w") as f:
                f.write(json.dumps(out, indent=1, default=str) + "\n")
            os.replace(tmp, args.output)

    keep = []
    try:
        run(timer, args.samples, keep, precisions, compiled_at, written)
    except Exception as e:  # what was measured is kept; the error said
        out["block"]["error"] = "%s: %s" % (type(e).__name__, e)
        written(out["block"])
    if not args.no_profile:
        peers.list_kernels(keep)
        written(out["block"])
    if args.output == "-":
        print(json.dumps(out, indent=1, default=str))
    entries = out["block"].get("entries") or []
    return 0 if entries and all(e.get("check") == "pass" for e in entries) \
        and "error" not in out["block"] else 1


if __name__ == "__main__":
    sys.exit(main())
