#!/usr/bin/env bash
# The exp-scale benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/exp-scale-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the bundle fused by transform.tirx.fuse_into through tirx-run
# (correctness against the one-op reference, then timing) and the peers
# (torch eager through an intermediate, fused Triton) in the same run.
source "$(dirname "$0")/common.sh"
"$build/bin/tirx-run" "$bundles/exp-scale-fused" \
  --reference "$bundles/exp-scale-ref" -o "$out/exp-scale-tirx.json"
python3 "$here/exp_scale_peers.py" > "$out/exp-scale-peers.json"
python3 - "$out/exp-scale-tirx.json" "$out/exp-scale-peers.json" <<'PY'
import json, sys
tirx = json.load(open(sys.argv[1]))
tirx = tirx[0] if isinstance(tirx, list) else tirx  # one bundle: one object
peers = json.load(open(sys.argv[2]))
ours = tirx["duration_us"] / 1e3
print("tirx fused (fuse_into)    %.4f ms  correctness %s" % (ours, tirx["correctness"]))
print("torch eager, 2 kernels    %.4f ms  ours/peer %.3f" % (peers["torch_eager_two_kernels_ms"], ours / peers["torch_eager_two_kernels_ms"]))
print("triton fused              %.4f ms  ours/peer %.3f" % (peers["triton_fused_ms"], ours / peers["triton_fused_ms"]))
PY
