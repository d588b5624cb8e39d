// reduce_in_block takes over the fill that starts its outputs (torch-mlir's
// `linalg.fill` + `linalg.reduce` into a fresh output): when the blocks'
// tiles cover the filled buffer once each and nothing else reads it, each
// block starts its own outputs from the fill's value and the fill goes (one
// kernel, not two). Anything else keeps the fill and reads the output.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A row per block: the fill is gone; lane 0 combines the start (-inf, the
// fill's constant) with the block's maximum and stores it: no load of s.
// CHECK-LABEL: func.func @row_max
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[NINF:.*]] = arith.constant 0xFF800000 : f32
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (8)
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%{{.*}}) in (32)
//   CHECK-NOT:       memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:       %[[M:.*]] = arith.maximumf %[[NINF]], %{{.*}} : f32
//       CHECK:       memref.store %[[M]], %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:   return
func.func @row_max(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%s : memref<8xf32>)
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Blocks of 4 rows (offsets 4 * iv, 2 of them cover 8): the same, a start
// per output row; the fill's value is a scalar argument.
// CHECK-LABEL: func.func @four_rows
//  CHECK-SAME:   %[[ALPHA:[^:]*]]: f32
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (2)
//   CHECK-NOT:     memref.load %{{.*}} : memref<4xf32, strided<[1], offset: ?>>
//       CHECK:     arith.addf %[[ALPHA]], %{{.*}} : f32
//       CHECK:   return
func.func @four_rows(%x: memref<8x256xf32>, %s: memref<8xf32>, %alpha: f32) {
  linalg.fill ins(%alpha : f32) outs(%s : memref<8xf32>)
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// An argmax: both fills (value and index) taken over; the final pair is
// chosen against the starts.
// CHECK-LABEL: func.func @argmax
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (4)
//   CHECK-NOT:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//   CHECK-NOT:     memref.load %{{.*}} : memref<1xi64, strided<[1], offset: ?>>
//       CHECK:     arith.cmpf ogt
//       CHECK:   return
func.func @argmax(%x: memref<4x128xf32>, %m: memref<4xf32>, %i: memref<4xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  linalg.fill ins(%ninf : f32) outs(%m : memref<4xf32>)
  linalg.fill ins(%c0 : i64) outs(%i : memref<4xi64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x128xf32>) outs(%m, %i : memref<4xf32>, memref<4xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %nk = arith.select %gt, %jj, %k : i64
    linalg.yield %nv, %nk : f32, i64
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

// The fill's buffer is also read between the fill and the loop (a copy of
// the start values): the fill stays, the output is read.
// CHECK-LABEL: func.func @read_between
//       CHECK:   linalg.fill
//       CHECK:   memref.copy
//       CHECK:   scf.forall
//       CHECK:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
func.func @read_between(%x: memref<8x256xf32>, %s: memref<8xf32>, %c: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  memref.copy %s, %c : memref<8xf32> to memref<8xf32>
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The reduction covers half of the filled buffer (a view of it): the other
// half keeps the fill's zeros, so the fill stays.
// CHECK-LABEL: func.func @half_covered
//       CHECK:   linalg.fill
//       CHECK:   scf.forall
//       CHECK:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
func.func @half_covered(%x: memref<4x256xf32>, %s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  %half = memref.subview %s[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  linalg.reduce ins(%x : memref<4x256xf32>) outs(%half : memref<4xf32, strided<[1]>>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The output is the caller's (no fill): read and accumulated into, as
// before.
// CHECK-LABEL: func.func @accumulate
//       CHECK:   scf.forall
//       CHECK:     %[[OLD:.*]] = memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:     arith.addf %[[OLD]]
func.func @accumulate(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A copy between other buffers lies between the fill and the loop: it
// leaves s alone, so the fill is still taken over.
// CHECK-LABEL: func.func @other_buffers_between
//   CHECK-NOT:   linalg.fill
//       CHECK:   memref.copy
//       CHECK:   scf.forall
//   CHECK-NOT:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:   return
func.func @other_buffers_between(%x: memref<8x256xf32>, %s: memref<8xf32>, %u: memref<8xf32>, %v: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  memref.copy %u, %v : memref<8xf32> to memref<8xf32>
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Rows of a run-time number (tirx.dims names the rows of %x and of %s one
// size, s0): a block per row covers %s once, as for a static size. The
// memref.dim of %s between the fill and the blocks reads its size, not its
// elements. The fill is gone.
// CHECK-LABEL: func.func @dynamic_rows
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (%{{.*}})
//   CHECK-NOT:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:     memref.store %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:   return
func.func @dynamic_rows(%x: memref<?x256xf32> {tirx.dims = ["s0", ""]}, %s: memref<?xf32> {tirx.dims = ["s0"]}) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%s : memref<?xf32>)
  %n = memref.dim %s, %c0 : memref<?xf32>
  linalg.reduce ins(%x : memref<?x256xf32>) outs(%s : memref<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The rows of %x and of %s are sizes of different names (s0, s1): nothing
// says a block per row of %x covers %s; the fill stays, and the blocks
// read %s.
// CHECK-LABEL: func.func @dynamic_rows_unproven
//       CHECK:   linalg.fill
//       CHECK:   scf.forall (%{{.*}}) in (%{{.*}})
//       CHECK:     memref.load %{{.*}} : memref<1xf32, strided<[1], offset: ?>>
//       CHECK:   return
func.func @dynamic_rows_unproven(%x: memref<?x256xf32> {tirx.dims = ["s0", ""]}, %s: memref<?xf32> {tirx.dims = ["s1"]}) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<?xf32>)
  linalg.reduce ins(%x : memref<?x256xf32>) outs(%s : memref<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.addf %a, %acc : f32
      linalg.yield %m : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 64 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
