// tirx-lower-vector-transfers: in-bounds minor-identity transfers become
// vector.load/store (transposed or broadcast maps first brought to that
// form). A 1-D transfer that may be out of bounds stays: vector-to-scf
// (target rank 1) leaves it, and the NVVM lowering then rejects it.
// RUN: tirx-opt %s -split-input-file --tirx-lower-vector-transfers | FileCheck %s

// CHECK-LABEL: func.func @in_bounds
//  CHECK-SAME:   (%[[M:.*]]: memref<1024xf32>, %[[I:.*]]: index)
//       CHECK:   %[[V:.*]] = vector.load %[[M]][%[[I]]] : memref<1024xf32>, vector<4xf32>
//       CHECK:   vector.store %[[V]], %[[M]][%[[I]]] : memref<1024xf32>, vector<4xf32>
//   CHECK-NOT:   vector.transfer_
func.func @in_bounds(%m: memref<1024xf32>, %i: index) {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i], %pad {in_bounds = [true]} : memref<1024xf32>, vector<4xf32>
  vector.transfer_write %v, %m[%i] {in_bounds = [true]} : vector<4xf32>, memref<1024xf32>
  return
}

// -----

// A broadcast read: one scalar per vector.
// CHECK-LABEL: func.func @broadcast
//       CHECK:   %[[S:.*]] = vector.load %{{.*}} : memref<64x64xf32>, vector<f32>
//       CHECK:   vector.broadcast %[[S]] : vector<f32> to vector<4xf32>
//   CHECK-NOT:   vector.transfer_read
func.func @broadcast(%m: memref<64x64xf32>, %i: index, %j: index) -> vector<4xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %j], %pad {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (0)>} : memref<64x64xf32>, vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// Possibly out of bounds: left as it is.
// CHECK-LABEL: func.func @out_of_bounds
//       CHECK:   vector.transfer_read %{{.*}} : memref<1023xf32>, vector<4xf32>
func.func @out_of_bounds(%m: memref<1023xf32>, %i: index) -> vector<4xf32> {
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i], %pad : memref<1023xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
