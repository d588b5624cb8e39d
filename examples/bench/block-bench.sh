#!/usr/bin/env bash
# The transformer-block benchmark of docs/benchmarks.md, on a GPU host, in
# one command: `tirx profile` of examples/transformer-block.mlir (its 20
# kernels ranked by time share), the whole block as one bundle timed in one
# run, torch eager and torch.compile of the same block (block_peers.py,
# timed as tirx-run times), then `tirx tune --kernels` (hottest first) and
# the block's time before and after:
#   examples/bench/block-bench.sh TIRX [OUT_DIR] [OPTIONS of block_bench.py]
# TIRX: a tirx binary (the GPU host has no LLVM: use the one of `make pack`,
# with tirx-run beside it). Environment (optional):
#   TIRX_BLOCK_TUNE_TIME   the tune's seconds at most (240)
#   TIRX_BLOCK_DEADLINE    seconds from the start by which every step is over
#                          (450; SIGTERM, SIGKILL 30 s later): the tune gets
#                          what is left less 60 s, if less than its time
#   TIRX_BLOCK_PRECISIONS  the peers' precisions, in order (tf32,ieee)
#   TIRX_BLOCK_COMPILE_PRECISIONS  those torch.compile runs at (tf32: its
#                          max-autotune takes a minute or more a precision)
#   TIRX_BLOCK_TUNE_ARGS   more arguments of tirx tune ("--top-k 2"; "" for none)
#   TIRX_BENCH_SAMPLES     samples a timing, TIRx and peers alike (tirx-run's
#                          rule: about 1 s)
#   TIRX_BENCH_COMPILE_MODE  torch.compile's mode (max-autotune-no-cudagraphs)
# Writes OUT_DIR/block.{json,md} (printed), each step's .out/.err, the
# workspaces ws (profile, kernels, tunes) and whole (the one-bundle block).
# Exit 1 if any step failed or timed out; the files are written either way.
set -euo pipefail
tirx=${1:?usage: block-bench.sh TIRX [OUT_DIR] [OPTIONS of block_bench.py]}
out=${2:-block-bench}
shift $(( $# < 2 ? $# : 2 ))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-${TMPDIR:-/tmp}/tirx-bench-cache/inductor}
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-${TMPDIR:-/tmp}/tirx-bench-cache/triton}
tune_args=()
for a in ${TIRX_BLOCK_TUNE_ARGS---top-k 2}; do tune_args+=("--tune-arg=$a"); done
exec python3 "$here/block_bench.py" "$tirx" "$out" \
  --time "${TIRX_BLOCK_TUNE_TIME:-240}" --deadline "${TIRX_BLOCK_DEADLINE:-450}" \
  --precisions "${TIRX_BLOCK_PRECISIONS:-tf32,ieee}" \
  --compile-precisions "${TIRX_BLOCK_COMPILE_PRECISIONS:-tf32}" \
  ${TIRX_BENCH_SAMPLES:+--samples "$TIRX_BENCH_SAMPLES"} "${tune_args[@]}" "$@"
