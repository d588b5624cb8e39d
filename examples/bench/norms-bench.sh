#!/usr/bin/env bash
# The normalizations benchmark of docs/benchmarks.md (softmax, layer norm
# and RMSNorm over 8192 rows of 8192 f32), on a GPU host:
#   examples/bench/norms-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the one-kernel bundles made by actions alone (recipes softmax-block,
# layernorm-block, bench rmsnorm8192-block; and bench *-block512, the same
# on 512 threads) through tirx-run, each checked
# against the reference mapped from its plain seed (a kernel per op, the
# intermediates in scratch buffers), then timed; and the peers (torch
# eager, torch.compile, Triton; norms_peers.py) in the same run. Prints a
# table of ratios; the goal is ours / torch.compile <= 1.1.
source "$(dirname "$0")/common.sh"
status=0
run() { # name bundle reference
  "$build/bin/tirx-run" "$bundles/$2" --reference "$bundles/$3" \
    -o "$out/norms-$1-tirx.json" || status=$?
}
run softmax recipe-softmax-block softmax-ref
run layernorm recipe-layernorm-block layernorm-ref
run rmsnorm bench-rmsnorm8192-block bench-rmsnorm8192-ref
# The same schedules on blocks of 512 threads (16 floats a thread, four runs
# of 4): more blocks a SM, so one block's reduction overlaps another's loads.
run softmax512 bench-softmax-block512 softmax-ref
run layernorm512 bench-layernorm-block512 layernorm-ref
run rmsnorm512 bench-rmsnorm8192-block512 bench-rmsnorm8192-ref
python3 "$here/norms_peers.py" > "$out/norms-peers.json"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
peers = json.load(open(out + "/norms-peers.json"))
nbytes = peers["bytes_moved"]
print("8192 x 8192 f32; bytes a run must move: %d (x read once, y written)" % nbytes)
for name in ("softmax", "layernorm", "rmsnorm"):
    f = json.load(open("%s/norms-%s-tirx.json" % (out, name)))
    if isinstance(f, list):
        f = f[0]
    ours = (f["duration_us"] or float("nan")) / 1e3
    p = peers[name]
    compiled = p["torch_compile_ms"]
    print("%-9s tirx one kernel  %.4f ms  %6.0f GB/s  correctness %s (rel L2 %s, %s inputs), "
          "bottleneck %s, ours/torch.compile %.3f %s"
          % (name, ours, nbytes / ours / 1e6, f["correctness"], f.get("rel_l2_error"),
             f.get("correctness_inputs"), f.get("bottleneck"), ours / compiled,
             "(goal <= 1.1 met)" if ours / compiled <= 1.1 else "(goal <= 1.1 NOT met)"))
    for key in sorted(p):
        print("          %-16s %.4f ms  %6.0f GB/s  ours/peer %.3f"
              % (key[:-3], p[key], nbytes / p[key] / 1e6, ours / p[key]))
    f = json.load(open("%s/norms-%s512-tirx.json" % (out, name)))
    if isinstance(f, list):
        f = f[0]
    ours = (f["duration_us"] or float("nan")) / 1e3
    print("          tirx 512 threads %.4f ms  %6.0f GB/s  correctness %s, bottleneck %s, "
          "ours/torch.compile %.3f" % (ours, nbytes / ours / 1e6, f["correctness"],
                                       f.get("bottleneck"), ours / compiled))
PY
exit $status
