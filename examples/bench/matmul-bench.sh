#!/usr/bin/env bash
# The matmul benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/matmul-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the TIRx matmul bundles (SIMT with shared memory, and tensor cores
# by use_mma) through tirx-run, each checked against the reference mapped
# from its seed, then timed; and the peers (cuBLAS f32 and tf32 through
# torch, Triton tf32) in the same run. Prints a table of ratios.
source "$(dirname "$0")/common.sh"
status=0
"$build/bin/tirx-run" "$bundles/recipe-matmul-shared" "$bundles/recipe-matmul-mma" \
  --reference "$bundles/matmul-ref" -o "$out/matmul256-tirx.json" || status=$?
"$build/bin/tirx-run" "$bundles/bench-matmul2048-simt" "$bundles/bench-matmul2048-mma64" \
  "$bundles/bench-matmul2048-mma128" "$bundles/bench-matmul2048-mma-shared" \
  "$bundles/bench-matmul2048-mmapad" "$bundles/bench-matmul2048-mmapad128" \
  --reference "$bundles/bench-matmul2048-ref" -o "$out/matmul2048-tirx.json" || status=$?
python3 "$here/matmul_peers.py" > "$out/matmul-peers.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
peers = json.load(open(out + "/matmul-peers.json"))
names = {256: ["simt, shared (matmul-shared)", "use_mma 2x2 warps (matmul-mma)"],
         2048: ["simt 64x64, shared, 4x4/thread", "use_mma 64x64, 2x2 warps",
                "use_mma 128x128, 4x2 warps", "use_mma 64x64, 2x2 warps, shared",
                "use_mma 64x64, shared, padded rows",
                "use_mma 128x128, 4x2 warps, shared, padded"]}
for n in (256, 2048):
    tirx = json.load(open("%s/matmul%d-tirx.json" % (out, n)))
    p = peers[str(n)]
    flops = p["flops"]
    print("n = %d (%.1f GFLOP)" % (n, flops / 1e9))
    print("  %-36s %10s %8s %10s %10s %10s  %s" % ("kernel", "median ms", "TFLOP/s", "/cublas32", "/cublas tf32", "/triton", "check"))
    rows = [(names[n][i], (f["duration_us"] or float("nan")) / 1e3,
             "%s rel L2 %s" % (f["correctness"], f["rel_l2_error"])) for i, f in enumerate(tirx)]
    rows += [("cuBLAS f32 (torch.addmm)", p["cublas_f32_ms"], "rel L2 %.1e" % p["cublas_f32_rel_l2"]),
             ("cuBLAS tf32 (torch.addmm)", p["cublas_tf32_ms"], "rel L2 %.1e" % p["cublas_tf32_rel_l2"]),
             ("Triton tf32", p["triton_tf32_ms"], "rel L2 %.1e" % p["triton_tf32_rel_l2"])]
    for name, ms, check in rows:
        print("  %-36s %10.4f %8.1f %10.3f %10.3f %10.3f  %s" % (
            name, ms, flops / (ms * 1e-3) / 1e12, ms / p["cublas_f32_ms"],
            ms / p["cublas_tf32_ms"], ms / p["triton_tf32_ms"], check))
PY
exit $status
