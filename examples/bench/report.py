#!/usr/bin/env python3
"""Combines one all-bench.sh run into OUT/all.json and OUT/all.md (printed):

  python3 examples/bench/report.py OUT --bundles BUNDLES [--command TEXT]

Reads OUT/<bench>-tirx.json (tirx-run), OUT/peers.json (peers.py), each
bundle's manifest.json (its precision, `math`), tirx-run's device profile
(OUT/cache/tirx/device-*.json: copy bandwidth) and OUT/nvidia-smi.txt.
Every ratio is computed here from the same run's medians. Needs no torch.

Digits: a median is rounded at the decimal place of its uncertainty
u = max(timer quantum, median - min) (timing.uncertainty), keeping at least
2 significant digits; a ratio ours/peer at the place of its uncertainty
(the two relative uncertainties in quadrature), at least 2 significant
digits. The best peer is the fastest peer that passed its check at the
precision of the TIRx kernel (`ieee` f32, or `tf32` tensor-core products).
"""
import argparse
import datetime
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (no torch needed for the helpers used here)

# The TIRx bundles of each benchmark, in tirx-run's order, with their labels.
TIRX = {
    "saxpy": [("saxpy-scalar", "TIRx 1-wide (saxpy-scalar)"),
              ("saxpy-vec4", "TIRx 4-wide, v4 loads (saxpy-vec4)")],
    "exp-scale": [("exp-scale-fused", "TIRx fused by fuse_into, 4-wide")],
    "rowsum": [("bench-rowsum-rows", "TIRx a thread per row"),
               ("recipe-rowsum-split", "TIRx split_reduction 64, interleaved"),
               ("bench-rowsum-split256", "TIRx split_reduction 256, interleaved"),
               ("bench-rowsum-chunked", "TIRx split_reduction 64, chunked"),
               ("bench-rowsum-block", "TIRx reduce_in_block 256, a block per row")],
    "rmsnorm": [("recipe-rmsnorm-fused", "TIRx fused, a thread per row"),
                ("recipe-rmsnorm-block", "TIRx fused, reduce_in_block 256")],
    "matmul256": [("recipe-matmul-shared", "TIRx SIMT, shared (matmul-shared)"),
                  ("recipe-matmul-mma", "TIRx use_mma 32x32, 2x2 warps (matmul-mma)")],
    "matmul2048": [("bench-matmul2048-simt", "TIRx SIMT 64x64, shared, 4x4/thread"),
                   ("bench-matmul2048-mma64", "TIRx use_mma 64x64, 2x2 warps"),
                   ("bench-matmul2048-mma128", "TIRx use_mma 128x128, 4x2 warps"),
                   ("bench-matmul2048-mma-shared", "TIRx use_mma 64x64, shared"),
                   ("bench-matmul2048-mmapad", "TIRx use_mma 64x64, shared, padded"),
                   ("bench-matmul2048-mmapad128", "TIRx use_mma 128x128, 4x2 warps, shared, padded")],
}
for _t in ("bf16", "f16"):
    TIRX["matmul_" + _t] = [
        ("recipe-matmul_%s-mma" % _t, "TIRx use_mma 128x128 k32, 2x2 warps, ldmatrix (matmul_%s-mma)" % _t),
        ("recipe-matmul_%s-pipeline" % _t, "TIRx + pipeline 2 stages, cp.async (matmul_%s-pipeline)" % _t),
        ("bench-matmul_%s-k16s4" % _t, "TIRx use_mma 128x128 k16, 2x2 warps, pipeline 4 stages"),
        ("bench-matmul_%s-n256s3" % _t, "TIRx use_mma 128x256 k16, 2x4 warps, pipeline 3 stages"),
        ("bench-matmul_%s-k32s4" % _t, "TIRx use_mma 128x128 k32, 2x2 warps, pipeline 4 stages (74 KiB dynamic shared)"),
        ("bench-matmul_%s-n256k32s3" % _t, "TIRx use_mma 128x256 k32, 2x4 warps, pipeline 3 stages (80 KiB dynamic shared)"),
        ("recipe-matmul_%s-wgmma" % _t, "TIRx use_wgmma 128x256, 2 warpgroups, 4 TMA stages (matmul_%s-wgmma)" % _t),
        ("bench-matmul_%s-wgmma128" % _t, "TIRx use_wgmma 128x128, 1 warpgroup, 4 TMA stages"),
        ("bench-matmul_%s-wgmma128s3" % _t, "TIRx use_wgmma 128x128, 1 warpgroup, 3 TMA stages (2 blocks per SM)"),
        ("bench-matmul_%s-wgmma256s3" % _t, "TIRx use_wgmma 128x256, 2 warpgroups, 3 TMA stages")]
