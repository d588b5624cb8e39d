// tile_reduction: the reduction loops of a linalg op tiled into an scf.for.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @reduce
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xf32, strided<[64, 1], offset: ?>>, memref<16x8xf32
func.func @reduce(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.tirx.tile_reduction %m tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @not_reduction(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %c: memref<8x8xf32>) {
  // expected-note @below {{payload op: func @not_reduction / linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_reduction: loop 0 is parallel}}
    // expected-note @below {{hint: tile parallel loops with tile_to_blocks or tile_to_threads}}
    %t, %l = transform.tirx.tile_reduction %m tile_sizes [4, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
