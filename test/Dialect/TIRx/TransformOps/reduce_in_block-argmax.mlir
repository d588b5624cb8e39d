// reduce_in_block on a value and its index (torch.max(x, dim=1) as
// torch-mlir writes it: cmpf ogt, two selects, linalg.index of the
// reduction loop): each thread's (max, first index) over its strided
// elements in order; the pairs combine keeping the greater value and,
// between equal ones, the smaller index (an f32 value by warp shuffles of
// the value and of the index as an i32, other values by a tree in shared
// memory); the output pair is replaced only where the block's value is
// strictly greater. Two outputs of any other kind are refused.
// RUN: tirx-opt %s -split-input-file --transform-interpreter --canonicalize --cse -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @argmax
//   CHECK-DAG:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//   CHECK-DAG:   %[[Z:.*]] = arith.constant 0 : i64
//       CHECK:   scf.forall (%[[ROW:.*]]) in (8)
// A pair per warp: 64 threads, 2 warps.
//       CHECK:     %[[V:.*]] = memref.alloc() : memref<1x2xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[I:.*]] = memref.alloc() : memref<1x2xi64, #gpu.address_space<workgroup>>
// Step 1: thread t over t, t + 64, t + 128, t + 192 (4 rounds), the body
// itself with linalg.index 1 as the element's position.
//       CHECK:     scf.forall (%[[T:.*]]) in (64)
//       CHECK:       %[[LANE:.*]] = arith.remui %[[T]], %c32
//       CHECK:       %[[WARP:.*]] = arith.divui %[[T]], %c32
//       CHECK:       %[[P:.*]]:2 = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[AV:.*]] = %{{.*}}, %[[AI:.*]] = %{{.*}}) -> (f32, i64)
//       CHECK:         %[[K:.*]] = arith.addi %[[T]], %{{.*}} : index
//       CHECK:         %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]]
//       CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : index to i64
//       CHECK:         %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[AV]] : f32
//       CHECK:         arith.select %[[GT]], %[[X]], %[[AV]] : f32
//       CHECK:         arith.select %[[GT]], %[[KI]], %[[AI]] : i64
// Step 2: the warp's butterfly on the value and the index as an i32,
// taking the partner's pair where its value is greater, or equal with a
// smaller index (xor 16 shown; then 8, 4, 2, 1).
//       CHECK:       %[[I0:.*]] = arith.trunci %[[P]]#1 : i64 to i32
//       CHECK:       %[[OV:.*]], %{{.*}} = gpu.shuffle  xor %[[P]]#0, %{{.*}}, %{{.*}} : f32
//       CHECK:       %[[OI:.*]], %{{.*}} = gpu.shuffle  xor %[[I0]], %{{.*}}, %{{.*}} : i32
//   CHECK-DAG:       %[[EQ:.*]] = arith.cmpf oeq, %[[OV]], %[[P]]#0 : f32
//   CHECK-DAG:       %[[LESS:.*]] = arith.cmpi slt, %[[OI]], %[[I0]] : i32
//   CHECK-DAG:       %[[TIE:.*]] = arith.andi %[[EQ]], %[[LESS]] : i1
//   CHECK-DAG:       %[[GREATER:.*]] = arith.cmpf ogt, %[[OV]], %[[P]]#0 : f32
//       CHECK:       %[[TAKE:.*]] = arith.ori %[[GREATER]], %[[TIE]] : i1
//       CHECK:       arith.select %[[TAKE]], %[[OV]], %[[P]]#0 : f32
//       CHECK:       arith.select %[[TAKE]], %[[OI]], %[[I0]] : i32
//       CHECK-COUNT-4: gpu.shuffle  xor %{{.*}} : i32
//       CHECK:       %[[WI:.*]] = arith.extsi %{{.*}} : i32 to i64
//       CHECK:       scf.if
//       CHECK:         memref.store %{{.*}}, %[[V]][%c0, %[[WARP]]]
//       CHECK:         memref.store %[[WI]], %[[I]][%c0, %[[WARP]]]
//       CHECK:     gpu.barrier
// Step 3: the first warp combines the warps' pairs (the neutral pair,
// -inf and 0, past the second warp), and lane 0 replaces the output pair
// where the block's value is strictly greater (the output's own index wins
// a tie: it comes first).
//       CHECK:     scf.forall (%[[L:.*]]) in (32)
//       CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[L]], %c2
//       CHECK:       scf.if %[[IN]] -> (f32, i64)
//       CHECK:         memref.load %[[V]][%c0, %[[L]]]
//       CHECK:         memref.load %[[I]][%c0, %[[L]]]
//       CHECK:       } else {
//       CHECK:         scf.yield %[[NINF]], %[[Z]] : f32, i64
//       CHECK-COUNT-10: gpu.shuffle  xor
//       CHECK:       scf.if
//       CHECK:         %[[OV2:.*]] = memref.load %{{.*}}[%c0]
//       CHECK:         %[[OI2:.*]] = memref.load %{{.*}}[%c0]
//       CHECK:         %[[NEW:.*]] = arith.cmpf ogt, %{{.*}}, %[[OV2]] : f32
//       CHECK:         arith.select %[[NEW]], %{{.*}}, %[[OV2]] : f32
//       CHECK:         arith.select %[[NEW]], %{{.*}}, %[[OI2]] : i64
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

