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

// -----

// A parallel loop of extent 0 (an empty batch of rows) left whole: refused
// as tile_to_blocks refuses it (upstream's tiling crashed on it).
func.func @empty_rows(%a: memref<0x64xf32>, %s: memref<0xf32>) {
  // expected-note @below {{payload op: func @empty_rows / linalg.reduce#0}}
  linalg.reduce ins(%a : memref<0x64xf32>) outs(%s : memref<0xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: loop 0 has extent 0}}
    // expected-note @below {{hint: remove the op from the payload}}
    %t, %l = transform.tirx.tile_reduction %m tile_sizes [0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
