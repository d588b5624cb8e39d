#!/usr/bin/env bash
# Every benchmark of docs/benchmarks.md in one run, on a GPU host:
#   examples/bench/all-bench.sh [BUILD_DIR] [OUT_DIR]
# Runs the TIRx bundles of saxpy, exp-scale, row sums, RMSNorm and matmul
# through tirx-run (each checked against its reference, then timed), then
# every peer (torch eager, torch.compile, autotuned Triton, cuBLAS) in one
# Python process timed by timing.py the way tirx-run times (same L2 flush,
# warm-up, sample count, median), and writes
#   OUT_DIR/all.json  every figure of the run, with device, versions, command
#   OUT_DIR/all.md    the table for docs/benchmarks.md (also printed)
# Environment (all optional):
#   TIRX_BENCH_SAMPLES       samples per kernel, TIRx and peers alike (1000)
#   TIRX_BENCH_ONLY          a comma list of saxpy,exp-scale,rowsum,rmsnorm,matmul,
#                            matmul_bf16,matmul_f16,matmul_bias_gelu,
#                            matmul_bf16_sizes,linear_tf32
#   TIRX_BENCH_COMPILE_MODE  torch.compile mode (max-autotune-no-cudagraphs)
#   TIRX_BENCH_COMMIT        the commit to name in the table (default: git's)
# Exit status: 1 if a TIRx bundle failed its check or was implausible, or a
# peer failed its check; the table is written either way.
source "$(dirname "$0")/common.sh"
samples=${TIRX_BENCH_SAMPLES:-1000}
only=${TIRX_BENCH_ONLY:-saxpy,exp-scale,rowsum,rmsnorm,matmul,matmul_bf16,matmul_f16}
# Compiler caches outside OUT_DIR (OUT_DIR holds only what the table needs);
# a second run on the same host reuses them and compiles faster.
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-${TMPDIR:-/tmp}/tirx-bench-cache/inductor}
export TRITON_CACHE_DIR=${TRITON_CACHE_DIR:-${TMPDIR:-/tmp}/tirx-bench-cache/triton}
status=0
start=$(date +%s)
tirx() { # name reference bundle...: one tirx-run process, feedback in $out/name-tirx.json
  local name=$1 ref=$2; shift 2
  local args=()
  for b in "$@"; do args+=("$bundles/$b"); done
  echo "tirx-run: $name" >&2
  "$build/bin/tirx-run" --samples "$samples" "${args[@]}" \
    --reference "$bundles/$ref" -o "$out/$name-tirx.json" || status=1
}
rm -f "$out"/*-tirx.json "$out/peers.json"
for bench in ${only//,/ }; do
  case $bench in
    saxpy) tirx saxpy saxpy-ref saxpy-scalar saxpy-vec4 ;;
    exp-scale) tirx exp-scale exp-scale-ref exp-scale-fused ;;
    rowsum) tirx rowsum rowsum-ref bench-rowsum-rows recipe-rowsum-split \
              bench-rowsum-split256 bench-rowsum-chunked bench-rowsum-block ;;
    rmsnorm) tirx rmsnorm rmsnorm-ref recipe-rmsnorm-fused recipe-rmsnorm-block ;;
    matmul) tirx matmul256 matmul-ref recipe-matmul-shared recipe-matmul-mma
            tirx matmul2048 bench-matmul2048-ref bench-matmul2048-simt \
              bench-matmul2048-mma64 bench-matmul2048-mma128 \
              bench-matmul2048-mma-shared bench-matmul2048-mmapad \
              bench-matmul2048-mmapad128 ;;
    matmul_bf16|matmul_f16)
            tirx $bench $bench-ref recipe-$bench-mma recipe-$bench-pipeline \
              bench-$bench-k16s4 bench-$bench-n256s3 bench-$bench-k32s4 \
              bench-$bench-n256k32s3 recipe-$bench-wgmma bench-$bench-wgmma128 \
              bench-$bench-wgmma128s3 bench-$bench-wgmma256s3 ;;
    matmul_bias_gelu)
            tirx matmul_bias_gelu matmul_bias_gelu_bf16-ref recipe-matmul_bias_gelu_bf16-wgmma ;;
    matmul_bf16_sizes)
            for size in 1024 2048 8192; do
              tirx matmul_bf16_$size bench-matmul_bf16_$size-ref \
                bench-matmul_bf16_$size-wgmma bench-matmul_bf16_$size-wgmma128
            done
            tirx matmul_bf16_odd bench-matmul_bf16_odd-ref bench-matmul_bf16_odd-wgmma ;;
    linear_tf32)
            tirx linear_tf32 linear_f32-ref recipe-linear_f32-wgmma \
              bench-linear_f32-wgmma128 bench-linear_f32-wgmma256s3 ;;
    *) echo "all-bench.sh: unknown benchmark '$bench'" >&2; exit 2 ;;
  esac
done
tirx_s=$(( $(date +%s) - start ))
python3 "$here/peers.py" --samples "$samples" --only "$only" -o "$out/peers.json" || status=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/nvidia-smi.txt" 2>/dev/null || true
commit=${TIRX_BENCH_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}
python3 "$here/report.py" "$out" --bundles "$bundles" --commit "$commit" --samples "$samples" \
  --command "${TIRX_BENCH_ONLY:+TIRX_BENCH_ONLY=$only }${TIRX_BENCH_COMPILE_MODE:+TIRX_BENCH_COMPILE_MODE=$TIRX_BENCH_COMPILE_MODE }TIRX_BENCH_SAMPLES=$samples examples/bench/all-bench.sh $build OUT" \
  --tirx-wall "$tirx_s" --wall "$(( $(date +%s) - start ))" || status=1
exit $status
