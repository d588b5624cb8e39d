#!/usr/bin/env bash
# End-to-end screening rate of `tirx tune` (issue 12's bar: 20 candidates/s
# on one H200 host for the 2^26-element saxpy and 2^20-element elementwise
# kernels): a fresh tune of each payload with --budget, its report's
# candidates per second, the builds (how many took a process) and the CPU
# time a candidate.
#   examples/bench/tune-rate.sh TIRX [OUT_DIR] [--budget N] [--jobs N]
#       [--compile-only] [--runner TIRX-RUN] [--only a,b] [--min-rate R]
# TIRX: a tirx binary with tirx-run beside it (on the GPU host, the one of
# `make pack`). See tune_rate.py for the payloads and the figures.
set -euo pipefail
tirx=${1:?usage: tune-rate.sh TIRX [OUT_DIR] [options of tune_rate.py]}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 "$here/tune_rate.py" "$tirx" "$@"