TIRX["matmul_bias_gelu"] = [
    ("recipe-matmul_bias_gelu_bf16-wgmma",
     "TIRx fuse_into + use_wgmma 128x256, 2 warpgroups, 4 TMA stages, bias + GELU "
     "in the register epilogue (matmul_bias_gelu_bf16-wgmma)")]
MATMUL16_SIZES = {"1024": "1024^3", "2048": "2048^3", "8192": "8192^3",
                  "odd": "4000 x 4096 x 4104 (M x N x K)"}
for _s in MATMUL16_SIZES:
    TIRX["matmul_bf16_" + _s] = [
        ("bench-matmul_bf16_%s-wgmma" % _s,
         "TIRx use_wgmma %s" % ("64x128, 1 warpgroup, 4 TMA stages" if _s == "1024"
                                else "128x256, 2 warpgroups, 4 TMA stages"))] + (
        [] if _s == "odd" else
        [("bench-matmul_bf16_%s-wgmma128" % _s, "TIRx use_wgmma 128x128, 1 warpgroup, 4 TMA stages")])
TIRX["linear_tf32"] = [
    ("recipe-linear_f32-wgmma",
     "TIRx use_wgmma tf32 128x256, 2 warpgroups, 4 TMA stages, A and W K-major (linear_f32-wgmma)"),
    ("bench-linear_f32-wgmma128", "TIRx use_wgmma tf32 128x128, 1 warpgroup, 4 TMA stages"),
    ("bench-linear_f32-wgmma256s3", "TIRx use_wgmma tf32 128x256, 2 warpgroups, 3 TMA stages")]
TITLES = {"saxpy": "saxpy 2^26 f32 (y in place)",
          "exp-scale": "exp-scale 2^20 f32",
          "rowsum": "row sums 1024x16384 f32 (s +=)",
          "rmsnorm": "RMSNorm 1024x1024 f32",
          "matmul256": "matmul 256^3 f32 (C +=)",
          "matmul2048": "matmul 2048^3 f32 (C +=)",
          "matmul_bf16": "matmul 4096^3 bf16 inputs, f32 sums (C f32 +=)",
          "matmul_f16": "matmul 4096^3 f16 inputs, f32 sums (C f32 +=)",
          "matmul_bias_gelu": "matmul 4096^3 bf16 + bias + GELU (erf), f32 Y",
          "linear_tf32": "linear 4096^3 f32, tf32 products (C += A W^T, W as (n, k))"}
TITLES.update({"matmul_bf16_" + s: "matmul %s bf16 inputs, f32 sums (C f32 +=)" % t
               for s, t in MATMUL16_SIZES.items()})
ORDER = ["saxpy", "exp-scale", "rowsum", "rmsnorm", "matmul256", "matmul2048",
         "matmul_bf16", "matmul_f16", "matmul_bias_gelu"] + [
             "matmul_bf16_" + s for s in MATMUL16_SIZES] + ["linear_tf32"]


