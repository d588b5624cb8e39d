#!/usr/bin/env bash
# A column reduction in one kernel (reduce_in_block spread by outputs)
# against the split schedule it replaced, on colmax and colsum_acc:
#   examples/bench/column-reduction-bench.sh prepare BUILD_DIR OUT_DIR
#       (where tirx and tirx-opt run: the variants' bundles, OUT_DIR/<variant>)
#   examples/bench/column-reduction-bench.sh run BUILD_DIR OUT_DIR
#       (on the GPU host, OUT_DIR carried there)
# Variants: split (32 parts chunked, parts first, the partial kernel and a
# combine: the suite's recipes until 2026-12-04), block512 (the suite's
# recipes: blocks of 32 columns, reduce_in_block 512 threads), block1024
# (1024 threads). `run` times every bundle with tirx-run (checked against
# its reference, 200 samples, L2 flushed, CUDA events) twice, interleaved,
# then block512 with torch eager and torch.compile in the same call
# (examples/suite/bench.py). docs/benchmarks.md has the figures.
set -euo pipefail
usage="usage: column-reduction-bench.sh prepare|run BUILD_DIR OUT_DIR"
mode=${1:?$usage}; build=${2:?$usage}; out=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
suite="$here/../suite"
payloads="colmax colsum_acc"
variants="split block512 block1024"
case $mode in
prepare)
  mkdir -p "$out/recipes"
  for v in $variants; do
    mkdir -p "$out/recipes/$v"
    for p in $payloads; do
      target=linalg.generic; first=""
      if [ $p = colmax ]; then
        target=linalg.reduce; first='{"params": {}, "transform": "bufferize"},'
      fi
      case $v in
      split)
        fill=0; [ $p = colmax ] && fill=1
        cat > "$out/recipes/$v/$p.json" <<JSON
[$first
  {"params": {"chunked": true, "parts": 32, "parts_first": true}, "target": {"index": 0, "op": "$target"}, "transform": "split_reduction"},
  {"params": {"tile_sizes": [1, 0, 1024]}, "target": {"index": 0, "op": "linalg.generic"}, "transform": "tile_to_blocks"},
  {"params": {"elements_per_thread": [1, 0, 4]}, "target": {"index": 0, "op": "linalg.generic"}, "transform": "tile_to_threads"},
  {"params": {"width": 4}, "target": {"index": $fill, "op": "linalg.fill"}, "transform": "vectorize"},
  {"params": {"width": 4}, "target": {"index": 0, "op": "linalg.generic"}, "transform": "vectorize"},
  {"params": {"tile_sizes": [0, 32]}, "target": {"index": 0, "op": "linalg.generic"}, "transform": "tile_to_blocks"},
  {"params": {"elements_per_thread": [0, 1]}, "target": {"index": 0, "op": "linalg.generic"}, "transform": "tile_to_threads"},
  {"params": {}, "transform": "map_to_gpu"}
]
JSON
        ;;
      block*)
        cat > "$out/recipes/$v/$p.json" <<JSON
[$first
  {"params": {"tile_sizes": [0, 32]}, "target": {"index": 0, "op": "$target"}, "transform": "tile_to_blocks"},
  {"params": {"threads": ${v#block}}, "target": {"index": 0, "op": "$target"}, "transform": "reduce_in_block"},
  {"params": {}, "transform": "map_to_gpu"}
]
JSON
        ;;
      esac
    done
    rm -rf "$out/$v"
    python3 "$suite/check_suite.py" --bin "$build/bin" --only colmax,colsum_acc \
      --recipes "$out/recipes/$v" --bundles "$out/$v" --recipes-only
  done
  ;;
run)
  for round in 1 2; do
    for p in $payloads; do
      for v in $variants; do
        printf '%-10s %-10s round %s: ' "$p" "$v" "$round"
        "$build/bin/tirx-run" "$out/$v/suite-$p" --reference "$out/$v/suite-$p-ref" \
          --samples 200 -o "$out/$v-$p-$round.json" 2>&1 | tail -1
      done
    done
  done
  python3 "$suite/bench.py" "$build" "$out/peers" --samples 200 \
    --only colmax,colsum_acc --bundles "$out/block512"
  ;;
*) echo "$usage" >&2; exit 2 ;;
esac
