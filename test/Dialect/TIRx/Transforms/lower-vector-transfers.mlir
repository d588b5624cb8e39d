// tirx-lower-vector-transfers: in-bounds minor-identity transfers become
// vector.load/store (transposed or broadcast maps first brought to that
// form). A 1-D transfer that may be out of bounds stays: vector-to-scf
// (target rank 1) leaves it, and the NVVM lowering then rejects it. A
// vector.step becomes its constant.
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

// -----

// vector.step (what vectorize makes of a linalg.index) becomes its
// constant: upstream lowers it in convert-vector-to-llvm alone, which the
// NVVM pipeline does not run.
// CHECK-LABEL: func.func @step
//       CHECK:   %[[C:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
//       CHECK:   arith.addi %{{.*}}, %[[C]] : vector<4xindex>
//   CHECK-NOT:   vector.step
func.func @step(%i: index) -> vector<4xindex> {
  %s = vector.step : vector<4xindex>
  %b = vector.broadcast %i : index to vector<4xindex>
  %r = arith.addi %b, %s : vector<4xindex>
  return %r : vector<4xindex>
}
