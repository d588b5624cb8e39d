// reduce_in_block on a column reduction (the reduction loop outside the
// input's contiguous dimension, x.sum(dim=0)): the block's outputs go to
// neighbouring threads, so a warp's lanes read neighbouring elements of a
// row, and threads / outputs groups of threads split the rows. Each
// thread's loop over its rows takes 8 rows a step where 8 divides their
// count; the partials meet in shared memory (groups x outputs); after one
// barrier a thread per output combines its groups' partials in order and
// then the output's old value with them. One kernel: no second pass over
// partial results as split_reduction makes.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// 64 columns a block, 256 threads: 4 groups of 64, each a quarter of the
// 1024 rows (rows g, g + 4, ...: 256 rounds, 8 a step).
// CHECK-LABEL: func.func @col_sums
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.forall (%{{.*}}) in (4)
//       CHECK:     %[[P:.*]] = memref.alloc() : memref<4x64xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[T:.*]]) in (256)
//       CHECK:       %[[E:.*]] = arith.remui %[[T]], %c64
//       CHECK:       %[[G:.*]] = arith.divui %[[T]], %c64
//       CHECK:       %[[SUM:.*]] = scf.for %[[R:.*]] = %c0{{.*}} to %c256{{.*}} step %c8{{.*}} iter_args(%[[ACC:.*]] = %cst{{.*}}) -> (f32)
//       CHECK:         %[[R4:.*]] = arith.muli %[[R]], %c4
//       CHECK:         %[[ROW:.*]] = arith.addi %[[G]], %[[R4]]
//       CHECK:         %[[I:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[E]])
//       CHECK:         %[[J:.*]] = affine.apply #{{.*}}(%[[ROW]], %[[E]])
//       CHECK:         %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<1024x64xf32
//       CHECK:         %[[A1:.*]] = arith.addf %[[ACC]], %[[V]] : f32
//       CHECK:         %[[R1:.*]] = arith.addi %[[R]], %c1
//       CHECK:         %[[R14:.*]] = arith.muli %[[R1]], %c4
//       CHECK:         arith.addi %[[G]], %[[R14]]
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c2
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c3
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c4
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c5
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c6
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//       CHECK:         arith.addi %[[R]], %c7
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf32
//   CHECK-NOT:         memref.load
//       CHECK:         scf.yield
//       CHECK:       memref.store %[[SUM]], %[[P]][%[[G]], %[[E]]]
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//  CHECK-NEXT:     gpu.barrier
//  CHECK-NEXT:     scf.forall (%[[O:.*]]) in (64)
//       CHECK:       %[[FIRST:.*]] = memref.load %[[P]][%c0{{.*}}, %[[O]]]
//       CHECK:       %[[TOTAL:.*]] = scf.for %[[GG:.*]] = %c1{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args(%[[T2:.*]] = %[[FIRST]]) -> (f32)
//       CHECK:         %[[NEXT:.*]] = memref.load %[[P]][%[[GG]], %[[O]]]
//       CHECK:         arith.addf %[[T2]], %[[NEXT]]
//       CHECK:       %[[OLD:.*]] = memref.load %{{.*}} : memref<64xf32
//       CHECK:       %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]]
//       CHECK:       memref.store %[[NEW]], %{{.*}} : memref<64xf32
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//   CHECK-NOT:   gpu.shuffle
func.func @col_sums(%x: memref<1024x256xf32>, %s: memref<256xf32>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%b)
    %xt = memref.subview %x[0, %o] [1024, 64] [1, 1] : memref<1024x256xf32> to memref<1024x64xf32, strided<[256, 1], offset: ?>>
    %st = memref.subview %s[%o] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt : memref<1024x64xf32, strided<[256, 1], offset: ?>>) outs(%st : memref<64xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 100 rows, 512 threads of 32 columns: 16 groups, no whole rounds (100 is
// no multiple of 16): each thread from its group in steps of 16, one row a
// step; a column max.
// CHECK-LABEL: func.func @col_max_short
//       CHECK:     memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[T:.*]]) in (512)
//       CHECK:       %[[G:.*]] = arith.divui %[[T]], %c32
//       CHECK:       scf.for %{{.*}} = %[[G]] to %c100{{.*}} step %c16{{.*}} iter_args
//   CHECK-NOT:       scf.yield
//       CHECK:         memref.load
//       CHECK:         arith.maximumf
//   CHECK-NOT:         memref.load
//       CHECK:         scf.yield
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%{{.*}}) in (32)
func.func @col_max_short(%x: memref<100x128xf32>, %s: memref<128xf32>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 32)>(%b)
    %xt = memref.subview %x[0, %o] [100, 32] [1, 1] : memref<100x128xf32> to memref<100x32xf32, strided<[128, 1], offset: ?>>
    %st = memref.subview %s[%o] [32] [1] : memref<128xf32> to memref<32xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt : memref<100x32xf32, strided<[128, 1], offset: ?>>) outs(%st : memref<32xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.maximumf %acc, %a : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 512 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 48 columns a block do not divide 256 threads, and 16 columns are fewer
// than a warp: each output's rows are shared by all the threads instead
// (the row layout, reduce_in_block.mlir), partials per warp.
// CHECK-LABEL: func.func @col_sums_48
//       CHECK:     memref.alloc() : memref<48x8xf32, #gpu.address_space<workgroup>>
//       CHECK:     gpu.shuffle xor
func.func @col_sums_48(%x: memref<1024x192xf32>, %s: memref<192xf32>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 48)>(%b)
    %xt = memref.subview %x[0, %o] [1024, 48] [1, 1] : memref<1024x192xf32> to memref<1024x48xf32, strided<[192, 1], offset: ?>>
    %st = memref.subview %s[%o] [48] [1] : memref<192xf32> to memref<48xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt : memref<1024x48xf32, strided<[192, 1], offset: ?>>) outs(%st : memref<48xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// CHECK-LABEL: func.func @col_sums_16
//       CHECK:     memref.alloc() : memref<16x8xf32, #gpu.address_space<workgroup>>
//       CHECK:     gpu.shuffle xor
func.func @col_sums_16(%x: memref<1024x64xf32>, %s: memref<64xf32>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 16)>(%b)
    %xt = memref.subview %x[0, %o] [1024, 16] [1, 1] : memref<1024x64xf32> to memref<1024x16xf32, strided<[64, 1], offset: ?>>
    %st = memref.subview %s[%o] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt : memref<1024x16xf32, strided<[64, 1], offset: ?>>) outs(%st : memref<16xf32, strided<[1], offset: ?>>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f16 sums of 64 columns on 256 threads (4 groups): the partials take
// 256 x 2 bytes of shared memory, within max_shared_bytes = 1024 (spread
// over the threads by their outputs 64 x 256 partials, 32 KiB, would not).
// A weight along the rows alone (sum_i w[i] * x[i, j]) is read by every
// lane of a warp at once: it does not stop the layout.
// CHECK-LABEL: func.func @weighted_col_sums_f16
//       CHECK:     memref.alloc() : memref<4x64xf16, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[T:.*]]) in (256)
//       CHECK:       %[[G:.*]] = arith.divui %[[T]], %c64
//       CHECK:       scf.for
//       CHECK:         memref.load %{{.*}} : memref<1024x64xf16
//       CHECK:         memref.load %{{.*}} : memref<1024xf16>
//       CHECK:         arith.mulf
//       CHECK:     gpu.barrier
func.func @weighted_col_sums_f16(%x: memref<1024x256xf16>, %w: memref<1024xf16>, %s: memref<256xf16>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%b)
    %xt = memref.subview %x[0, %o] [1024, 64] [1, 1] : memref<1024x256xf16> to memref<1024x64xf16, strided<[256, 1], offset: ?>>
    %st = memref.subview %s[%o] [64] [1] : memref<256xf16> to memref<64xf16, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt, %w : memref<1024x64xf16, strided<[256, 1], offset: ?>>, memref<1024xf16>) outs(%st : memref<64xf16, strided<[1], offset: ?>>) {
    ^bb0(%a: f16, %c: f16, %acc: f16):
      %p = arith.mulf %a, %c : f16
      %r = arith.addf %acc, %p : f16
      linalg.yield %r : f16
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 256 {max_shared_bytes = 1024 : i64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The same block by rows (its columns 64 floats apart in x: each row's
// 64 elements are not x's innermost run): 64 x 256 f16 partials, refused
// within 1024 bytes.
func.func @transposed_col_sums_f16(%x: memref<256x1024xf16>, %s: memref<256xf16>) {
  scf.forall (%b) in (4) {
    %o = affine.apply affine_map<(d0) -> (d0 * 64)>(%b)
    %xt = memref.subview %x[%o, 0] [64, 1024] [1, 1] : memref<256x1024xf16> to memref<64x1024xf16, strided<[1024, 1], offset: ?>>
    %st = memref.subview %s[%o] [64] [1] : memref<256xf16> to memref<64xf16, strided<[1], offset: ?>>
    // expected-note @below {{linalg.generic#0}}
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%xt : memref<64x1024xf16, strided<[1024, 1], offset: ?>>) outs(%st : memref<64xf16, strided<[1], offset: ?>>) {
    ^bb0(%a: f16, %acc: f16):
      %r = arith.addf %acc, %a : f16
      linalg.yield %r : f16
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{exceeds_smem: the partial results need 32768 bytes of shared memory; a block has 1024}}
    // expected-note @below {{hint: use fewer threads or smaller block tiles}}
    %f = transform.tirx.reduce_in_block %g threads = 256 {max_shared_bytes = 1024 : i64} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// 256 columns on 256 threads: one group, a thread runs down all its
// column's rows; the partials (1 x 256) are the totals.
// CHECK-LABEL: func.func @col_sums_one_group
//       CHECK:     memref.alloc() : memref<1x256xf32, #gpu.address_space<workgroup>>
//       CHECK:     scf.for %{{.*}} = %c0{{.*}} to %c1024{{.*}} step %c8
//       CHECK:     gpu.barrier
//       CHECK:     scf.forall (%{{.*}}) in (256)
//       CHECK:       scf.for %{{.*}} = %c1{{.*}} to %c1{{.*}} step %c1
func.func @col_sums_one_group(%x: memref<1024x256xf32>, %s: memref<256xf32>) {
  scf.forall (%b) in (1) {
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                    iterator_types = ["reduction", "parallel"]}
        ins(%x : memref<1024x256xf32>) outs(%s : memref<256xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.reduce_in_block %g threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
