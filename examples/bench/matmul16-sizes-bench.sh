#!/usr/bin/env bash
# The bf16 matmul at the other sizes of docs/benchmarks.md's table (1024^3,
# 2048^3, 8192^3, 4000 x 4096 x 4104) with 4096^3 for reference, on a GPU
# host: examples/bench/matmul16-sizes-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to matmul_bf16,matmul_bf16_sizes: use_wgmma's
# bundles through tirx-run, cuBLAS (f32 output) and autotuned Triton timed
# by timing.py in the same run; OUT_DIR/all.json and all.md (the table).
TIRX_BENCH_ONLY=matmul_bf16,matmul_bf16_sizes exec "$(dirname "$0")/all-bench.sh" "$@"
