// A 4-D copy (x.permute(0, 2, 1, 3), the innermost loop unpermuted): the
// blocks take the 3 outer loops, the threads the 2 inner ones with the
// second loop left whole to the block (0 elements: untiled). At most 3
// sizes are nonzero (x, y, z), but the list may be as long as the op has
// loops. Each thread gets 1 x 8 contiguous elements of a row: 16 threads
// cover a 128-element row, a warp two whole rows.
// RUN: tirx-opt %s --transform-interpreter | FileCheck %s

func.func @permute(%x: memref<2x64x4x128xf16>, %y: memref<2x4x64x128xf16>) {
  linalg.transpose ins(%x : memref<2x64x4x128xf16>) outs(%y : memref<2x4x64x128xf16>) permutation = [0, 2, 1, 3]
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.transpose"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1, 1, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [0, 0, 1, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
// CHECK-LABEL: func.func @permute
// CHECK: scf.forall (%[[B0:.*]], %[[B1:.*]], %[[B2:.*]]) in (2, 4, 4) {
// CHECK: scf.forall (%[[T0:.*]], %[[T1:.*]]) in (16, 16) {
// CHECK: %[[C:.*]] = affine.apply #{{.*}}(%[[T1]])
// CHECK: memref.subview %{{.*}}[0, %[[T0]], 0, %[[C]]] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x16x1x128xf16, {{.*}}> to memref<1x1x1x8xf16
// CHECK: memref.subview %{{.*}}[0, 0, %[[T0]], %[[C]]] [1, 1, 1, 8] [1, 1, 1, 1] : memref<1x1x16x128xf16, {{.*}}> to memref<1x1x1x8xf16
// CHECK: linalg.transpose ins({{.*}} : memref<1x1x1x8xf16, {{.*}}>) outs({{.*}} : memref<1x1x1x8xf16, {{.*}}>) permutation = [0, 2, 1, 3]
// CHECK: } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: } {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
