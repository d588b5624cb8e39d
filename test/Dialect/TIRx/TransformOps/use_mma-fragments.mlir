// The fragment layout of use_mma, pinned element by element against the PTX
// ISA manual ("Matrix fragments for mma.m16n8k8", .tf32): groupID g = lane / 4,
// threadID_in_group t = lane % 4;
//   A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B: b0 (t, g), b1 (t + 4, g)
//   C: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// One warp, one 16x8x8 step, so that every index is visible. A wrong index
// here also fails test/Tools/cpu-check (the numbers, on the CPU).
// RUN: tirx-opt %s --transform-interpreter --canonicalize --cse | FileCheck %s

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
