// Tails: sizes no tile divides. The last tile along such a loop is its own
// static op (marked tirx.tail), chosen by scf.if on the loop's index; the
// next steps schedule each op like any other: threads (a tail's forall may
// fill only part of the block), vectors (the per-thread rest a shorter
// vector), each full-width access proven 16-byte aligned.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// 1000 = 3 x 256 + 232; 232 = 58 x 4 per thread.
// CHECK-LABEL: func.func @add_1000
//       CHECK:   scf.forall (%[[B:.*]]) in (4) {
//       CHECK:     %[[FULL:.*]] = arith.cmpi ult, %[[B]], %c3
//       CHECK:     scf.if %[[FULL]] {
//       CHECK:       scf.forall (%{{.*}}) in (64) {
//       CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//       CHECK:         vector.store %{{.*}} {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//       CHECK:       } {mapping = [#gpu.thread<x>]}
//       CHECK:     } else {
//       CHECK:       scf.forall (%{{.*}}) in (58) {
//       CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<1000xf32>, vector<4xf32>
//       CHECK:       } {mapping = [#gpu.thread<x>]}
//       CHECK:     }
//       CHECK:   } {mapping = [#gpu.block<x>]}
#id = affine_map<(d0) -> (d0)>
func.func @add_1000(%x: memref<1000xf32>, %y: memref<1000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1000xf32>) outs(%y : memref<1000xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %u, %h = transform.tirx.tile_to_threads %both elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.vectorize %all width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// A prime: 1000003 = 976 x 1024 + 579; 579 = 144 x 4 + 3: the last thread
// of the last block computes 3 elements (a vector of 3, 8-byte aligned).
// CHECK-LABEL: func.func @exp_prime
//       CHECK:   scf.forall (%{{.*}}) in (977) {
//       CHECK:     scf.if
//       CHECK:       scf.forall (%{{.*}}) in (256) {
//       CHECK:     } else {
//       CHECK:       scf.forall (%[[T:.*]]) in (145) {
//       CHECK:         arith.cmpi ult, %[[T]], %c144
//       CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<1000003xf32>, vector<4xf32>
//       CHECK:         } else {
//       CHECK:           vector.load %{{.*}} {alignment = 8 : i64} : memref<1000003xf32>, vector<3xf32>
//       CHECK:           math.exp %{{.*}} : vector<3xf32>
#id = affine_map<(d0) -> (d0)>
func.func @exp_prime(%x: memref<1000003xf32>, %y: memref<1000003xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1000003xf32>) outs(%y : memref<1000003xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %u, %h = transform.tirx.tile_to_threads %both elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.vectorize %all width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// A per-thread extent the width does not divide: thread t starts at 6 * t
// elements (12 bytes), so 4 x f16 would not be 8-byte aligned: refused,
// with the width that is.
#id = affine_map<(d0) -> (d0)>
func.func @six_per_thread(%x: memref<1536xf16>, %y: memref<1536xf16>) {
  // expected-note @below {{payload op: func @six_per_thread / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1536xf16>) outs(%y : memref<1536xf16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [192] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [6] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{misaligned: operand #0: a vector of 4 x 2 bytes needs 8-byte alignment; the thread's accesses are proven 4-byte aligned (a tile or row offset that is no multiple of the width)}}
    // expected-note @below {{hint: try width 2}}
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// 2-D, both loops with tails (4097 = 4 x 1024 + 1): four ops, one per
// combination of full and partial tiles.
// CHECK-LABEL: func.func @relu_2d
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (1025, 5) {
// CHECK-COUNT-4:   linalg.generic
//       CHECK:   } {mapping = [#gpu.block<y>, #gpu.block<x>]}
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_2d(%x: memref<4097x4097xf32>, %y: memref<4097x4097xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4097x4097xf32>) outs(%y : memref<4097x4097xf32>) {
  ^bb0(%a: f32, %b: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [4, 1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Rows of 4097 elements: a row's start is no multiple of 4 elements, so
// 4-wide vectors would be scalar accesses: refused.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows_4097(%x: memref<64x4097xf32>, %y: memref<64x4097xf32>) {
  // expected-note @below {{payload op: func @rows_4097 / scf.forall#0 (block y, block x) / scf.if#0 / scf.forall#0 (thread y, thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x4097xf32>) outs(%y : memref<64x4097xf32>) {
  ^bb0(%a: f32, %b: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1, 1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{misaligned: operand #0: a vector of 4 x 4 bytes needs 16-byte alignment; the thread's accesses are proven 4-byte aligned}}
    // expected-note @below {{hint: tile so that every row and tile offset is a multiple of the width, or leave the op scalar}}
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// A full tile's threads must fill warps: 1000 / 4 = 250 threads is no
// multiple of 32 (a tail is a partial tile; a full one is not).
#id = affine_map<(d0) -> (d0)>
func.func @block_1000(%x: memref<4000xf32>, %y: memref<4000xf32>) {
  // expected-note @below {{payload op: func @block_1000 / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<4000xf32>) outs(%y : memref<4000xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1000] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: 250 threads per block: a block needs a multiple of 32 threads and at most 1024}}
    // expected-note @below {{hint: elements per thread giving a legal block: 32}}
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A reduction loop: 1000 = 15 x 64 + 40. The whole tiles in an scf.for,
// then the rest as one op after it: the sum combines in the same order.
// CHECK-LABEL: func.func @rowsum_1000
//       CHECK:   scf.for %{{.*}} = %c0 to %c960 step %c64 {
//       CHECK:     linalg.generic {{.*}} ins(%{{.*}} : memref<64x64xf32, strided<[1000, 1], offset: ?>>)
//       CHECK:   }
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}} : memref<64x40xf32, strided<[1000, 1], offset: 960>>)
func.func @rowsum_1000(%a: memref<64x1000xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x1000xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.tirx.tile_reduction %g tile_sizes [0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A tile larger than its extent leaves no whole tile: refused.
func.func @rowsum_small(%a: memref<64x1000xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @rowsum_small / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x1000xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: tile size 2048 does not divide the extent 1000 of loop 1, and is larger than it}}
    // expected-note @below {{hint: try 500 or 1000}}
    %t, %l = transform.tirx.tile_reduction %g tile_sizes [0, 2048] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
