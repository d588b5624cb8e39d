#!/usr/bin/env bash
# The 16-bit matmul benchmarks alone (bf16 and f16 4096^3, f32 sums), on a
# GPU host: examples/bench/matmul16-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to matmul_bf16,matmul_f16: the TIRx bundles
# through tirx-run, cuBLAS and Triton timed by timing.py in the same run;
# OUT_DIR/all.json and all.md.
TIRX_BENCH_ONLY=matmul_bf16,matmul_f16 exec "$(dirname "$0")/all-bench.sh" "$@"
