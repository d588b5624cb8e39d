// fuse_into: the producer moves into the consumer's block loop, computing
// one tile into a private buffer; the intermediate buffer disappears.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

#id = affine_map<(d0) -> (d0)>
// In a loop over blocks the tile is the block's: shared memory, between
// barriers.
// CHECK-LABEL: func.func @exp_then_scale
//   CHECK-NOT:   memref.alloc() : memref<1024xf32>
//       CHECK:   scf.forall (%[[I:.*]]) in (16)
//       CHECK:     %[[SH:.*]] = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
//       CHECK:     gpu.barrier
//       CHECK:     %[[X:.*]] = memref.subview %{{.*}}[%{{.*}}] [64] [1]
//       CHECK:     linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[SH]] : memref<64xf32, #gpu.address_space<workgroup>>)
//       CHECK:       math.exp
//       CHECK:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} ins(%[[SH]] : {{.*}})
//       CHECK:       arith.mulf
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @exp_then_scale(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 2.0 : f32
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<1024xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// In a sequential loop the tile is the iteration's own: a private buffer,
// read through a cast to the tile's type.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @in_a_for
//   CHECK-NOT:   memref.alloc()
//       CHECK:   scf.for
//       CHECK:     %[[PRIV:.*]] = memref.alloca() : memref<64xf32>
//       CHECK:     linalg.generic {{.*}} outs(%[[PRIV]] : memref<64xf32>)
//       CHECK:       math.exp
//       CHECK:     %[[T:.*]] = memref.cast %[[PRIV]] : memref<64xf32> to memref<64xf32, strided<[1], offset: ?>>
//       CHECK:     linalg.generic {{.*}} ins(%[[T]] : {{.*}})
//   CHECK-NOT:   gpu.barrier
func.func @in_a_for(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %t = memref.alloca() : memref<1024xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %loop = transform.structured.tile_using_for %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The output is a function argument: observable, so not fused.
#id = affine_map<(d0) -> (d0)>
func.func @observable(%x: memref<1024xf32>, %t: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @observable / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_intermediate: the producer's output is not a buffer allocated in the function}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The consumer is not tiled: there is no loop to fuse into.
#id = affine_map<(d0) -> (d0)>
func.func @untiled(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  // expected-note @below {{payload op: func @untiled / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<1024xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{no_consumer_loop: func @untiled / linalg.generic#1 reads the whole intermediate: it is not tiled}}
    // expected-note @below {{hint: tile the consumer first (tile_to_blocks or tile_to_threads)}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The loop writes the producer's input in place: fusing would read the
// changed values.
#id = affine_map<(d0) -> (d0)>
func.func @in_place(%x: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  // expected-note @below {{payload op: func @in_place / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%x : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<1024xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{input_written: func @in_place / scf.forall#0 (block x) / linalg.generic#0 in the loop may write an input of the producer or the intermediate}}
    // expected-note @below {{hint: fusing would read values the loop has changed}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A reduction whose output no fill starts: its fused tiles would start from
// values the loop cannot know.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @reduction(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  // expected-note @below {{payload op: func @reduction / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%t : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<64x64xf32>, memref<64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_intermediate: the reduction's output is not started by a linalg.fill of the intermediate right before it}}
    // expected-note @below {{hint: fill the intermediate with the reduction's start value just before the reduction}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A row sum and the division by it (a normalization, as in softmax): the
// fill and the reduction move into the consumer's block loop; each block
// sums its row into shared memory, between barriers, and a barrier between
// the fill (run by every thread) and the reduction (which tile_to_threads
// may split among threads).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @normalize
//   CHECK-NOT:   memref.alloc() : memref<64xf32>
//       CHECK:   scf.forall (%[[I:.*]]) in (64)
//       CHECK:     %[[SH:.*]] = memref.alloc() : memref<1xf32, #gpu.address_space<workgroup>>
//       CHECK:     gpu.barrier
//       CHECK:     linalg.fill ins(%{{.*}} : f32) outs(%[[SH]] : memref<1xf32, #gpu.address_space<workgroup>>)
//  CHECK-NEXT:     gpu.barrier
//   CHECK-NOT:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//  CHECK-SAME:       ins(%{{.*}} : memref<1x128xf32, strided<[128, 1], offset: ?>>) outs(%[[SH]] : memref<1xf32, #gpu.address_space<workgroup>>)
//       CHECK:       arith.addf
//       CHECK:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} ins(%{{.*}}, %[[SH]] : {{.*}})
//       CHECK:       arith.divf
//   CHECK-NOT:   linalg.fill
//   CHECK-NOT:   memref.dealloc
func.func @normalize(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64xf32>)
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x128xf32>) outs(%t : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<64x128xf32>, memref<64xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }
  memref.dealloc %t : memref<64xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Written through a transposed map: a tile of the output is no tile of the
// loops in order.
func.func @transposed(%x: memref<64x32xf32>) {
  %t = memref.alloc() : memref<32x64xf32>
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x32xf32>) outs(%t : memref<32x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_elementwise: the producer writes its output through a map other than its parallel loops in order}}
    // expected-note @below {{hint: interchange its loops first}}
    %fused = transform.tirx.fuse_into %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The intermediate is also read outside the loop.
#id = affine_map<(d0) -> (d0)>
func.func @read_twice(%x: memref<1024xf32>, %y: memref<1024xf32>, %z: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  // expected-note @below {{payload op: func @read_twice / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.copy %t, %z : memref<1024xf32> to memref<1024xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{other_use: the intermediate buffer is also used by func @read_twice / memref.copy#0}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An op between the producer and the loop touches memory.
#id = affine_map<(d0) -> (d0)>
func.func @between(%x: memref<1024xf32>, %y: memref<1024xf32>, %z: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  // expected-note @below {{payload op: func @between / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.copy %z, %x : memref<1024xf32> to memref<1024xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  memref.dealloc %t : memref<1024xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_order: func @between / memref.copy#0 between the producer and the loop touches memory}}
    // expected-note @below {{hint: move it after the loop, or fuse nothing}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The loop reads every other element of the intermediate: the producer
// cannot be tiled to that.
#id = affine_map<(d0) -> (d0)>
func.func @strided(%x: memref<1024xf32>, %y: memref<512xf32>) {
  %t = memref.alloca() : memref<1024xf32>
  // expected-note @below {{payload op: func @strided / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c512 step %c64 {
    %s = memref.subview %t[%i] [64] [2] : memref<1024xf32> to memref<64xf32, strided<[2], offset: ?>>
    %o = memref.subview %y[%i] [64] [1] : memref<512xf32> to memref<64xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%s : memref<64xf32, strided<[2], offset: ?>>) outs(%o : memref<64xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{dynamic_tile: the loop reads a tile that is not static, full-rank and unit-stride: func @strided / scf.for#0 / memref.subview#0}}
    // expected-note @below {{hint: tile with sizes that divide the extents}}
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Softmax's shape without the max: the exponentials are read by the row
// sum (fused first) and by the division, both through the block's one row
// tile: the exp is computed once into shared memory, before the first
// read, and both reads take it.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @read_by_two
//   CHECK-NOT:   memref.alloc() : memref<64x128xf32>
//       CHECK:   scf.forall (%{{.*}}) in (64)
//       CHECK:     %[[ROW:.*]] = memref.alloc() : memref<1x128xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[SUM:.*]] = memref.alloc() : memref<1xf32, #gpu.address_space<workgroup>>
//       CHECK:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} outs(%[[ROW]] : memref<1x128xf32, #gpu.address_space<workgroup>>)
//       CHECK:       math.exp
//       CHECK:     gpu.barrier
//       CHECK:     linalg.fill {{.*}} outs(%[[SUM]]
//  CHECK-NEXT:     gpu.barrier
//   CHECK-NOT:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} ins(%[[ROW]] : {{.*}}) outs(%[[SUM]] : {{.*}})
//       CHECK:       arith.addf
//       CHECK:     gpu.barrier
//       CHECK:     linalg.generic {{.*}} ins(%[[ROW]], %[[SUM]] : {{.*}})
//       CHECK:       arith.divf
//   CHECK-NOT:   math.exp
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
func.func @read_by_two(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = memref.alloc() : memref<64x128xf32>
  %s = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%e : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ex = math.exp %a : f32
    linalg.yield %ex : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<64xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<64x128xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %acc, %a : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : memref<64x128xf32>, memref<64xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %sum: f32, %o: f32):
    %q = arith.divf %a, %sum : f32
    linalg.yield %q : f32
  }
  memref.dealloc %e : memref<64x128xf32>
  memref.dealloc %s : memref<64xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %exp, %sum, %div = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %div tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fs = transform.tirx.fuse_into %sum : (!transform.any_op) -> !transform.any_op
    %fe = transform.tirx.fuse_into %exp : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: two readers, each tiled in a loop of its own: the tiles are not
// one block's.
#id = affine_map<(d0) -> (d0)>
func.func @two_loops(%x: memref<1024xf32>, %y: memref<1024xf32>, %z: memref<1024xf32>) {
  %t = memref.alloc() : memref<1024xf32>
  // expected-note @below {{payload op: func @two_loops / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%t : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<1024xf32>) outs(%z : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p, %c1, %c2 = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %t1, %f1 = transform.tirx.tile_to_blocks %c1 tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %f2 = transform.tirx.tile_to_blocks %c2 tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{other_use: the intermediate buffer is read through func @two_loops / scf.forall#}}
    // expected-note @below {{hint: fuse when every read is of the block's one tile}}
    %fused = transform.tirx.fuse_into %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a block's tile of 16384 floats (64 KiB) does not fit in a
// block's static shared memory.
#id = affine_map<(d0) -> (d0)>
func.func @too_big(%x: memref<65536xf32>, %y: memref<65536xf32>) {
  %t = memref.alloc() : memref<65536xf32>
  // expected-note @below {{payload op: func @too_big / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<65536xf32>) outs(%t : memref<65536xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<65536xf32>) outs(%y : memref<65536xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p, %c = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %c tile_sizes [16384] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: the fused tile needs 65536 bytes of shared memory, 65536 with the block's other buffers; max_shared_bytes is 49152}}
    // expected-note @below {{hint: raise max_shared_bytes to 65536 (dynamic shared memory), or tile the consumer's block loop smaller}}
    %fused = transform.tirx.fuse_into %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The same tile with max_shared_bytes raised to hold it: fused, the tile
// in shared memory (dynamic shared memory past 48 KiB at lowering).
// CHECK-LABEL: func.func @raised
//       CHECK:   scf.forall
//       CHECK:     memref.alloc() : memref<16384xf32, #gpu.address_space<workgroup>>
//       CHECK:     math.exp
#id = affine_map<(d0) -> (d0)>
func.func @raised(%x: memref<65536xf32>, %y: memref<65536xf32>) {
  %t = memref.alloc() : memref<65536xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<65536xf32>) outs(%t : memref<65536xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<65536xf32>) outs(%y : memref<65536xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p, %c = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %c tile_sizes [16384] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %p {max_shared_bytes = 65536} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a tile past 227 KiB, whatever max_shared_bytes says (the
// verifier's limit); the hint no longer offers to raise it.
#id = affine_map<(d0) -> (d0)>
func.func @too_big_for_any(%x: memref<131072xf32>, %y: memref<131072xf32>) {
  %t = memref.alloc() : memref<131072xf32>
  // expected-note @below {{payload op: func @too_big_for_any / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<131072xf32>) outs(%t : memref<131072xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<131072xf32>) outs(%y : memref<131072xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p, %c = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %c tile_sizes [65536] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: the fused tile needs 262144 bytes of shared memory, 262144 with the block's other buffers; max_shared_bytes is 232448}}
    // expected-note @below {{hint: tile the consumer's block loop smaller}}
    %fused = transform.tirx.fuse_into %p {max_shared_bytes = 232448} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused parameter: max_shared_bytes past 227 KiB.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{invalid_parameter: max_shared_bytes must lie in [1, 232448] (227 KiB of shared memory per block), got 300000}}
    %fused = transform.tirx.fuse_into %g {max_shared_bytes = 300000} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// On tensors the refusal names the tensors, not "not on buffers".
#id = affine_map<(d0) -> (d0)>
func.func @on_tensors(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  // expected-note @below {{payload op: func @on_tensors / linalg.generic#0}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on_tensors: the target works on tensors (operand #0 of linalg.generic is tensor<1024xf32>): the GPU schedules work on buffers; apply bufferize first}}
    // expected-note @below {{hint: the bufferize action}}
    %f = transform.tirx.fuse_into %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a tile of 8192 indices takes 64 KiB (an index is 64 bits in
// the kernels).
#id = affine_map<(d0) -> (d0)>
func.func @index_tile(%y: memref<65536xf32>) {
  %t = memref.alloc() : memref<65536xindex>
  // expected-note @below {{payload op: func @index_tile / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%t : memref<65536xindex>) {
  ^bb0(%b: index):
    %i = linalg.index 0 : index
    linalg.yield %i : index
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : memref<65536xindex>) outs(%y : memref<65536xf32>) {
  ^bb0(%a: index, %b: f32):
    %n = arith.index_cast %a : index to i32
    %f = arith.sitofp %n : i32 to f32
    linalg.yield %f : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %p, %c = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %c tile_sizes [8192] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: the fused tile needs 65536 bytes of shared memory, 65536 with the block's other buffers; max_shared_bytes is 49152}}
    // expected-note @below {{hint: raise max_shared_bytes to 65536 (dynamic shared memory), or tile the consumer's block loop smaller}}
    %fused = transform.tirx.fuse_into %p : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
