#!/usr/bin/env bash
# `make demo`: the main job on the example payload.
#   1. schedule saxpy (examples/saxpy.mlir) with examples/saxpy-vec4.transform.mlir;
#   2. lower it to PTX and a cubin and write a bundle (tirx-export-bundle);
#   3. print what ptxas and the bundle say about the kernel;
#   4. where a CUDA device answers, run it against the reference mapped from
#      the seed payload and attach the feedback to the IR.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
opt=$build/bin/tirx-opt
out=$build/demo
rm -rf "$out" && mkdir -p "$out"

"$opt" "$root/examples/saxpy.mlir" \
  --transform-preload-library="transform-library-paths=$root/examples/saxpy-vec4.transform.mlir" \
  --transform-interpreter -o "$out/saxpy-vec4.mlir"
"$opt" "$out/saxpy-vec4.mlir" --tirx-export-bundle="dir=$out/saxpy-vec4 ir-version=v2" -o /dev/null
"$opt" "$root/examples/saxpy.mlir" --tirx-map-reference \
  --tirx-export-bundle="dir=$out/saxpy-ref ir-version=v1 reference=true" -o /dev/null

python3 - "$out/saxpy-vec4" <<'PY'
import json, re, sys
bundle = sys.argv[1]
m = json.load(open(bundle + "/manifest.json"))
print("TIRx demo: saxpy, 2^26 f32, scheduled by examples/saxpy-vec4.transform.mlir")
for k in m["kernels"]:
    ptx = open(bundle + "/" + k["ptx"]).read()
    loads = re.findall(r"ld\.global(?:\.nc)?((?:\.v\d)?)\.[bfsu]\d+", ptx)
    widths = sorted({int(v[2:]) if v else 1 for v in loads})
    r = k["ptxas"]
    print("  kernel          %s (%s, PTX %s)" % (k["name"], m["chip"], m["features"]))
    print("  grid x block    %s x %s" % (tuple(k["grid"]), tuple(k["block"])))
    print("  ptxas -v        %d registers, %d bytes shared, %d bytes spilled, %d bytes stack"
          % (r["registers"], r["shared_bytes"], r["spill_store_bytes"] + r["spill_load_bytes"], r["stack_bytes"]))
    print("  global loads    %d in PTX, vector width %s (%s)"
          % (len(loads), "/".join(map(str, widths)),
             ", ".join(sorted(set(re.findall(r"ld\.global[.\w]*", ptx))))))
    for a in k["accesses"]:
        print("  access          %-5s %s: %d x %d B, alignment %d, %s"
              % (a["op"], a["buffer"], a["width"], a["bytes"] // a["width"], a["alignment"],
                 "contiguous" if a["contiguous"] else "strided"))
print("  bundle          %s (manifest.json, %s)" % (bundle, ", ".join(
    sorted({k["ptx"] for k in m["kernels"]} | {k["cubin"] for k in m["kernels"] if k["cubin"]}))))
PY

set +e
"$build/bin/tirx-run" "$out/saxpy-vec4" --reference "$out/saxpy-ref" -o "$out/feedback.json" 2> "$out/run.log"
status=$?
set -e
if [ "$status" -eq 3 ]; then
  echo "  run             no CUDA device here ($(head -1 "$out/run.log" | sed 's/^tirx-run: //'))"
  echo "                  on a GPU host: tirx-run $out/saxpy-vec4 --reference $out/saxpy-ref"
else
  cat "$out/run.log"
  "$opt" "$out/saxpy-vec4.mlir" --tirx-attach-feedback="file=$out/feedback.json" -o "$out/saxpy-vec4.feedback.mlir"
  echo "  feedback        $(grep -o '#tirx.feedback<[^>]*>' "$out/saxpy-vec4.feedback.mlir" | head -1)"
fi
