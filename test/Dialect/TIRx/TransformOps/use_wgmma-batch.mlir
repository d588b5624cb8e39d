// use_wgmma on 16-bit C and on batch matmuls.
//
// A C of A's 16-bit type (torch's f16 matmul): the sums stay f32 in
// registers and shared memory and are rounded once, where they are stored.
// A batch matmul tiled one batch a block: its buffers are seen as 2-D
// (collapse_shape in front of the blocks: A (b, M, K) as (b * M, K),
// B (b, K, N) as (b * K, N), C as (b * M, N)); each block's tile reads the
// rows of its batch, and the K rows of B from b * K.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// An f16 C that the caller holds (C +=): loaded, widened, added, rounded.
// CHECK-LABEL: func.func @f16_acc
//       CHECK:     scf.forall (%{{.*}}) in (128)
//       CHECK:       scf.for
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:         %[[OLD:.*]] = vector.load %{{.*}} : memref<128x128xf16, strided<[256, 1], offset: ?>>, vector<4xf16>
//       CHECK:         %[[WIDE:.*]] = arith.extf %[[OLD]] : vector<4xf16> to vector<4xf32>
//       CHECK:         %[[ADD:.*]] = arith.addf %[[WIDE]], %[[SUM]] : vector<4xf32>
//       CHECK:         %[[C:.*]] = arith.truncf %[[ADD]] : vector<4xf32> to vector<4xf16>
//       CHECK:         vector.store %[[C]], %{{.*}} : memref<128x128xf16, strided<[256, 1], offset: ?>>, vector<4xf16>
func.func @f16_acc(%A: memref<256x128xf16>, %B: memref<128x256xf16>, %C: memref<256x256xf16>) {
  linalg.matmul ins(%A, %B : memref<256x128xf16>, memref<128x256xf16>)
                outs(%C : memref<256x256xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// torch.bmm on f16: a batch of 4, one batch and a 128 x 256 tile a block;
// the fill is taken over (C never read), the sums rounded to f16.
// CHECK-LABEL: func.func @bmm_f16
//  CHECK-SAME:   %[[A:[^:]*]]: memref<4x256x128xf16>, %[[B:[^:]*]]: memref<4x128x512xf16>, %[[C:[^:]*]]: memref<4x256x512xf16>
//   CHECK-NOT:   linalg.fill
//   CHECK-DAG:   %[[A2:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] : memref<4x256x128xf16> into memref<1024x128xf16>
//   CHECK-DAG:   %[[B2:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1], [2]] : memref<4x128x512xf16> into memref<512x512xf16>
//   CHECK-DAG:   %[[C2:.*]] = memref.collapse_shape %[[C]] {{\[\[}}0, 1], [2]] : memref<4x256x512xf16> into memref<1024x512xf16>
//   CHECK-DAG:   nvgpu.tma.create.descriptor %{{.*}} box[%{{.*}}, %{{.*}}] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>
//       CHECK:   scf.forall (%[[BATCH:.*]], %[[I:.*]], %[[J:.*]]) in (4, 2, 2)
//   CHECK-DAG:     %[[ROWK:.*]] = affine.apply #{{.*}}(%[[BATCH]])
//   CHECK-DAG:     memref.subview %[[B2]][%[[ROWK]], %{{.*}}] [128, 256] [1, 1]
//   CHECK-DAG:     %[[TILE:.*]] = memref.subview %[[C2]][%{{.*}}, %{{.*}}] [128, 256] [1, 1]
//       CHECK:     scf.forall (%{{.*}}) in (256)
//       CHECK:         nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}]
//       CHECK:       nvgpu.warpgroup.mma
//       CHECK:       scf.for
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//   CHECK-NOT:         vector.load
//       CHECK:         %[[H:.*]] = arith.truncf %[[SUM]] : vector<4xf32> to vector<4xf16>
//       CHECK:         vector.store %[[H]], %[[TILE]]
//   CHECK-NOT:   linalg.batch_matmul ins
func.func @bmm_f16(%A: memref<4x256x128xf16>, %B: memref<4x128x512xf16>, %C: memref<4x256x512xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%C : memref<4x256x512xf16>)
  linalg.batch_matmul ins(%A, %B : memref<4x256x128xf16>, memref<4x128x512xf16>)
                      outs(%C : memref<4x256x512xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 2 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a block tile that does not divide M would read the next batch.
func.func @bmm_tail(%A: memref<2x200x64xbf16>, %B: memref<2x64x128xbf16>, %C: memref<2x200x128xf32>) {
  // expected-note @below {{linalg.batch_matmul#0}}
  linalg.batch_matmul ins(%A, %B : memref<2x200x64xbf16>, memref<2x64x128xbf16>)
                      outs(%C : memref<2x200x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: the 128 x 128 block tile and TMA's tiles of 64 along K do not divide M x N x K = 200 x 128 x 64: in a batch matmul a tile past them would read and write the next batch}}
    // expected-note @below {{hint: pick block tile sizes that divide M and N, or use use_mma (K a multiple of 64)}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: K = 96 ends in a partial TMA tile, whose rows of B would be the
// next batch's.
func.func @bmm_k(%A: memref<2x128x96xf16>, %B: memref<2x96x128xf16>, %C: memref<2x128x128xf32>) {
  // expected-note @below {{linalg.batch_matmul#0}}
  linalg.batch_matmul ins(%A, %B : memref<2x128x96xf16>, memref<2x96x128xf16>)
                      outs(%C : memref<2x128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: the 128 x 128 block tile and TMA's tiles of 64 along K do not divide M x N x K = 128 x 128 x 96}}
    // expected-note @below {{hint: pick block tile sizes that divide M and N, or use use_mma (K a multiple of 64)}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: two batches a block (wgmma computes one matrix's tile).
func.func @bmm_two(%A: memref<2x128x64xf16>, %B: memref<2x64x128xf16>, %C: memref<2x128x128xf32>) {
  // expected-note @below {{linalg.batch_matmul#0}}
  linalg.batch_matmul ins(%A, %B : memref<2x128x64xf16>, memref<2x64x128xf16>)
                      outs(%C : memref<2x128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [2, 128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_a_tile: an operand is not one batch (a tile of batch size 1) of a static, contiguous 3-D buffer in global memory defined before the blocks}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [1, 128, 128]}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused after the 2-D views were made (too many sums a thread on one
// warpgroup): they go again, the batch matmul stays.
func.func @bmm_wide(%A: memref<2x128x64xf16>, %B: memref<2x64x256xf16>, %C: memref<2x128x256xf32>) {
  // expected-note @below {{linalg.batch_matmul#0}}
  linalg.batch_matmul ins(%A, %B : memref<2x128x64xf16>, memref<2x64x256xf16>)
                      outs(%C : memref<2x128x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{too_wide: each thread would hold 256 f32 sums, more than 128}}
    // expected-note @below {{hint: use warpgroups 2}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The same refusal, suppressed: the IR is as tile_to_blocks left it (no
// 2-D views, no matmul made for the attempt; the batch matmul on its 3-D
// tiles).
// CHECK-LABEL: func.func @bmm_undone
//   CHECK-NOT:   memref.collapse_shape
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.forall
//       CHECK:     linalg.batch_matmul {{.*}} memref<1x128x256xf32
//   CHECK-NOT:   linalg.matmul
func.func @bmm_undone(%A: memref<2x128x64xf16>, %B: memref<2x64x256xf16>, %C: memref<2x128x256xf32>) {
  linalg.batch_matmul ins(%A, %B : memref<2x128x64xf16>, memref<2x64x256xf16>)
                      outs(%C : memref<2x128x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.sequence %t : !transform.any_op failures(suppress) {
    ^bb0(%tile: !transform.any_op):
      %w = transform.tirx.use_wgmma %tile : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}

// -----

// A batch of one whose block row is a value the payload computes (not an
// affine.apply): the 2-D views' rows fold to it (0 * 256 + row). The
// refusal (too_wide, after the views are made) erases only what use_wgmma
// made; the payload's row and its uses stay.
// CHECK-LABEL: func.func @bmm_folded_row
//       CHECK:   scf.forall (%[[I:.*]]) in (2) {
//       CHECK:     %[[ROW:.*]] = arith.muli %[[I]]
//       CHECK:     memref.subview %{{.*}}[0, %[[ROW]], 0]
//       CHECK:     memref.subview %{{.*}}[0, %[[ROW]], 0]
//       CHECK:     linalg.batch_matmul
//   CHECK-NOT:   memref.collapse_shape
func.func @bmm_folded_row(%A: memref<1x256x64xf16>, %B: memref<1x64x256xf16>, %C: memref<1x256x256xf32>) {
  %c128 = arith.constant 128 : index
  scf.forall (%i) in (2) {
    %row = arith.muli %i, %c128 : index
    %a = memref.subview %A[0, %row, 0] [1, 128, 64] [1, 1, 1] : memref<1x256x64xf16> to memref<1x128x64xf16, strided<[16384, 64, 1], offset: ?>>
    %b = memref.subview %B[0, 0, 0] [1, 64, 256] [1, 1, 1] : memref<1x64x256xf16> to memref<1x64x256xf16, strided<[16384, 256, 1]>>
    %c = memref.subview %C[0, %row, 0] [1, 128, 256] [1, 1, 1] : memref<1x256x256xf32> to memref<1x128x256xf32, strided<[65536, 256, 1], offset: ?>>
    linalg.batch_matmul ins(%a, %b : memref<1x128x64xf16, strided<[16384, 64, 1], offset: ?>>, memref<1x64x256xf16, strided<[16384, 256, 1]>>)
                        outs(%c : memref<1x128x256xf32, strided<[65536, 256, 1], offset: ?>>)
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.sequence %m : !transform.any_op failures(suppress) {
    ^bb0(%tile: !transform.any_op):
      %w = transform.tirx.use_wgmma %tile : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
}
