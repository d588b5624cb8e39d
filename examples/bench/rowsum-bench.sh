#!/usr/bin/env bash
# The row-sum benchmark of docs/benchmarks.md, on a GPU host:
#   examples/bench/rowsum-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the TIRx row-sum bundles (a thread per row; split_reduction into 64
# or 256 partial sums per row, interleaved or chunked) through tirx-run,
# each checked against the reference mapped from the seed, then timed; and
# the peers (torch, Triton) in the same run. Prints a table of ratios.
source "$(dirname "$0")/common.sh"
status=0
"$build/bin/tirx-run" "$bundles/bench-rowsum-rows" "$bundles/recipe-rowsum-split" \
  "$bundles/bench-rowsum-split256" "$bundles/bench-rowsum-chunked" \
  "$bundles/bench-rowsum-block" \
  --reference "$bundles/rowsum-ref" -o "$out/rowsum-tirx.json" || status=$?
python3 "$here/rowsum_peers.py" > "$out/rowsum-peers.json"
python3 - "$out" <<'PY'
import glob, json, sys
out = sys.argv[1]
tirx = json.load(open(out + "/rowsum-tirx.json"))
peers = json.load(open(out + "/rowsum-peers.json"))
profile = json.load(open(glob.glob(out + "/cache/tirx/device-*.json")[0]))
copy = profile["copy_bandwidth_gbs"]
nbytes = peers["bytes_moved"]
print("device: %s; copy bandwidth %.0f GB/s (tirx-run), %.0f GB/s (torch)"
      % (profile["name"], copy, peers["torch_copy_gbs"]))
names = ["a thread per row (rowsum-rows)", "split_reduction 64, interleaved",
         "split_reduction 256, interleaved", "split_reduction 64, chunked",
         "reduce_in_block 256 (a block per row)"]
rows = [(names[i], (f["duration_us"] or float("nan")) / 1e3,
         "%s rel L2 %s" % (f["correctness"], f["rel_l2_error"]))
        for i, f in enumerate(tirx)]
rows += [("torch: s += x.sum(1)", peers["torch_ms"], ""),
         ("Triton, a program per row", peers["triton_ms"], "")]
print("%-36s %10s %8s %10s %9s %9s  %s" % ("kernel", "median ms", "GB/s", "/ copy bw", "/ torch", "/ triton", "check"))
for name, ms, check in rows:
    gbs = nbytes / (ms * 1e-3) / 1e9
    print("%-36s %10.4f %8.0f %10.3f %9.3f %9.3f  %s" % (
        name, ms, gbs, gbs / copy, ms / peers["torch_ms"], ms / peers["triton_ms"], check))
PY
exit $status
