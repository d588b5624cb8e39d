// tirx-fold-views: views folded into their accesses (upstream's
// fold-memref-alias-ops), except collapsed views: an access of a
// memref.collapse_shape keeps its flat index (aligned vectors, a bound the
// bounds check can prove), where upstream would index the buffer by
// i floordiv n, i mod n.
// RUN: tirx-opt %s --tirx-fold-views | FileCheck %s

// CHECK-LABEL: func.func @subview
//  CHECK-SAME: (%[[X:.*]]: memref<64x64xf32>, %[[I:.*]]: index)
//       CHECK:   %[[R:.*]] = affine.apply {{.*}}[%[[I]]]
//       CHECK:   memref.load %[[X]][%[[R]], %{{.*}}] : memref<64x64xf32>
func.func @subview(%x: memref<64x64xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.subview %x[8, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: 512>>
  %r = memref.load %v[%i, %c0] : memref<8x64xf32, strided<[64, 1], offset: 512>>
  return %r : f32
}

// CHECK-LABEL: func.func @expanded
//       CHECK:   %[[L:.*]] = affine.linearize_index
//       CHECK:   vector.load %{{.*}}[%[[L]]] : memref<4096xf32>, vector<4xf32>
func.func @expanded(%x: memref<4096xf32>, %i: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %v = memref.expand_shape %x [[0, 1]] output_shape [64, 64] : memref<4096xf32> into memref<64x64xf32>
  %r = vector.load %v[%i, %c0] : memref<64x64xf32>, vector<4xf32>
  return %r : vector<4xf32>
}

// CHECK-LABEL: func.func @collapsed
//       CHECK:   %[[F:.*]] = memref.collapse_shape
//       CHECK:   vector.load %[[F]][%{{.*}}] {alignment = 16 : i64} : memref<16785409xf32>, vector<4xf32>
//       CHECK:   memref.load %[[F]][%{{.*}}] : memref<16785409xf32>
//   CHECK-NOT:   floordiv
func.func @collapsed(%x: memref<4097x4097xf32>, %i: index) -> (vector<4xf32>, f32) {
  %f = memref.collapse_shape %x [[0, 1]] : memref<4097x4097xf32> into memref<16785409xf32>
  %c16785408 = arith.constant 16785408 : index
  %v = vector.load %f[%i] {alignment = 16 : i64} : memref<16785409xf32>, vector<4xf32>
  %s = memref.load %f[%c16785408] : memref<16785409xf32>
  return %v, %s : vector<4xf32>, f32
}
