#!/usr/bin/env bash
# The RMSNorm benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/rmsnorm-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the bundle fused by fuse_into (recipe rmsnorm-fused) through
# tirx-run, checked against the reference mapped from the two-op seed, then
# timed; and the peers (torch eager, torch's rms_norm, Triton) in the same
# run. Prints a table of ratios.
source "$(dirname "$0")/common.sh"
status=0
"$build/bin/tirx-run" "$bundles/recipe-rmsnorm-fused" "$bundles/recipe-rmsnorm-block" \
  --reference "$bundles/rmsnorm-ref" -o "$out/rmsnorm-tirx.json" || status=$?
python3 "$here/rmsnorm_peers.py" > "$out/rmsnorm-peers.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
runs = json.load(open(out + "/rmsnorm-tirx.json"))
p = json.load(open(out + "/rmsnorm-peers.json"))
names = ["fused, a thread per row", "fused, reduce_in_block 256"]
for name, f in zip(names, runs):
    ours = (f["duration_us"] or float("nan")) / 1e3
    print("tirx %-27s %.4f ms  correctness %s (rel L2 %s), bottleneck %s"
          % (name, ours, f["correctness"], f["rel_l2_error"], f["bottleneck"]))
    for key, peer in (("torch_eager_ms", "torch eager (formula)"),
                      ("torch_rms_norm_ms", "torch rms_norm"),
                      ("triton_ms", "Triton, a program per row")):
        print("    %-27s %.4f ms  ours/peer %.3f" % (peer, p[key], ours / p[key]))
PY
exit $status
