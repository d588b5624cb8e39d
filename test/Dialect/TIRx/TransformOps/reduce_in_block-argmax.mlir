// reduce_in_block on a value and its index (torch.max(x, dim=1) as
// torch-mlir writes it: cmpf ogt, two selects, linalg.index of the
// reduction loop): each thread's (max, first index) over its strided
// elements in order, a tree in shared memory that keeps the greater value
// and, between equal ones, the smaller index, and a thread per output that
// replaces the output pair only where the block's value is strictly
// greater. Two outputs of any other kind are refused.
// RUN: tirx-opt %s -split-input-file --transform-interpreter --canonicalize --cse -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @argmax
//       CHECK:   scf.forall (%[[ROW:.*]]) in (8)
//       CHECK:     %[[V:.*]] = memref.alloc() : memref<1x64xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[I:.*]] = memref.alloc() : memref<1x64xi64, #gpu.address_space<workgroup>>
// Step 1: thread t over t, t + 64, t + 128, t + 192 (4 rounds), the body
// itself with linalg.index 1 as the element's position.
//       CHECK:     scf.forall (%[[T:.*]]) in (64)
//       CHECK:       %{{.*}}:2 = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[AV:.*]] = %{{.*}}, %[[AI:.*]] = %{{.*}}) -> (f32, i64)
//       CHECK:         %[[K:.*]] = arith.addi %[[T]], %{{.*}} : index
//       CHECK:         %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]]
//       CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
//       CHECK:         %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[AV]] : f32
//       CHECK:         arith.select %[[GT]], %[[X]], %[[AV]] : f32
//       CHECK:         arith.select %[[GT]], %[[KI]], %[[AI]] : i64
//       CHECK:       memref.store %{{.*}}, %[[V]]
//       CHECK:       memref.store %{{.*}}, %[[I]]
//       CHECK:     gpu.barrier
// Step 2: 6 halvings, each taking the partner's pair where its value is
// greater, or equal with a smaller index.
//       CHECK:     scf.forall (%[[T2:.*]]) in (32)
//       CHECK:       %[[P:.*]] = arith.addi %[[T2]], %c32 : index
//       CHECK:       %[[XV:.*]] = memref.load %[[V]][%c0, %[[T2]]]
//       CHECK:       %[[XI:.*]] = memref.load %[[I]][%c0, %[[T2]]]
//       CHECK:       %[[YV:.*]] = memref.load %[[V]][%c0, %[[P]]]
//       CHECK:       %[[YI:.*]] = memref.load %[[I]][%c0, %[[P]]]
//   CHECK-DAG:       %[[LESS:.*]] = arith.cmpi slt, %[[YI]], %[[XI]] : i64
//   CHECK-DAG:       %[[EQ:.*]] = arith.cmpf oeq, %[[YV]], %[[XV]] : f32
//   CHECK-DAG:       %[[TIE:.*]] = arith.andi %[[EQ]], %[[LESS]] : i1
//   CHECK-DAG:       %[[GREATER:.*]] = arith.cmpf ogt, %[[YV]], %[[XV]] : f32
//       CHECK:       %[[TAKE:.*]] = arith.ori %[[GREATER]], %[[TIE]] : i1
//       CHECK:       arith.select %[[TAKE]], %[[YV]], %[[XV]] : f32
//       CHECK:       arith.select %[[TAKE]], %[[YI]], %[[XI]] : i64
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall ({{.*}}) in (16)
//       CHECK:     scf.forall ({{.*}}) in (8)
//       CHECK:     scf.forall ({{.*}}) in (4)
//       CHECK:     scf.forall ({{.*}}) in (2)
//       CHECK:     scf.forall ({{.*}}) in (1)
//       CHECK:     gpu.barrier
// Step 3: the output pair replaced where the block's value is strictly
// greater (the output's own index wins a tie: it comes first).
//       CHECK:     scf.forall ({{.*}}) in (1)
//       CHECK:       %[[BV:.*]] = memref.load %[[V]][%c0, %c0]
//       CHECK:       %[[BI:.*]] = memref.load %[[I]][%c0, %c0]
//       CHECK:       %[[OV:.*]] = memref.load %{{.*}}[%c0]
//       CHECK:       %[[OI:.*]] = memref.load %{{.*}}[%c0]
//       CHECK:       %[[NEW:.*]] = arith.cmpf ogt, %[[BV]], %[[OV]] : f32
//       CHECK:       arith.select %[[NEW]], %[[BV]], %[[OV]] : f32
//       CHECK:       arith.select %[[NEW]], %[[BI]], %[[OI]] : i64
//   CHECK-NOT:   linalg.generic {
func.func @argmax(%x: memref<8x256xf32>, %m: memref<8xf32>, %i: memref<8xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%m, %i : memref<8xf32>, memref<8xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i64
    linalg.yield %nv, %ni : f32, i64
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

// An argmin (olt) with an index output of type index: the partials start
// from +inf, the tree keeps the smaller value.
// CHECK-LABEL: func.func @argmin
//       CHECK:   arith.constant 0x7F800000 : f32
//       CHECK:   memref.alloc() : memref<1x32xindex, #gpu.address_space<workgroup>>
//       CHECK:   arith.cmpf olt
//       CHECK:   arith.cmpi slt, %{{.*}}, %{{.*}} : index
func.func @argmin(%x: memref<4x64xf32>, %m: memref<4xf32>, %i: memref<4xindex>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m, %i : memref<4xf32>, memref<4xindex>) {
  ^bb0(%a: f32, %v: f32, %k: index):
    %j = linalg.index 1 : index
    %lt = arith.cmpf olt, %a, %v : f32
    %nv = arith.select %lt, %a, %v : f32
    %ni = arith.select %lt, %j, %k : index
    linalg.yield %nv, %ni : f32, index
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 32 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: two outputs that are not a value and its index (a sum and a
// max of the same row).
func.func @sum_and_max(%x: memref<8x256xf32>, %s: memref<8xf32>, %m: memref<8xf32>) {
  // expected-note @below {{payload op:}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%s, %m : memref<8xf32>, memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32, %mx: f32):
    %r = arith.addf %acc, %a : f32
    %n = arith.maximumf %mx, %a : f32
    linalg.yield %r, %n : f32, f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unknown_combiner: the body's two outputs are not a value and its index}}
    // expected-note @below {{hint: reduce_in_block takes one output combined by add, mul, max, min, and, or, xor, or the pair of an argmax or argmin}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the last of equal maxima (oge) would need the other tie rule;
// and an index of the row (linalg.index 0), not of the reduction.
func.func @last_max(%x: memref<8x256xf32>, %m: memref<8xf32>, %i: memref<8xi64>) {
  // expected-note @below {{payload op:}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%m, %i : memref<8xf32>, memref<8xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %ge = arith.cmpf oge, %a, %v : f32
    %nv = arith.select %ge, %a, %v : f32
    %ni = arith.select %ge, %ji, %k : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unknown_combiner: the body's two outputs are not a value and its index}}
    // expected-note @below {{hint:}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @row_index(%x: memref<8x256xf32>, %m: memref<8xf32>, %i: memref<8xi64>) {
  // expected-note @below {{payload op:}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%m, %i : memref<8xf32>, memref<8xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 0 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unknown_combiner: the body's two outputs are not a value and its index}}
    // expected-note @below {{hint:}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 8 rows of a value and an i64 index on 32 threads need
// (4 + 8) x 32 x 8 = 3072 bytes of shared memory; 160 are allowed here.
func.func @too_big(%x: memref<8x256xf32>, %m: memref<8xf32>, %i: memref<8xi64>) {
  // expected-note @below {{payload op:}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%m, %i : memref<8xf32>, memref<8xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: the partial results need 3072 bytes of shared memory}}
    // expected-note @below {{hint:}}
    %r = transform.tirx.reduce_in_block %t threads = 32 {max_shared_bytes = 160} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