def load(path, default=None):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def tirx_entries(out, bundles, bench):
    runs = load(os.path.join(out, bench + "-tirx.json"))
    if runs is None:
        return None
    runs = runs if isinstance(runs, list) else [runs]
    entries = []
    for (bundle, label), f in zip(TIRX[bench], runs):
        manifest = load(os.path.join(bundles, bundle, "manifest.json"), {}) or {}
        e = {"name": label, "kind": "tirx", "bundle": bundle,
             "precision": manifest.get("math", "ieee") or "ieee",
             "kernel_launches": len(manifest.get("kernels", [])) or None,
             "median_us": f.get("duration_us"), "min_us": f.get("duration_min_us"),
             "max_us": f.get("duration_max_us"), "mean_us": f.get("duration_mean_us"),
             "trimmed_mean_us": f.get("duration_trimmed_mean_us"),
             "samples": f.get("sample_count"), "rel_l2": f.get("rel_l2_error"),
             "check": f.get("correctness"), "plausible": f.get("plausible"),
             "bottleneck": f.get("bottleneck"), "seed": f.get("seed"),
             "bytes_moved": f.get("bytes_moved"), "flops": f.get("flops")}
        if f.get("launch_status") not in (None, "ok"):
            e["error"] = "%s: %s" % (f.get("launch_status"), f.get("error", ""))
        entries.append(e)
    return entries


def annotate(bench, resolution):
    """Adds u_us, the rounded texts, throughput and the ratios to `bench`."""
    entries = bench["entries"]
    for e in entries:
        m = e.get("median_us")
        e["u_us"] = timing.uncertainty(m, e.get("min_us"), resolution) if m else None
        if m:
            if bench.get("flops") and bench.get("kind") == "compute":
                e["tflops"] = bench["flops"] / (m * 1e-6) / 1e12
            if bench.get("bytes_moved"):
                e["gbs"] = bench["bytes_moved"] / (m * 1e-6) / 1e9
    ok = lambda e: e.get("median_us") and e.get("check") == "pass"
    for e in entries:
        peers = [p for p in entries if p["kind"] != "tirx" and ok(p)
                 and p["precision"] == e["precision"] and p is not e]
        if not peers or not e.get("median_us"):
            continue
        best = min(peers, key=lambda p: p["median_us"])
        if e["kind"] != "tirx" and best["median_us"] > e["median_us"]:
            best = e   # a peer that is itself the fastest: ratio 1
        r, ur = timing.ratio_with_uncertainty(e["median_us"], e["u_us"],
                                              best["median_us"], best["u_us"])
        e["best_peer"] = best["name"]
        e["ratio_to_best_peer"] = r
        e["ratio_uncertainty"] = ur
        e["per_peer_ratio"] = {p["name"]: e["median_us"] / p["median_us"]
                               for p in entries if p["kind"] != "tirx" and ok(p)}


def fmt_time(e):
    m = e.get("median_us")
    if not m:
        return "-", "-"
    text = timing.round_to(m, e["u_us"])
    decimals = len(text.split(".")[1]) if "." in text else 0
    mn, mx = e.get("min_us"), e.get("max_us")
    if mn is None or mx is None:
        return text, "-"
    return text, "%.*f–%.*f" % (decimals, mn, decimals, mx)


def fmt_ratio(e):
    r, u = e.get("ratio_to_best_peer"), e.get("ratio_uncertainty")
    if r is None:
        return "-"
    if e["kind"] != "tirx" and e.get("best_peer") == e["name"]:
        return "1 (best peer)"
    return "%s ± %s" % (timing.round_to(r, u), timing.round_to(u, None, 1))


def check_text(e):
    if e.get("error"):
        return "error: " + e["error"][:80]
    c = e.get("check") or "-"
    if e.get("rel_l2") is not None:
        c += " (%.1e)" % e["rel_l2"]
    if e.get("plausible") is False:
        c += ", implausible"
    return c


def throughput(e):
    if e.get("tflops"):
        return "%.0f TFLOP/s" % e["tflops"] if e["tflops"] >= 10 else "%.1f TFLOP/s" % e["tflops"]
    if e.get("gbs"):
        return "%.0f GB/s" % e["gbs"]
    return "-"


def short_kernel(name):
    """`void at::native::vectorized_elementwise_kernel<4, ...>(...)` ->
    `vectorized_elementwise_kernel`; long cuBLAS names cut at 60."""
    n = name[5:] if name.startswith("void ") else name
    if not n.startswith("Memcpy") and not n.startswith("Memset"):
        for sep in "<(":
            n = n.split(sep)[0]
        n = n.split("::")[-1]
    return n[:60]


