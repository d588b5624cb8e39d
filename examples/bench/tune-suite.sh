#!/usr/bin/env bash
# `tirx tune` on the eight suite payloads of issue 12 (elementwise f32 and
# f16, a prime length, row sum, softmax, RMSNorm, transpose, matmul), ten
# minutes each, on a GPU host, then torch eager and torch.compile of each:
#   examples/bench/tune-suite.sh TIRX [OUT_DIR]
# TIRX: a tirx binary (the GPU host has no LLVM: use the one of `make pack`,
# with tirx-run beside it). Environment (optional):
#   TIRX_TUNE_TIME    seconds a payload (600: the issue's budget at most)
#   TIRX_TUNE_TIME_FOR  NAME=S,... seconds for some payloads
#   TIRX_TUNE_BUDGET  distinct candidates a payload at most (unbounded)
#   TIRX_TUNE_POLICY  evolutionary | mcts | random | greedy (evolutionary)
#   TIRX_TUNE_ONLY    a comma list of payload names
#   TIRX_TUNE_DB      a tuning database to start from and add to
# Writes OUT_DIR/tune-suite.{json,md}, the JSON lines of each tune, and the
# workspaces (rerunning resumes each tune where it stopped).
set -euo pipefail
tirx=${1:?usage: tune-suite.sh TIRX [OUT_DIR]}
out=${2:-tune-suite}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 "$here/tune_suite.py" "$tirx" "$out" \
  --time "${TIRX_TUNE_TIME:-600}" --policy "${TIRX_TUNE_POLICY:-evolutionary}" \
  ${TIRX_TUNE_ONLY:+--only "$TIRX_TUNE_ONLY"} ${TIRX_TUNE_DB:+--db "$TIRX_TUNE_DB"} \
  ${TIRX_TUNE_TIME_FOR:+--time-for "$TIRX_TUNE_TIME_FOR"} \
  ${TIRX_TUNE_BUDGET:+--budget "$TIRX_TUNE_BUDGET"}
