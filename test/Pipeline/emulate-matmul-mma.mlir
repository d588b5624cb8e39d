// The schedules of use_mma and pipeline run on the CPU (emulate_warps.py:
// a warp's lanes in lockstep, ldmatrix and mma.sync by their PTX fragment
// layouts, cp.async copies landing only when a wait forces them) give
// C += A x B exactly, on inputs whose products and sums are exact. The
// tf32 case is the schedule already checked on the GPU: it validates the
// emulator's fragment layouts.
// RUN: tirx-opt %s -split-input-file --transform-interpreter --mlir-print-op-generic --mlir-print-local-scope \
// RUN:   | %python %S/emulate_warps.py | FileCheck %s

// CHECK: tf32_global: C 64 x 64, max |error| 0, mismatches 0
func.func @tf32_global(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>) outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 2] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: bf16_global: C 64 x 64, max |error| 0, mismatches 0
func.func @bf16_global(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xbf16>, memref<64x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An f16 accumulator: sums of small multiples of 1/16 are exact in f16.
// CHECK: f16_acc: C 32 x 32, max |error| 0, mismatches 0
func.func @f16_acc(%A: memref<32x32xf16>, %B: memref<32x32xf16>, %C: memref<32x32xf16>) {
  linalg.matmul ins(%A, %B : memref<32x32xf16>, memref<32x32xf16>) outs(%C : memref<32x32xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [16, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Staged in shared memory, fragments by ldmatrix (an odd count of B
// fragments: the last one by ldmatrix x2).
// CHECK: bf16_ldmatrix: C 64 x 48, max |error| 0, mismatches 0
func.func @bf16_ldmatrix(%A: memref<64x128xbf16>, %B: memref<128x48xbf16>, %C: memref<64x48xf32>) {
  linalg.matmul ins(%A, %B : memref<64x128xbf16>, memref<128x48xbf16>) outs(%C : memref<64x48xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 24] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Pipelined in 3 stages over 4 tiles of K: tiles 0 and 1 before the loop,
// the last two iterations issue nothing.
// CHECK: bf16_pipeline3: C 64 x 64, max |error| 0, mismatches 0
func.func @bf16_pipeline3(%A: memref<64x128xbf16>, %B: memref<128x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x128xbf16>, memref<128x64xbf16>) outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 2] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 3 : !transform.any_op
    transform.yield
  }
}

// -----

// Pipelined in 2 stages, f16, K steps of 16 (8 tiles).
// CHECK: f16_pipeline2: C 32 x 64, max |error| 0, mismatches 0
func.func @f16_pipeline2(%A: memref<32x128xf16>, %B: memref<128x64xf16>, %C: memref<32x64xf32>) {
  linalg.matmul ins(%A, %B : memref<32x128xf16>, memref<128x64xf16>) outs(%C : memref<32x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [1, 2] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 2 : !transform.any_op
    transform.yield
  }
}

// -----

// 4 stages over exactly 3 tiles (every copy issued before the loop).
// CHECK: bf16_pipeline4: C 32 x 32, max |error| 0, mismatches 0
func.func @bf16_pipeline4(%A: memref<32x48xbf16>, %B: memref<48x32xbf16>, %C: memref<32x32xf32>) {
  linalg.matmul ins(%A, %B : memref<32x48xbf16>, memref<48x32xbf16>) outs(%C : memref<32x32xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 4 : !transform.any_op
    transform.yield
  }
}
