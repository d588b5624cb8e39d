// The fragment layout of use_mma, pinned element by element against the PTX
// ISA manual ("Matrix fragments for mma.m16n8k8", .tf32): groupID g = lane / 4,
// threadID_in_group t = lane % 4;
//   A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B: b0 (t, g), b1 (t + 4, g)
//   C: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// One warp, one 16x8x8 step, so that every index is visible. A wrong index
// here also fails test/Tools/cpu-check (the numbers, on the CPU).
// RUN: tirx-opt %s -split-input-file --transform-interpreter --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @one_fragment(
//  CHECK-SAME:     %[[A:[a-z0-9]+]]: memref<16x8xf32>, %[[B:[a-z0-9]+]]: memref<8x8xf32>, %[[C:[a-z0-9]+]]: memref<16x8xf32>)
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
//       CHECK:   %[[LANE:.*]] = gpu.lane_id upper_bound 32
//       CHECK:   %[[G:.*]] = arith.divui %[[LANE]], %[[C4]] : index
//       CHECK:   %[[T:.*]] = arith.remui %[[LANE]], %[[C4]] : index
//       CHECK:   %[[T2:.*]] = arith.muli %[[T]], %[[C2]] : index
//       CHECK:   %[[C0V:.*]] = memref.load %[[C]][%[[G]], %[[T2]]]
//       CHECK:   %[[T21:.*]] = arith.addi %[[T2]], %[[C1]] : index
//       CHECK:   %[[C1V:.*]] = memref.load %[[C]][%[[G]], %[[T21]]]
//       CHECK:   %[[G8:.*]] = arith.addi %[[G]], %[[C8]] : index
//       CHECK:   %[[C2V:.*]] = memref.load %[[C]][%[[G8]], %[[T2]]]
//       CHECK:   %[[C3V:.*]] = memref.load %[[C]][%[[G8]], %[[T21]]]
//       CHECK:   %[[CF:.*]] = vector.from_elements %[[C0V]], %[[C1V]], %[[C2V]], %[[C3V]] : vector<2x2xf32>
//       CHECK:   %[[T4:.*]] = arith.addi %[[T]], %[[C4]] : index
//       CHECK:   %[[A0:.*]] = memref.load %[[A]][%[[G]], %[[T]]]
//       CHECK:   %[[A1:.*]] = memref.load %[[A]][%[[G8]], %[[T]]]
//       CHECK:   %[[A2:.*]] = memref.load %[[A]][%[[G]], %[[T4]]]
//       CHECK:   %[[A3:.*]] = memref.load %[[A]][%[[G8]], %[[T4]]]
//       CHECK:   %[[AF:.*]] = vector.from_elements %[[A0]], %[[A1]], %[[A2]], %[[A3]] : vector<4x1xf32>
//       CHECK:   %[[B0:.*]] = memref.load %[[B]][%[[T]], %[[G]]]
//       CHECK:   %[[B1:.*]] = memref.load %[[B]][%[[T4]], %[[G]]]
//       CHECK:   %[[BF:.*]] = vector.from_elements %[[B0]], %[[B1]] : vector<2x1xf32>
//       CHECK:   %[[D:.*]] = nvgpu.mma.sync(%[[AF]], %[[BF]], %[[CF]]) {mmaShape = [16, 8, 8], tf32Enabled}
//       CHECK:   %[[D0:.*]] = vector.extract %[[D]][0, 0]
//       CHECK:   memref.store %[[D0]], %[[C]][%[[G]], %[[T2]]]
//       CHECK:   %[[D1:.*]] = vector.extract %[[D]][0, 1]
//       CHECK:   memref.store %[[D1]], %[[C]][%[[G]], %[[T21]]]
//       CHECK:   %[[D2:.*]] = vector.extract %[[D]][1, 0]
//       CHECK:   memref.store %[[D2]], %[[C]][%[[G8]], %[[T2]]]
//       CHECK:   %[[D3:.*]] = vector.extract %[[D]][1, 1]
//       CHECK:   memref.store %[[D3]], %[[C]][%[[G8]], %[[T21]]]
func.func @one_fragment(%A: memref<16x8xf32>, %B: memref<8x8xf32>, %C: memref<16x8xf32>) {
  linalg.matmul ins(%A, %B : memref<16x8xf32>, memref<8x8xf32>)
                outs(%C : memref<16x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [16, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Transposed operands (A held as (k, m), B as (n, k): nn.Linear's x W^T):
// the same fragments, each load's indices swapped. A: a0 (t, g), a1
// (t, g + 8), a2 (t + 4, g), a3 (t + 4, g + 8) of the (k, m) tile; B: b0
// (g, t), b1 (g, t + 4) of the (n, k) tile.
// CHECK-LABEL: func.func @one_fragment_transposed(
//  CHECK-SAME:     %[[A:[a-z0-9]+]]: memref<8x16xf32>, %[[B:[a-z0-9]+]]: memref<8x8xf32>, %[[C:[a-z0-9]+]]: memref<16x8xf32>)
//       CHECK:   %[[LANE:.*]] = gpu.lane_id upper_bound 32
//       CHECK:   %[[G:.*]] = arith.divui %[[LANE]], %[[C4:.*]] : index
//       CHECK:   %[[T:.*]] = arith.remui %[[LANE]], %[[C4]] : index
//       CHECK:   %[[G8:.*]] = arith.addi %[[G]], %{{.*}} : index
//       CHECK:   vector.from_elements {{.*}} : vector<2x2xf32>
//       CHECK:   %[[T4:.*]] = arith.addi %[[T]], %[[C4]] : index
//       CHECK:   %[[A0:.*]] = memref.load %[[A]][%[[T]], %[[G]]]
//       CHECK:   %[[A1:.*]] = memref.load %[[A]][%[[T]], %[[G8]]]
//       CHECK:   %[[A2:.*]] = memref.load %[[A]][%[[T4]], %[[G]]]
//       CHECK:   %[[A3:.*]] = memref.load %[[A]][%[[T4]], %[[G8]]]
//       CHECK:   %[[AF:.*]] = vector.from_elements %[[A0]], %[[A1]], %[[A2]], %[[A3]] : vector<4x1xf32>
//       CHECK:   %[[B0:.*]] = memref.load %[[B]][%[[G]], %[[T]]]
//       CHECK:   %[[B1:.*]] = memref.load %[[B]][%[[G]], %[[T4]]]
//       CHECK:   %[[BF:.*]] = vector.from_elements %[[B0]], %[[B1]] : vector<2x1xf32>
//       CHECK:   nvgpu.mma.sync(%[[AF]], %[[BF]], %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
func.func @one_fragment_transposed(%A: memref<8x16xf32>, %B: memref<8x8xf32>, %C: memref<16x8xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<8x16xf32>, memref<8x8xf32>)
                outs(%C : memref<16x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [16, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// ldmatrix on transposed 16-bit tiles (PTX ISA, ldmatrix: lanes 8j to
// 8j + 7 address the rows of matrix j; thread i receives row i / 4,
// elements 2 (i % 4) and the next, of each matrix, or of its transpose
// with .trans). A held as (k, m): matrices (m 0-7, k 0-7), (m 8-15, k 0-7),
// (m 0-7, k 8-15), (m 8-15, k 8-15) stored as k rows, so .trans, lane l at
// k row l % 8 + 8 (l / 16), m column 8 ((l % 16) / 8). B held as (n, k):
// rows of n with k contiguous are mma.sync's own "col" B, so no .trans;
// x4 (two n-fragments): lane l at n row l % 8 + 8 (l / 16), k column
// 8 ((l % 16) / 8); the third fragment x2, n row 16 + l % 8.
// CHECK-LABEL: func.func @ldmatrix_transposed
//   CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
//       CHECK:   %[[LANE:.*]] = gpu.lane_id upper_bound 32
//       CHECK:   %[[L16:.*]] = arith.remui %[[LANE]], %[[C16]] : index
//       CHECK:   %[[HI:.*]] = arith.divui %[[LANE]], %[[C16]] : index
//       CHECK:   %[[ROWT:.*]] = arith.muli %[[HI]], %[[C8]] : index
//       CHECK:   %[[L8:.*]] = arith.remui %[[LANE]], %[[C8]] : index
//       CHECK:   %[[MID:.*]] = arith.divui %[[L16]], %[[C8]] : index
//       CHECK:   %[[COLT:.*]] = arith.muli %[[MID]], %[[C8]] : index
//       CHECK:   %[[ROW:.*]] = arith.addi %[[L8]], %[[ROWT]] : index
//       CHECK:   nvgpu.ldmatrix %{{.*}}[%[[ROW]], %[[COLT]]] {numTiles = 4 : i32, transpose = true} : memref<16x16xbf16, strided<[24, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:   %[[BOTH:.*]] = nvgpu.ldmatrix %{{.*}}[%[[ROW]], %[[COLT]]] {numTiles = 4 : i32, transpose = false} : memref<24x16xbf16, strided<[24, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:   vector.shuffle %[[BOTH]], %[[BOTH]] [0, 1]
//       CHECK:   vector.shuffle %[[BOTH]], %[[BOTH]] [2, 3]
//       CHECK:   %[[ROW2:.*]] = arith.addi %[[L8]], %[[C16]] : index
//       CHECK:   nvgpu.ldmatrix %{{.*}}[%[[ROW2]], %[[COLT]]] {numTiles = 2 : i32, transpose = false} : memref<24x16xbf16, strided<[24, 1]>, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
//  CHECK-COUNT-3:   nvgpu.mma.sync
func.func @ldmatrix_transposed(%A: memref<16x16xbf16>, %B: memref<24x16xbf16>, %C: memref<16x24xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<16x16xbf16>, memref<24x16xbf16>)
                outs(%C : memref<16x24xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [16, 24] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %t operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [1, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
