#!/usr/bin/env bash
# Builds the bundles the GPU integration tests run, from the recipes below:
#   make-bundles.sh TIRX_OPT SOURCE_ROOT OUT_DIR
set -euo pipefail
opt=$1 src=$2 out=$3
mkdir -p "$out"
export_bundle() { # name input [passes...]
  local name=$1 input=$2; shift 2
  rm -rf "$out/$name"
  "$opt" "$input" "$@" --tirx-export-bundle="dir=$out/$name ir-version=$name" -o /dev/null
}
schedule() { # name script
  echo "--transform-preload-library=transform-library-paths=$src/examples/$2"
}
ex=$src/examples
in=$src/test/Integration/Inputs
export_bundle saxpy-ref "$ex/saxpy.mlir" --tirx-map-reference
export_bundle matmul-ref "$ex/matmul.mlir" --tirx-map-reference
export_bundle rowsum-ref "$ex/rowsum.mlir" --tirx-map-reference
export_bundle rmsnorm-ref "$ex/rmsnorm.mlir" --tirx-map-reference
export_bundle softmax-ref "$ex/softmax.mlir" --tirx-map-reference
export_bundle layernorm-ref "$ex/layernorm.mlir" --tirx-map-reference
export_bundle matmul_bf16-ref "$ex/matmul_bf16.mlir" --tirx-map-reference
export_bundle matmul_f16-ref "$ex/matmul_f16.mlir" --tirx-map-reference
export_bundle saxpy-scalar "$ex/saxpy.mlir" "$(schedule x saxpy-scalar.transform.mlir)" --transform-interpreter
export_bundle saxpy-vec4 "$ex/saxpy.mlir" "$(schedule x saxpy-vec4.transform.mlir)" --transform-interpreter
export_bundle saxpy-off-by-one "$in/saxpy-off-by-one.mlir"
export_bundle saxpy-hang "$in/saxpy-hang.mlir"
# The examples scheduled by TIRx's own transforms: a script and recipes.
export_bundle saxpy-tirx "$ex/saxpy.mlir" "$(schedule x saxpy-tirx.transform.mlir)" --transform-interpreter
export_bundle exp-scale-ref "$in/exp-scale-onepass.mlir" --tirx-map-reference
export_bundle exp-scale-fused "$ex/exp-scale.mlir" "$(schedule x exp-scale-fused.transform.mlir)" --transform-interpreter
tirx=$(dirname "$opt")/tirx
from_recipe() { # name payload recipe: the recipe's last version, exported
  local name=$1 payload=$2 recipe=$3 head
  rm -rf "$out/ws-$name"
  "$tirx" init "$payload" --workspace "$out/ws-$name" > /dev/null
  head=$("$tirx" apply v1 --recipe "$recipe" --workspace "$out/ws-$name" --json |
         sed -n 's/^ *"id": "\(v[0-9]*\)",$/\1/p' | tail -1)
  "$tirx" show "$head" --workspace "$out/ws-$name" > "$out/$name.mlir"
  rm -rf "$out/ws-$name"
  export_bundle "$name" "$out/$name.mlir"
}
for recipe in "$ex"/recipes/*.json; do
  payload=$(basename "$recipe" .json)
  payload=$ex/${payload%%-*}.mlir   # saxpy-vec4.json -> saxpy.mlir
  from_recipe "recipe-$(basename "$recipe" .json)" "$payload" "$recipe"
done
# The benchmarks' other schedules and sizes (examples/bench/*-bench.sh):
# recipes/<payload>-<variant>.json on examples/bench/<payload>.mlir, or on
# examples/<payload>.mlir.
bench=$src/examples/bench
export_bundle bench-matmul2048-ref "$bench/matmul2048.mlir" --tirx-map-reference
export_bundle bench-rmsnorm8192-ref "$bench/rmsnorm8192.mlir" --tirx-map-reference
for recipe in "$bench"/recipes/*.json; do
  payload=$(basename "$recipe" .json)
  payload=${payload%%-*}.mlir
  [ -f "$bench/$payload" ] && payload=$bench/$payload || payload=$ex/$payload
  from_recipe "bench-$(basename "$recipe" .json)" "$payload" "$recipe"
done
# The payload suite (examples/suite): each recipe's bundle (suite-<name>)
# and its reference (suite-<name>-ref); tensor payloads bufferized by the
# passes the coming `bufferize` action runs. A payload whose recipe does
# not reach a bundle yet has none (check_suite.py says why).
python3 "$src/examples/suite/check_suite.py" --bin "$(dirname "$opt")" --jobs 2 \
  --recipes-only --bundles "$out" > "$out/suite.txt" || true
touch "$out/.stamp"
