#!/usr/bin/env bash
# The exp-scale benchmark of docs/benchmarks.md alone, on a GPU host:
#   examples/bench/exp-scale-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to exp-scale: the TIRx bundles through tirx-run and the
# peers timed by timing.py in the same run; OUT_DIR/all.json and all.md.
TIRX_BENCH_ONLY=exp-scale exec "$(dirname "$0")/all-bench.sh" "$@"
