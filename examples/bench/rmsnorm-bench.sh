#!/usr/bin/env bash
# The RMSNorm benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/rmsnorm-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the bundle fused by fuse_into (recipe rmsnorm-fused) through
# tirx-run, checked against the reference mapped from the two-op seed, then
# timed; and the peers (torch eager, torch's rms_norm, Triton) in the same
# run. Prints a table of ratios.
source "$(dirname "$0")/common.sh"
status=0
"$build/bin/tirx-run" "$bundles/recipe-rmsnorm-fused" \
  --reference "$bundles/rmsnorm-ref" -o "$out/rmsnorm-tirx.json" || status=$?
python3 "$here/rmsnorm_peers.py" > "$out/rmsnorm-peers.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
f = json.load(open(out + "/rmsnorm-tirx.json"))
f = f[0] if isinstance(f, list) else f
p = json.load(open(out + "/rmsnorm-peers.json"))
ours = (f["duration_us"] or float("nan")) / 1e3
print("tirx fused (fuse_into)     %.4f ms  correctness %s (rel L2 %s), bottleneck %s"
      % (ours, f["correctness"], f["rel_l2_error"], f["bottleneck"]))
for key, name in (("torch_eager_ms", "torch eager (formula)"),
                  ("torch_rms_norm_ms", "torch rms_norm"), ("triton_ms", "Triton, a program per row")):
    print("%-26s %.4f ms  ours/peer %.3f" % (name, p[key], ours / p[key]))
PY
exit $status
