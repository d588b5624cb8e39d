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
# A reference: the seed mapped by tirx-map-reference and lowered by
# upstream's passes alone (reference=true; the bundle's passes.txt lists them).
export_ref() { # name seed
  rm -rf "$out/$1"
  "$opt" "$2" --tirx-map-reference \
    --tirx-export-bundle="dir=$out/$1 ir-version=$1 reference=true" -o /dev/null
}
schedule() { # name script
  echo "--transform-preload-library=transform-library-paths=$src/examples/$2"
}
ex=$src/examples
in=$src/test/Integration/Inputs
export_ref saxpy-ref "$ex/saxpy.mlir"
export_ref matmul-ref "$ex/matmul.mlir"
export_ref rowsum-ref "$ex/rowsum.mlir"
export_ref rmsnorm-ref "$ex/rmsnorm.mlir"
export_ref softmax-ref "$ex/softmax.mlir"
export_ref layernorm-ref "$ex/layernorm.mlir"
export_ref prime-saxpy-ref "$ex/prime-saxpy.mlir"
export_ref matmul_bf16-ref "$ex/matmul_bf16.mlir"
export_ref matmul_f16-ref "$ex/matmul_f16.mlir"
# An f32 linear (W held as (n, k)) on use_wgmma in tf32
# (recipe-linear_f32-wgmma below; test/Integration/linear-tf32.test).
export_ref linear_f32-ref "$ex/linear_f32.mlir"
# matmul + bias + GELU (recipe-matmul_bias_gelu_bf16-wgmma below: one
# kernel); its reference is three (fill, matmul, GELU) with a scratch buffer.
export_ref matmul_bias_gelu_bf16-ref "$ex/matmul_bias_gelu_bf16.mlir"
export_bundle saxpy-scalar "$ex/saxpy.mlir" "$(schedule x saxpy-scalar.transform.mlir)" --transform-interpreter
export_bundle saxpy-vec4 "$ex/saxpy.mlir" "$(schedule x saxpy-vec4.transform.mlir)" --transform-interpreter
# saxpy over 2^20 elements, for the worker's screening rate
# (examples/bench/worker-rate.sh).
sed 's/67108864/1048576/g' "$ex/saxpy.mlir" > "$out/saxpy1m.mlir"
export_ref saxpy1m-ref "$out/saxpy1m.mlir"
for s in scalar vec4 tirx; do
  export_bundle saxpy1m-$s "$out/saxpy1m.mlir" "$(schedule x saxpy-$s.transform.mlir)" --transform-interpreter
done
export_bundle saxpy-off-by-one "$in/saxpy-off-by-one.mlir"
export_bundle saxpy-hang "$in/saxpy-hang.mlir"
# The examples scheduled by TIRx's own transforms: a script and recipes.
export_bundle saxpy-tirx "$ex/saxpy.mlir" "$(schedule x saxpy-tirx.transform.mlir)" --transform-interpreter
export_ref exp-scale-ref "$in/exp-scale-onepass.mlir"
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
# The stricter checks (test/Integration/strict.test): a row sum reduced
# in a block (f32: warp shuffles and one barrier; f64: a shared-memory tree,
# a barrier between steps), and the f64 tree with its first barrier (partials
# stored -> first step) removed: a planted race. x * x / x: a planted
# adversarial failure.
from_recipe rowsum-block "$ex/rowsum.mlir" "$in/rowsum-block.json"
sed -e 's/4x1024/2048x4096/g' -e 's/memref<4xf64>/memref<2048xf64>/g' \
  "$src/test/Tools/cpu-check/Inputs/rowsum-f64.mlir" > "$out/rowsum-f64-big.mlir"
export_ref rowsum-f64-ref "$out/rowsum-f64-big.mlir"
from_recipe rowsum-f64-tree "$out/rowsum-f64-big.mlir" "$in/rowsum-block.json"
awk '/gpu.barrier/ && !cut { cut = 1; next } { print }' \
  "$out/rowsum-f64-tree.mlir" > "$out/rowsum-f64-race.mlir"