// An argmin (olt) with an index output of type index on one warp: the
// partials start from +inf, the shuffles keep the smaller value (the index
// cast to i32 and back), and after the barrier a thread per output reads
// the one slot.
// CHECK-LABEL: func.func @argmin
//       CHECK:   arith.constant 0x7F800000 : f32
//       CHECK:   memref.alloc() : memref<1x1xindex, #gpu.address_space<workgroup>>
//       CHECK:   arith.cmpf olt
//       CHECK:   arith.index_cast %{{.*}} : index to i32
//       CHECK:   arith.cmpi slt, %{{.*}}, %{{.*}} : i32
//       CHECK:   arith.index_cast %{{.*}} : i32 to index
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:     memref.load %{{.*}}[%c0, %c0] : memref<1x1xindex
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

// Refused: 8 rows of an f32 value and an i64 index on 32 threads need a
// slot per warp: (4 + 8) x 1 x 8 = 96 bytes of shared memory; 64 are
// allowed here.
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
    // expected-error @below {{exceeds_smem: the partial results need 96 bytes of shared memory; a block has 64}}
    // expected-note @below {{hint:}}
    %r = transform.tirx.reduce_in_block %t threads = 32 {max_shared_bytes = 64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An f64 value takes the tree in shared memory: a pair per thread, log2(64)
// = 6 halvings between barriers, each taking the partner's pair where its
// value is greater, or equal with a smaller index; then a thread per output.
// CHECK-LABEL: func.func @argmax_f64
//       CHECK:     %[[V:.*]] = memref.alloc() : memref<1x64xf64, #gpu.address_space<workgroup>>
//       CHECK:     %[[I:.*]] = memref.alloc() : memref<1x64xi64, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%{{.*}}) in (64)
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%[[T2:.*]]) in (32)
//       CHECK:       %[[P:.*]] = arith.addi %[[T2]], %c32 : index
//       CHECK:       %[[XV:.*]] = memref.load %[[V]][%c0, %[[T2]]]
//       CHECK:       %[[XI:.*]] = memref.load %[[I]][%c0, %[[T2]]]
//       CHECK:       %[[YV:.*]] = memref.load %[[V]][%c0, %[[P]]]
//       CHECK:       %[[YI:.*]] = memref.load %[[I]][%c0, %[[P]]]
//   CHECK-DAG:       %[[LESS:.*]] = arith.cmpi slt, %[[YI]], %[[XI]] : i64
//   CHECK-DAG:       %[[EQ:.*]] = arith.cmpf oeq, %[[YV]], %[[XV]] : f64
//   CHECK-DAG:       %[[TIE:.*]] = arith.andi %[[EQ]], %[[LESS]] : i1
//   CHECK-DAG:       %[[GREATER:.*]] = arith.cmpf ogt, %[[YV]], %[[XV]] : f64
//       CHECK:       %[[TAKE:.*]] = arith.ori %[[GREATER]], %[[TIE]] : i1
//       CHECK:       arith.select %[[TAKE]], %[[YV]], %[[XV]] : f64
//       CHECK:       arith.select %[[TAKE]], %[[YI]], %[[XI]] : i64
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall ({{.*}}) in (16)
//       CHECK:     scf.forall ({{.*}}) in (8)
//       CHECK:     scf.forall ({{.*}}) in (4)
//       CHECK:     scf.forall ({{.*}}) in (2)
//       CHECK:     scf.forall ({{.*}}) in (1)
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall ({{.*}}) in (1)
//       CHECK:       %[[BV:.*]] = memref.load %[[V]][%c0, %c0]
//       CHECK:       %[[OV:.*]] = memref.load %{{.*}}[%c0]
//       CHECK:       arith.cmpf ogt, %[[BV]], %[[OV]] : f64
//   CHECK-NOT:   gpu.shuffle
func.func @argmax_f64(%x: memref<8x256xf64>, %m: memref<8xf64>, %i: memref<8xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf64>) outs(%m, %i : memref<8xf64>, memref<8xi64>) {
  ^bb0(%a: f64, %v: f64, %k: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f64
    %nv = arith.select %gt, %a, %v : f64
    %ni = arith.select %gt, %ji, %k : i64
    linalg.yield %nv, %ni : f64, i64
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

// Refused: an i8 index of a reduction of 256 positions (0 to 255 wrap
// past 127: the first of equal maxima would be chosen among wrapped
// positions).
func.func @narrow_index(%x: memref<8x256xf32>, %m: memref<8xf32>, %i: memref<8xi8>) {
  // expected-note @below {{payload op:}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%m, %i : memref<8xf32>, memref<8xi8>) {
  ^bb0(%a: f32, %v: f32, %k: i8):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i8
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i8
    linalg.yield %nv, %ni : f32, i8
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_applicable: the index output's type i8 cannot hold the reduction's positions 0 to 255}}
    // expected-note @below {{hint: use a wider index type (i32, i64 or index)}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An i8 index of 128 positions (0 to 127) fits: accepted, the shuffles
// carry it sign-extended to i32 and truncate it back.
// CHECK-LABEL: func.func @i8_index
//       CHECK:   arith.extsi %{{.*}} : i8 to i32
//       CHECK:   gpu.shuffle  xor
//       CHECK:   arith.trunci %{{.*}} : i32 to i8
func.func @i8_index(%x: memref<8x128xf32>, %m: memref<8xf32>, %i: memref<8xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x128xf32>) outs(%m, %i : memref<8xf32>, memref<8xi8>) {
  ^bb0(%a: f32, %v: f32, %k: i8):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i8
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i8
    linalg.yield %nv, %ni : f32, i8
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