def peer_label(e):
    s = e["name"]
    if e.get("config"):
        s += " [%s]" % e["config"]
    return s


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--bundles", required=True)
    p.add_argument("--command", default="examples/bench/all-bench.sh build OUT")
    p.add_argument("--commit", default="unknown")
    p.add_argument("--samples", type=int, help="the run's sample count (tirx-run --samples)")
    p.add_argument("--tirx-wall", type=float)
    p.add_argument("--wall", type=float)
    args = p.parse_args()
    out = args.out

    peers = load(os.path.join(out, "peers.json"), {"meta": {}, "benchmarks": {}})
    pmeta = peers.get("meta", {})
    profiles = sorted(glob.glob(os.path.join(out, "cache", "tirx", "device-*.json")))
    profile = load(profiles[0], {}) if profiles else {}
    smi = ""
    try:
        smi = open(os.path.join(out, "nvidia-smi.txt")).read().strip().splitlines()[0]
    except (OSError, IndexError):
        pass
    quantum = pmeta.get("timer_quantum_us")
    resolution = quantum if quantum else timing.DOCUMENTED_EVENT_RESOLUTION_US

    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "device": pmeta.get("device") or profile.get("name"),
        "sm_count": pmeta.get("sm_count") or profile.get("sm_count"),
        "nvidia_smi": smi, "cuda_driver_api": pmeta.get("cuda_driver_api"),
        "torch": pmeta.get("torch"), "triton": pmeta.get("triton"),
        "compile_mode": pmeta.get("compile_mode") or timing.COMPILE_MODE,
        "command": args.command, "commit": args.commit,
        "samples": args.samples or pmeta.get("samples"),
        "warmup": pmeta.get("warmup") or timing.WARMUP,
        "flush_bytes": pmeta.get("flush_bytes") or (
            max(2 * profile["l2_bytes"], 64 << 20) if profile.get("l2_bytes") else None),
        "flush": pmeta.get("flush") or "cuMemsetD32Async",
        "copy_bandwidth_gbs_tirx_run": profile.get("copy_bandwidth_gbs"),
        "timer_quantum_us": quantum,
        "timer_documented_resolution_us": timing.DOCUMENTED_EVENT_RESOLUTION_US,
        "resolution_used_us": resolution,
        "wall_s": args.wall, "tirx_wall_s": args.tirx_wall,
        "peers_wall_s": pmeta.get("peers_wall_s"),
    }
    benches = {}
    failed = False
    for bench in ORDER:
        tirx_file = "matmul%s" % bench[6:] if bench.startswith("matmul") else bench
        tirx = tirx_entries(out, args.bundles, tirx_file)
        pb = peers.get("benchmarks", {}).get(bench)
        if tirx is None and pb is None:
            continue
        b = {"title": TITLES[bench],
             "kind": "compute" if bench.startswith(("matmul", "linear")) else "memory",
             "bytes_moved": (pb or {}).get("bytes_moved"), "flops": (pb or {}).get("flops"),
             "entries": (tirx or []) + list((pb or {}).get("entries", []))}
        if pb and pb.get("error"):
            b["peers_error"] = pb["error"]
            failed = True
        if not b["bytes_moved"] and tirx:
            b["bytes_moved"], b["flops"] = tirx[0].get("bytes_moved"), tirx[0].get("flops")
        annotate(b, resolution)
        for e in b["entries"]:
            if e.get("check") not in ("pass",):
                failed = True
        benches[bench] = b

    with open(os.path.join(out, "all.json"), "w") as f:
        json.dump({"meta": meta, "benchmarks": benches}, f, indent=1)
    md = render(meta, benches)
    with open(os.path.join(out, "all.md"), "w") as f:
        f.write(md)
    print(md)
    return 1 if failed else 0


