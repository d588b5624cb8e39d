#!/usr/bin/env bash
# The saxpy benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/saxpy-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the 1-wide and 4-wide TIRx bundles through tirx-run (correctness
# against the reference mapped from the seed, then timing), the peers
# (torch, Triton) in the same run, and prints a table of ratios.
source "$(dirname "$0")/common.sh"
"$build/bin/tirx-run" "$bundles/saxpy-scalar" "$bundles/saxpy-vec4" \
  --reference "$bundles/saxpy-ref" -o "$out/tirx.json"
python3 "$here/saxpy_peers.py" > "$out/peers.json"
python3 - "$out/tirx.json" "$out/peers.json" "$XDG_CACHE_HOME" <<'PY'
import glob, json, sys
tirx = json.load(open(sys.argv[1]))
peers = json.load(open(sys.argv[2]))
profile = json.load(open(glob.glob(sys.argv[3] + "/tirx/device-*.json")[0]))
copy = profile["copy_bandwidth_gbs"]
print("device: %s, %d SMs; copy bandwidth measured by tirx-run %.0f GB/s, by torch %.0f GB/s"
      % (profile["name"], profile["sm_count"], copy, peers["torch_copy_gbs"]))
rows = [("tirx 1-wide", tirx[0]["duration_us"] / 1e3),
        ("tirx 4-wide", tirx[1]["duration_us"] / 1e3),
        ("torch.add(alpha=)", peers["torch_add_ms"]),
        ("torch add_ in place", peers["torch_add_inplace_ms"]),
        ("triton", peers["triton_ms"])]
nbytes = peers["bytes_moved"]
triton_ms = peers["triton_ms"]
print("%-22s %10s %10s %12s %12s" % ("kernel", "median ms", "GB/s", "/ copy bw", "/ triton"))
for name, ms in rows:
    gbs = nbytes / (ms * 1e-3) / 1e9
    print("%-22s %10.4f %10.0f %12.3f %12.3f" % (name, ms, gbs, gbs / copy, ms / triton_ms))
for i, name in enumerate(["1-wide", "4-wide"]):
    print("tirx %s: correctness %s (%d input sets, rel L2 %s), %d samples, bottleneck %s"
          % (name, tirx[i]["correctness"], tirx[i]["correctness_inputs"],
             tirx[i]["rel_l2_error"], tirx[i]["sample_count"], tirx[i]["bottleneck"]))
print("speed-up 4-wide over 1-wide: %.2fx" % (tirx[0]["duration_us"] / tirx[1]["duration_us"]))
PY
