// tile_to_threads takes over the fill that starts a reduction's outputs:
// each thread fills the outputs it reduces into, and the fill (a kernel of
// its own once mapped) goes. Only where the fill alone starts the buffer.
// RUN: tirx-opt %s -split-input-file --transform-interpreter | FileCheck %s

// A column sum into a fresh output: the fill moves into the threads, on
// each thread's 4 outputs, in front of its reduction.
// CHECK-LABEL: func.func @column_sum
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (8) {
//       CHECK:     scf.forall (%{{.*}}) in (32) {
//       CHECK:       %[[T:.*]] = memref.subview %{{.*}} : memref<128xf32, {{.*}}> to memref<4xf32
//       CHECK:       linalg.fill ins(%{{.*}} : f32) outs(%[[T]] : memref<4xf32
//       CHECK:       linalg.generic {{.*}} outs(%[[T]] : memref<4xf32
func.func @column_sum(%x: memref<64x1024xf32>, %s: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x1024xf32>) outs(%s : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [0, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The output is read between the fill and the reduction (a copy of it):
// the fill stays where it is.
// CHECK-LABEL: func.func @read_between
//       CHECK:   linalg.fill
//       CHECK:   memref.copy
//       CHECK:   scf.forall
//       CHECK:     scf.forall
//   CHECK-NOT:       linalg.fill
//       CHECK:       linalg.generic
func.func @read_between(%x: memref<64x1024xf32>, %s: memref<1024xf32>, %c: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<1024xf32>)
  memref.copy %s, %c : memref<1024xf32> to memref<1024xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x1024xf32>) outs(%s : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [0, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