export_bundle rowsum-f64-race "$out/rowsum-f64-race.mlir"
export_bundle saxpy1m-xxx "$in/saxpy-xxx.mlir"
for recipe in "$ex"/recipes/*.json; do
  payload=$(basename "$recipe" .json)
  # prime-saxpy.json -> prime-saxpy.mlir; saxpy-vec4.json -> saxpy.mlir
  [ -f "$ex/$payload.mlir" ] && payload=$ex/$payload.mlir || payload=$ex/${payload%%-*}.mlir
  from_recipe "recipe-$(basename "$recipe" .json)" "$payload" "$recipe"
done
# A bf16 matmul with A held as (k, m) and B as (n, k) on the pipelined
# mma.sync recipe (test/Integration/linear16.test).
export_ref linear_ta_bf16-ref "$in/linear_ta_bf16.mlir"
from_recipe recipe-linear_ta_bf16-pipeline "$in/linear_ta_bf16.mlir" \
  "$ex/recipes/matmul_bf16-pipeline.json"
# Small sizes, for test/Integration/host.test: each example's reference and
# each recipe's schedule, both compared there with a host computation.
small() { # name seed sed-arguments...
  local name=$1 seed=$2; shift 2
  sed "$@" "$seed" > "$out/small-$name.mlir"
}
small saxpy "$ex/saxpy.mlir" -e 's/67108864/65536/g'
small matmul "$ex/matmul.mlir" -e 's/256x256/64x64/g'
small rowsum "$ex/rowsum.mlir" -e 's/1024x16384/256x4096/g' -e 's/memref<1024xf32>/memref<256xf32>/g'
small rmsnorm "$ex/rmsnorm.mlir" -e 's/1024x1024/64x1024/g' -e 's/memref<1024xf32>/memref<64xf32>/g'
small softmax "$ex/softmax.mlir" -e 's/8192x8192/4x8192/g' -e 's/memref<8192xf32>/memref<4xf32>/g'
small layernorm "$src/test/Tools/cpu-check/Inputs/layernorm-4rows.mlir" -e ''
for p in saxpy matmul rowsum rmsnorm softmax layernorm; do
  export_ref "host-$p-ref" "$out/small-$p.mlir"
done
for recipe in "$ex"/recipes/*.json; do
  r=$(basename "$recipe" .json)
  [ -f "$out/small-${r%%-*}.mlir" ] || continue # no small form (prime-saxpy)
  from_recipe "host-$r" "$out/small-${r%%-*}.mlir" "$recipe"
done
# The benchmarks' other schedules and sizes (examples/bench/*-bench.sh):
# recipes/<payload>-<variant>.json on examples/bench/<payload>.mlir, or on
# examples/<payload>.mlir.
bench=$src/examples/bench
export_ref bench-matmul2048-ref "$bench/matmul2048.mlir"
# use_wgmma's bf16 matmul at 1024, 2048, 8192 and odd sizes (a partial last
# tile of K): examples/bench/matmul16-sizes-bench.sh,
# test/Integration/matmul16-sizes.test.
for size in 1024 2048 8192 odd; do
  export_ref "bench-matmul_bf16_$size-ref" "$bench/matmul_bf16_$size.mlir"
done
export_ref bench-rmsnorm8192-ref "$bench/rmsnorm8192.mlir"
for recipe in "$bench"/recipes/*.json; do
  payload=$(basename "$recipe" .json)
  payload=${payload%%-*}.mlir
  [ -f "$bench/$payload" ] && payload=$bench/$payload || payload=$ex/$payload
  from_recipe "bench-$(basename "$recipe" .json)" "$payload" "$recipe"
done
# use_wgmma's recipe at an odd-ish size its tiles divide
# (test/Integration/matmul16-wgmma.test).
export_ref matmul_bf16-odd-ref "$in/matmul_bf16-odd.mlir"
from_recipe recipe-matmul_bf16-wgmma-odd "$in/matmul_bf16-odd.mlir" \
  "$ex/recipes/matmul_bf16-wgmma.json"
# use_wgmma's tf32 linear at odd sizes: tails in M and N, a last tile of 4
# along K (test/Integration/linear-tf32.test).
export_ref linear_f32-odd-ref "$in/linear_f32-odd.mlir"
from_recipe recipe-linear_f32-wgmma-odd "$in/linear_f32-odd.mlir" \
  "$ex/recipes/linear_f32-wgmma.json"
# The tf32 matmul with B held as (k, n), at the same odd sizes: use_wgmma's
# swapped product, C^T = B^T A^T (test/Integration/linear-tf32.test).
export_ref matmul_f32-odd-ref "$in/matmul_f32-odd.mlir"
from_recipe recipe-matmul_f32-wgmma-odd "$in/matmul_f32-odd.mlir" \
  "$ex/recipes/linear_f32-wgmma.json"
# A bf16 linear on the same K-major path (test/Integration/linear16.test).
export_ref linear_bf16-ref "$in/linear_bf16.mlir"
from_recipe recipe-linear_bf16-wgmma "$in/linear_bf16.mlir" \
  "$ex/recipes/matmul_bf16-wgmma.json"
# The same linear on mma.sync (what tirx auto takes on an sm_80 workspace,
# and took before it proposed use_wgmma: the suite's linear_bf16 is on
# wgmma now).
from_recipe recipe-linear_bf16-pipeline "$in/linear_bf16.mlir" \
  "$ex/recipes/matmul_bf16-pipeline.json"
# The tf32 linear with a bias and GELU in its epilogue (one kernel), by the bf16
# recipe.
export_ref linear_bias_gelu_f32-ref "$in/linear_bias_gelu_f32.mlir"
from_recipe recipe-linear_bias_gelu_f32-wgmma "$in/linear_bias_gelu_f32.mlir" \
  "$ex/recipes/matmul_bias_gelu_bf16-wgmma.json"
# The payload suite (examples/suite): each recipe's bundle (suite-<name>)
# and its reference (suite-<name>-ref); tensor payloads bufferized by the
# passes the coming `bufferize` action runs. A payload whose recipe does
# not reach a bundle yet has none (check_suite.py says why).
python3 "$src/examples/suite/check_suite.py" --bin "$(dirname "$opt")" --jobs 2 \
  --recipes-only --bundles "$out" > "$out/suite.txt" || true
touch "$out/.stamp"
