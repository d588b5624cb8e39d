// reduce_in_block: a block's reduction shared by its threads: strided
// partial results in shared memory, a tree between barriers, a thread per
// output at the end.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A row per block, 64 threads, 256 floats a row: thread t sums floats 4t to
// 4t + 3 as a vector (256 = 4 x 64: one step), reduces it; then 6 steps of
// 32, 16, 8, 4, 2, 1 threads; thread 0 adds the total to s.
// CHECK-LABEL: func.func @row_sums
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.forall (%[[ROW:.*]]) in (8)
//       CHECK:     %[[P:.*]] = memref.alloc() : memref<1x64xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[T:.*]]) in (64)
//       CHECK:       scf.for %[[E:.*]] = %c0{{.*}} to %c1{{.*}} step %c1{{.*}}
//       CHECK:         %[[ZERO:.*]] = vector.broadcast %cst{{.*}} : f32 to vector<4xf32>
//       CHECK:         %[[SUM:.*]] = scf.for %[[S:.*]] = %[[T]] to %c64{{.*}} step %c64{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4xf32>)
//       CHECK:           %[[K:.*]] = arith.muli %[[S]], %c4
//       CHECK:           vector.load %{{.*}} : memref<1x256xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
//       CHECK:           arith.addf %[[ACC]], %{{.*}} : vector<4xf32>
//       CHECK:         %[[R:.*]] = vector.reduction <add>, %[[SUM]] : vector<4xf32> into f32
//       CHECK:         memref.store %[[R]], %[[P]][%[[E]], %[[T]]]
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%{{.*}}) in (32)
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%{{.*}}) in (16)
//       CHECK:     scf.forall (%{{.*}}) in (1)
//       CHECK:       memref.load %[[P]]
//       CHECK:       memref.load %[[P]]
//       CHECK:       arith.addf
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%[[O:.*]]) in (1)
//       CHECK:       %[[OLD:.*]] = memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:       %[[TOT:.*]] = memref.load %[[P]][%[[O]], %c0{{.*}}]
//       CHECK:       %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOT]]
//       CHECK:       memref.store %[[NEW]]
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
// t + 32, ... The body's square is cloned as it is.
// CHECK-LABEL: func.func @squares
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %c100{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32)
//       CHECK:     %[[X:.*]] = memref.load
//       CHECK:     %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
//       CHECK:     arith.addf %[[ACC]], %[[SQ]] : f32
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
