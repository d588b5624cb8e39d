#!/usr/bin/env bash
# The saxpy benchmark of docs/benchmarks.md alone, on a GPU host:
#   examples/bench/saxpy-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to saxpy: the TIRx bundles through tirx-run and the
# peers timed by timing.py in the same run; OUT_DIR/all.json and all.md.
TIRX_BENCH_ONLY=saxpy exec "$(dirname "$0")/all-bench.sh" "$@"
