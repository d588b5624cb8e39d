// reduce_in_block: a block's reduction shared by its threads: strided
// partial results; for 32-bit elements combined within each warp by
// shuffles, the warps' totals through shared memory once (one barrier),
// then by the first warp's shuffles; for others a tree in shared memory
// between barriers.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A row per block, 64 threads (2 warps), 256 floats a row: thread t sums
// floats 4t to 4t + 3 as a vector (256 = 4 x 64: one round of the block, a
// loop of constant trip count over the rounds, slot t + 64 r), reduces it;
// the warp combines by shuffles xor 16, 8, 4, 2, 1; lane 0 stores the
// warp's total in shared memory (1 x 2); one barrier; the first warp
// loads the 2 totals (0 past them), combines them by shuffles, and lane 0
// adds the total to s.
// CHECK-LABEL: func.func @row_sums
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.forall (%[[ROW:.*]]) in (8)
//       CHECK:     %[[P:.*]] = memref.alloc() : memref<1x2xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[T:.*]]) in (64)
//       CHECK:       %[[LANE:.*]] = arith.remui %[[T]], %c32
//       CHECK:       %[[WARP:.*]] = arith.divui %[[T]], %c32
//       CHECK:       scf.for %[[E:.*]] = %c0{{.*}} to %c1{{.*}} step %c1{{.*}}
//       CHECK:         %[[ZERO:.*]] = vector.broadcast %cst{{.*}} : f32 to vector<4xf32>
//       CHECK:         %[[SUM:.*]] = scf.for %[[RND:.*]] = %c0{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4xf32>)
//       CHECK:           %[[RT:.*]] = arith.muli %[[RND]], %c64
//       CHECK:           %[[S:.*]] = arith.addi %[[T]], %[[RT]]
//       CHECK:           %[[K:.*]] = arith.muli %[[S]], %c4
//       CHECK:           vector.load %{{.*}} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
//       CHECK:           arith.addf %[[ACC]], %{{.*}} : vector<4xf32>
//       CHECK:         %[[R:.*]] = vector.reduction <add>, %[[SUM]] : vector<4xf32> into f32
//       CHECK:         %[[O16:.*]] = arith.constant 16 : i32
//       CHECK:         %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[R]], %[[O16]], %{{.*}} : f32
//       CHECK:         %[[R16:.*]] = arith.addf %[[R]], %[[S16]] : f32
//       CHECK:         %[[O8:.*]] = arith.constant 8 : i32
//       CHECK:         %[[S8:.*]], %{{.*}} = gpu.shuffle xor %[[R16]], %[[O8]]
//       CHECK:         %[[R8:.*]] = arith.addf %[[R16]], %[[S8]] : f32
//       CHECK:         %[[O4:.*]] = arith.constant 4 : i32
//       CHECK:         %[[S4:.*]], %{{.*}} = gpu.shuffle xor %[[R8]], %[[O4]]
//       CHECK:         %[[R4:.*]] = arith.addf %[[R8]], %[[S4]] : f32
//       CHECK:         %[[O2:.*]] = arith.constant 2 : i32
//       CHECK:         %[[S2:.*]], %{{.*}} = gpu.shuffle xor %[[R4]], %[[O2]]
//       CHECK:         %[[R2:.*]] = arith.addf %[[R4]], %[[S2]] : f32
//       CHECK:         %[[O1:.*]] = arith.constant 1 : i32
//       CHECK:         %[[S1:.*]], %{{.*}} = gpu.shuffle xor %[[R2]], %[[O1]]
//       CHECK:         %[[R1:.*]] = arith.addf %[[R2]], %[[S1]] : f32
//   CHECK-NOT:         gpu.shuffle
//       CHECK:         %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
//       CHECK:         scf.if %[[FIRST]] {
//       CHECK:           memref.store %[[R1]], %[[P]][%[[E]], %[[WARP]]]
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//  CHECK-NEXT:     gpu.barrier
//  CHECK-NEXT:     scf.forall (%[[L:.*]]) in (32)
//       CHECK:         %[[IN:.*]] = arith.cmpi ult, %[[L]], %c2
//       CHECK:         %[[V:.*]] = scf.if %[[IN]] -> (f32) {
//       CHECK:           memref.load %[[P]][%{{.*}}, %[[L]]]
//       CHECK:         } else {
//       CHECK:           arith.constant 0.000000e+00 : f32
//       CHECK:         gpu.shuffle xor %[[V]], %{{.*}}
// CHECK-COUNT-4:       gpu.shuffle xor
//   CHECK-NOT:         gpu.shuffle
//       CHECK:         scf.if
//       CHECK:           %[[OLD:.*]] = memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:           %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}}
//       CHECK:           memref.store %[[NEW]]
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//   CHECK-NOT:     gpu.barrier
//   CHECK-NOT:     scf.forall
//       CHECK:   return
func.func @row_sums(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) {
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

// 100 floats a row: no 4 x 32 split of it; scalars, thread t takes t,
// t + 32, ... The body's square is cloned as it is. One warp: shuffles,
// lane 0 stores the total in shared memory; after the barrier (every thread
// of a larger block may have filled the output before), a thread per
// output adds it into the output.
// CHECK-LABEL: func.func @squares
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<1x1xf32, #gpu.address_space<workgroup>>
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %c100{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32)
//       CHECK:     %[[X:.*]] = memref.load
//       CHECK:     %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
//       CHECK:     arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-COUNT-5:   gpu.shuffle xor
//       CHECK:     scf.if
//       CHECK:       memref.store {{.*}}, %[[P]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:     memref.load %[[P]]
//   CHECK-NOT:   gpu.barrier
//       CHECK:   return
func.func @squares(%x: memref<4x100xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x100xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
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

// 64-bit elements: no shuffles; every thread's partial in shared memory
// (1 x 64 f64), a tree of 6 steps between barriers, a thread per output.
// CHECK-LABEL: func.func @wide_sums
//   CHECK-NOT:   gpu.shuffle
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<1x64xf64, #gpu.address_space<workgroup>>
//       CHECK:   scf.forall (%{{.*}}) in (64)
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (32)
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:   gpu.barrier
//       CHECK:   scf.forall (%{{.*}}) in (1)
//       CHECK:     memref.load %[[P]]
//   CHECK-NOT:   gpu.barrier
//       CHECK:   return
func.func @wide_sums(%x: memref<8x256xf64>, %s: memref<8xf64>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf64>) outs(%s : memref<8xf64>) {
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

// -----

// Refused: no block.
func.func @unmapped(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  // expected-note @below {{payload op: func @unmapped / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the target is not inside a forall mapped to blocks}}
    // expected-note @below {{hint: apply tile_to_blocks (or fuse_into a block loop) first}}
    %r = transform.tirx.reduce_in_block %g threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 128 rows in a block for 64 threads.
func.func @too_many(%x: memref<256x256xf32>, %s: memref<256xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x256xf32>) outs(%s : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{too_many_outputs: 128 outputs for 64 threads}}
    // expected-note @below {{hint: use smaller block tiles}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: not a reduction; and a body that is no single combiner.
func.func @elementwise(%x: memref<64x64xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<64x64xf32>) {
  ^bb0(%a: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_reduction: the op has no reduction loop}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @average(%x: memref<8x64xf32>, %s: memref<8xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %half = arith.constant 0.5 : f32
    %sum = arith.addf %acc, %a : f32
    %r = arith.mulf %sum, %half : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unknown_combiner: the body does not combine into the output}}
    // expected-note @below {{hint: reduce_in_block needs an associative combiner with a neutral element}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: an output indexed by something else than the parallel loops.
func.func @padded_out(%x: memref<8x64xf32>, %s: memref<8x1xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8x1xf32>) {
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
    // expected-error @below {{not_applicable: the output is not indexed by the parallel loops alone}}
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: threads must be a power of two in [32, 1024], got 96}}
    %r = transform.tirx.reduce_in_block %root threads = 96 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Layer norm's variance: the row's mean read per row (broadcast over the
// 4-wide vectors) and scaled by a constant defined outside the body (as
// canonicalization leaves it): both are broadcast to vector<4xf32>, the
// body's ops all on vectors (it once failed to verify: 'arith.mulf' op
// requires the same type for all operands and results).
// CHECK-LABEL: func.func @variance
//       CHECK:   %[[N:.*]] = arith.constant 1.22070313E-4 : f32
//       CHECK:   scf.forall
//       CHECK:     scf.for
//       CHECK:       %[[S:.*]] = memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:       %[[M:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
//       CHECK:       %[[NV:.*]] = vector.broadcast %[[N]] : f32 to vector<4xf32>
//       CHECK:       %[[MEAN:.*]] = arith.mulf %[[M]], %[[NV]] : vector<4xf32>
//       CHECK:       arith.subf %{{.*}}, %[[MEAN]] : vector<4xf32>
func.func @variance(%x: memref<8x8192xf32>, %sum: memref<8xf32>, %sq: memref<8xf32>) {
  %n = arith.constant 1.220703125e-04 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : memref<8x8192xf32>, memref<8xf32>) outs(%sq : memref<8xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %mean = arith.mulf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %acc : f32
    linalg.yield %t : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 16-bit inputs into f32 sums (RMSNorm in bf16): 16-byte loads of 8 bf16,
// widened to 8 f32, summed as vectors; 2048 = 8 x 256: one step.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @bf16_row_sums
//       CHECK:   scf.for %{{.*}} iter_args(%{{.*}}) -> (vector<8xf32>)
//       CHECK:     %[[V:.*]] = vector.load %{{.*}} : memref<1x2048xbf16, {{.*}}>, vector<8xbf16>
//       CHECK:     arith.extf %[[V]] : vector<8xbf16> to vector<8xf32>
//       CHECK:   vector.reduction <add>, %{{.*}} : vector<8xf32> into f32
func.func @bf16_row_sums(%x: memref<8x2048xbf16>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x2048xbf16>) outs(%s : memref<8xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    %t = arith.addf %acc, %sq : f32
    linalg.yield %t : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 8 x 256 does not divide a row of 1024 bf16: scalar loads.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @bf16_short_rows
//   CHECK-NOT:   vector.load
//       CHECK:   memref.load %{{.*}} : memref<1x1024xbf16
//   CHECK-NOT:   vector.load
//       CHECK:   return
func.func @bf16_short_rows(%x: memref<8x1024xbf16>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x1024xbf16>) outs(%s : memref<8xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %t = arith.addf %acc, %f : f32
    linalg.yield %t : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
