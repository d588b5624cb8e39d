#!/usr/bin/env bash
# The fused matmul + bias + GELU benchmark alone (bf16 4096^3, f32 Y), on a
# GPU host: examples/bench/matmul-gelu-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to matmul_bias_gelu: the TIRx bundle (one kernel)
# through tirx-run; torch eager (mm then bias then GELU; addmm then GELU),
# torch.compile, a fused Triton kernel and cuBLASLt's own GELU epilogue (for
# scale) timed by timing.py in the same run; OUT_DIR/all.json and all.md.
TIRX_BENCH_ONLY=matmul_bias_gelu exec "$(dirname "$0")/all-bench.sh" "$@"
