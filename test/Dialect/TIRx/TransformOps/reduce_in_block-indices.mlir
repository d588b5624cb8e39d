// The index arithmetic of reduce_in_block's combining steps, pinned: each
// step combines a partial with its partner's, never with itself (the bug of
// issue 13 that passed every CPU test), at the partner's right offset. A
// wrong step here also fails test/Tools/cpu-check (the numbers, on the CPU).
// RUN: tirx-opt %s -split-input-file --transform-interpreter --canonicalize --cse | FileCheck %s

// f32: a warp's butterfly, shuffles xor 16, 8, 4, 2, 1 over 32 lanes, each
// adding the partner lane's value to the lane's own.
// CHECK-LABEL: func.func @sums_f32
//   CHECK-DAG:   %[[I1:.*]] = arith.constant 1 : i32
//   CHECK-DAG:   %[[I2:.*]] = arith.constant 2 : i32
//   CHECK-DAG:   %[[I4:.*]] = arith.constant 4 : i32
//   CHECK-DAG:   %[[I8:.*]] = arith.constant 8 : i32
//   CHECK-DAG:   %[[I16:.*]] = arith.constant 16 : i32
//   CHECK-DAG:   %[[I32:.*]] = arith.constant 32 : i32
//       CHECK:     %[[V0:.*]] = vector.reduction <add>, %{{.*}} : vector<4xf32> into f32
//       CHECK:     %[[R0:.*]], %{{.*}} = gpu.shuffle  xor %[[V0]], %[[I16]], %[[I32]] : f32
//       CHECK:     %[[V1:.*]] = arith.addf %[[V0]], %[[R0]] : f32
//       CHECK:     %[[R1:.*]], %{{.*}} = gpu.shuffle  xor %[[V1]], %[[I8]], %[[I32]] : f32
//       CHECK:     %[[V2:.*]] = arith.addf %[[V1]], %[[R1]] : f32
//       CHECK:     %[[R2:.*]], %{{.*}} = gpu.shuffle  xor %[[V2]], %[[I4]], %[[I32]] : f32
//       CHECK:     %[[V3:.*]] = arith.addf %[[V2]], %[[R2]] : f32
//       CHECK:     %[[R3:.*]], %{{.*}} = gpu.shuffle  xor %[[V3]], %[[I2]], %[[I32]] : f32
//       CHECK:     %[[V4:.*]] = arith.addf %[[V3]], %[[R3]] : f32
//       CHECK:     %[[R4:.*]], %{{.*}} = gpu.shuffle  xor %[[V4]], %[[I1]], %[[I32]] : f32
//       CHECK:     %[[V5:.*]] = arith.addf %[[V4]], %[[R4]] : f32
//       CHECK:     scf.if
//       CHECK:       memref.store %[[V5]], %[[WP:.*]][%{{.*}}, %{{.*}}]
func.func @sums_f32(%x: memref<4x256xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f64: a tree in shared memory over 64 partials: thread t < h adds partial
// t + h to partial t, h = 32, 16, ..., 1, a barrier after each step; then
// the block's total (partial 0) goes into the output.
// CHECK-LABEL: func.func @sums_f64
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C8:.*]] = arith.constant 8 : index
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
//   CHECK-DAG:   %[[C32:.*]] = arith.constant 32 : index
//   CHECK-DAG:   %[[Z:.*]] = arith.constant 0 : index
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<1x64xf64, #gpu.address_space<workgroup>>
//       CHECK:   scf.forall (%[[T:.*]]) in (64)
//       CHECK:     memref.store %{{.*}}, %[[P]][%[[Z]], %[[T]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%[[T32:.*]]) in (32)
//       CHECK:     %[[O32:.*]] = arith.addi %[[T32]], %[[C32]] : index
//       CHECK:     %[[X32:.*]] = memref.load %[[P]][%[[Z]], %[[T32]]]
//       CHECK:     %[[Y32:.*]] = memref.load %[[P]][%[[Z]], %[[O32]]]
//       CHECK:     %[[S32:.*]] = arith.addf %[[X32]], %[[Y32]] : f64
//       CHECK:     memref.store %[[S32]], %[[P]][%[[Z]], %[[T32]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%[[T16:.*]]) in (16)
//       CHECK:     %[[O16:.*]] = arith.addi %[[T16]], %[[C16]] : index
//       CHECK:     %[[X16:.*]] = memref.load %[[P]][%[[Z]], %[[T16]]]
//       CHECK:     %[[Y16:.*]] = memref.load %[[P]][%[[Z]], %[[O16]]]
//       CHECK:     %[[S16:.*]] = arith.addf %[[X16]], %[[Y16]] : f64
//       CHECK:     memref.store %[[S16]], %[[P]][%[[Z]], %[[T16]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%[[T8:.*]]) in (8)
//       CHECK:     %[[O8:.*]] = arith.addi %[[T8]], %[[C8]] : index
//       CHECK:     %[[X8:.*]] = memref.load %[[P]][%[[Z]], %[[T8]]]
//       CHECK:     %[[Y8:.*]] = memref.load %[[P]][%[[Z]], %[[O8]]]
//       CHECK:     %[[S8:.*]] = arith.addf %[[X8]], %[[Y8]] : f64
//       CHECK:     memref.store %[[S8]], %[[P]][%[[Z]], %[[T8]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%[[T4:.*]]) in (4)
//       CHECK:     %[[O4:.*]] = arith.addi %[[T4]], %[[C4]] : index
//       CHECK:     %[[X4:.*]] = memref.load %[[P]][%[[Z]], %[[T4]]]
//       CHECK:     %[[Y4:.*]] = memref.load %[[P]][%[[Z]], %[[O4]]]
//       CHECK:     %[[S4:.*]] = arith.addf %[[X4]], %[[Y4]] : f64
//       CHECK:     memref.store %[[S4]], %[[P]][%[[Z]], %[[T4]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%[[T2:.*]]) in (2)
//       CHECK:     %[[O2:.*]] = arith.addi %[[T2]], %[[C2]] : index
//       CHECK:     %[[X2:.*]] = memref.load %[[P]][%[[Z]], %[[T2]]]
//       CHECK:     %[[Y2:.*]] = memref.load %[[P]][%[[Z]], %[[O2]]]
//       CHECK:     %[[S2:.*]] = arith.addf %[[X2]], %[[Y2]] : f64
//       CHECK:     memref.store %[[S2]], %[[P]][%[[Z]], %[[T2]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:     %[[L:.*]] = memref.load %[[P]][%[[Z]], %[[Z]]]
//       CHECK:     %[[R:.*]] = memref.load %[[P]][%[[Z]], %[[C1]]]
//       CHECK:     %[[LR:.*]] = arith.addf %[[L]], %[[R]] : f64
//       CHECK:     memref.store %[[LR]], %[[P]][%[[Z]], %[[Z]]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:     %[[TOT:.*]] = memref.load %[[P]][%[[Z]], %[[Z]]]
//       CHECK:     %[[OLD:.*]] = memref.load
//       CHECK:     arith.addf %[[OLD]], %[[TOT]] : f64
func.func @sums_f64(%x: memref<4x256xf64>, %s: memref<4xf64>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf64>) outs(%s : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
