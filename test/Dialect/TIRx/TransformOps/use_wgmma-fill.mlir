// use_wgmma takes over the fill that starts a global C (torch's empty +
// fill + matmul): when the blocks' tiles cover C once each and nothing
// between the fill and the blocks touches C, the blocks store the fill's
// value plus the sums without reading C, and the fill (a kernel of its own)
// goes. Anything else keeps the fill and adds the sums to C as it is.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A zero fill, and transpose_operand's copy of B (another buffer) between
// the fill and the blocks: the fill goes; each thread stores the sums by 4
// and never loads C.
// CHECK-LABEL: func.func @zero_fill
//   CHECK-NOT:   linalg.fill
//       CHECK:   linalg.transpose
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 4)
//       CHECK:     scf.forall (%{{.*}}) in (128)
//       CHECK:       scf.for
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//   CHECK-NOT:         vector.load
//   CHECK-NOT:         arith.addf
//       CHECK:         vector.store %[[SUM]], %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: ?>>, vector<4xf32>
//       CHECK:     } {mapping = [#gpu.thread<x>]}
func.func @zero_fill(%A: memref<256x256xf32>, %B: memref<256x512xf32>, %C: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<256x512xf32>)
  linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x512xf32>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %n = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %n tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A nonzero start (a scalar argument): added to the sums, C still not read.
// CHECK-LABEL: func.func @alpha_fill
//  CHECK-SAME:   %[[ALPHA:[^:]*]]: f32
//   CHECK-NOT:   linalg.fill
//       CHECK:     scf.forall (%{{.*}}) in (128)
//       CHECK:       scf.for
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:         %[[START:.*]] = vector.broadcast %[[ALPHA]] : f32 to vector<4xf32>
//       CHECK:         %[[C:.*]] = arith.addf %[[START]], %[[SUM]] : vector<4xf32>
//       CHECK:         vector.store %[[C]]
func.func @alpha_fill(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>, %C: memref<256x512xf32>, %alpha: f32) {
  linalg.fill ins(%alpha : f32) outs(%C : memref<256x512xf32>)
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x512xbf16>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// C is copied between the fill and the blocks (the copy needs the fill's
// zeros): the fill stays, C is read and the sums added to it.
// CHECK-LABEL: func.func @read_between
//       CHECK:   linalg.fill
//       CHECK:   memref.copy
//       CHECK:     scf.forall (%{{.*}}) in (128)
//       CHECK:       scf.for
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:         %[[OLD:.*]] = vector.load %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: ?>>, vector<4xf32>
//       CHECK:         arith.addf %[[OLD]], %[[SUM]] : vector<4xf32>
func.func @read_between(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>, %C: memref<256x512xf32>, %D: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<256x512xf32>)
  memref.copy %C, %D : memref<256x512xf32> to memref<256x512xf32>
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x512xbf16>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A call between the fill and the blocks may touch any buffer: the fill
// stays.
// CHECK-LABEL: func.func @call_between
//       CHECK:   linalg.fill
//       CHECK:   call @opaque
//       CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
func.func private @opaque()
func.func @call_between(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>, %C: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<256x512xf32>)
  func.call @opaque() : () -> ()
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x512xbf16>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Tails (M = 200): the tail blocks' guarded stores do not prove that the
// tiles cover C once each, so the fill stays and C is read.
// CHECK-LABEL: func.func @tails
//       CHECK:   linalg.fill
//       CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
func.func @tails(%A: memref<200x256xbf16>, %B: memref<256x512xbf16>, %C: memref<200x512xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<200x512xf32>)
  linalg.matmul ins(%A, %B : memref<200x256xbf16>, memref<256x512xbf16>)
                outs(%C : memref<200x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// The fill covers a view of C, not all of it: it stays.
// CHECK-LABEL: func.func @fill_of_a_view
//       CHECK:   linalg.fill
//       CHECK:         arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
func.func @fill_of_a_view(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>, %C: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.subview %C[0, 0] [128, 512] [1, 1] : memref<256x512xf32> to memref<128x512xf32, strided<[512, 1]>>
  linalg.fill ins(%zero : f32) outs(%top : memref<128x512xf32, strided<[512, 1]>>)
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x512xbf16>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