def render(meta, benches):
    L = []
    L.append("## All benchmarks, one run (%s, %s)" % (meta["date"][:10], meta["device"]))
    L.append("")
    L.append("- Device: %s (%s SMs); `nvidia-smi`: %s; CUDA driver API %s; torch %s, "
             "Triton %s." % (meta["device"], meta["sm_count"], meta["nvidia_smi"] or "n/a",
                             meta["cuda_driver_api"], meta["torch"], meta["triton"]))
    L.append("- Command: `%s` on commit %s; %s, %s UTC. Wall: %s s (tirx-run %s s, peers %s s)."
             % (meta["command"], meta["commit"], meta["date"][:10], meta["date"][11:16],
                meta["wall_s"], meta["tirx_wall_s"], meta["peers_wall_s"]))
    L.append("- Every time: median of %s samples after %s warm-ups, CUDA events around one "
             "run's launches, L2 flushed before each sample (%s over %.0f MiB), `inout` "
             "buffers restored and `out` buffers poisoned before each sample outside the "
             "events; TIRx by tirx-run, peers by `examples/bench/timing.py` (the same loop). "
             "Copy bandwidth (tirx-run): %s GB/s."
             % (meta["samples"], meta["warmup"], meta["flush"] or "cuMemsetD32Async",
                (meta["flush_bytes"] or 0) / 2**20,
                "%.0f" % meta["copy_bandwidth_gbs_tirx_run"]
                if meta["copy_bandwidth_gbs_tirx_run"] else "n/a"))
    q = meta["timer_quantum_us"]
    L.append("- Digits: the timer's smallest step seen in the samples %s µs (CUDA documents "
             "about %s µs); a median is rounded at the place of max(resolution, median − min), "
             "at least 2 significant digits; a ratio at the place of its uncertainty (± shown). "
             "min–max is the full spread."
             % ("%.3g" % q if q else "n/a", meta["timer_documented_resolution_us"]))
    L.append("- Peers at each precision: torch eager, torch.compile (mode `%s`), Triton "
             "autotuned over a config list, and for matmul cuBLAS (`C.addmm_`) with "
             "`torch.set_float32_matmul_precision` \"highest\" (ieee) or \"high\" (tf32). "
             "\"ours / best peer\" divides by the fastest peer that passed its check at the "
             "TIRx kernel's precision; below 1 is faster." % meta["compile_mode"])
    L.append("")
    L.append("### Headline: each TIRx kernel against the best peer at its precision")
    L.append("")
    L.append("| benchmark | TIRx kernel | precision | median µs | min–max µs | ours / best peer | best peer (median µs) |")
    L.append("|---|---|---|---|---|---|---|")
    for key, b in benches.items():
        byname = {e["name"]: e for e in b["entries"]}
        for e in b["entries"]:
            if e["kind"] != "tirx":
                continue
            med, spread = fmt_time(e)
            best = byname.get(e.get("best_peer"))
            bt = "%s (%s)" % (best["name"], fmt_time(best)[0]) if best else "-"
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                b["title"], e["name"], e["precision"], med, spread, fmt_ratio(e), bt))
    L.append("")
    L.append("### Every kernel of the run")
    L.append("")
    L.append("| benchmark | kernel | precision | median µs | min–max µs | throughput | / best peer at its precision | check (rel L2) | n |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for key, b in benches.items():
        for e in b["entries"]:
            med, spread = fmt_time(e)
            name = e["name"] if e["kind"] == "tirx" else peer_label(e)
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                b["title"], name, e["precision"], med, spread, throughput(e),
                fmt_ratio(e), check_text(e), e.get("samples") or "-"))
        if b.get("peers_error"):
            L.append("| %s | peers | | | | | | error: %s | |" % (b["title"], b["peers_error"][:100]))
    L.append("")
    notes = []
    for key, b in benches.items():
        for e in b["entries"]:
            if e.get("kernels"):
                notes.append("%s / %s: %d launch(es): %s" % (
                    key, e["name"], len(e["kernels"]),
                    ", ".join(short_kernel(k) for k in e["kernels"])))
            if e.get("guard_missed"):
                notes.append("%s / %s: host enqueue outlasted the GPU spin in %d samples "
                             "(host time may be included)" % (key, e["name"], e["guard_missed"]))
    if notes:
        L.append("Kernels each peer launches in one timed run (torch.profiler, after timing):")
        L.append("")
        L += ["- " + n for n in notes]
        L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    sys.exit(main())
