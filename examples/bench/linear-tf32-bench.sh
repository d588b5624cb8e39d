#!/usr/bin/env bash
# The tf32 linear benchmark alone (C += A x W^T, f32 4096^3, W held as
# (n, k); tf32 products), on a GPU host:
#   examples/bench/linear-tf32-bench.sh [BUILD_DIR] [OUT_DIR]
# all-bench.sh restricted to linear_tf32: the TIRx bundles (use_wgmma) through
# tirx-run, cuBLAS tf32 (C.addmm_(A, W.t()) under
# torch.set_float32_matmul_precision("high")) and Triton timed by timing.py
# in the same run; OUT_DIR/all.json and all.md.
TIRX_BENCH_ONLY=linear_tf32 exec "$(dirname "$0")/all-bench.sh" "$@"
