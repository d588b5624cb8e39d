// use_mma: a block's matmul tile split among warps, each walking K with
// nvgpu.mma.sync (16x8x8, tf32) on fragments held in registers.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// Two warps along M, one along N: each warp owns 16 rows and 32 columns,
// four 16x8 fragments of C loaded once, four mma.sync per step of 8 in K
// sharing one A fragment, then stored once.
// CHECK-LABEL: func.func @matmul
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
//       CHECK:     scf.forall (%[[WM:.*]], %[[WN:.*]]) in (2, 1)
//       CHECK:       %[[LANE:.*]] = gpu.lane_id upper_bound 32
//       CHECK:       arith.divui %[[LANE]], %c4
//       CHECK:       arith.remui %[[LANE]], %c4 :
//  CHECK-COUNT-16:   memref.load %{{.*}} : memref<32x32xf32, strided<[64, 1], offset: ?>>
//       CHECK:       scf.for %{{.*}} = %c0{{.*}} to %c16 step %c8 iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
//  CHECK-COUNT-4:      memref.load %{{.*}} : memref<32x16xf32, strided<[16, 1], offset: ?>>
//       CHECK:         vector.from_elements {{.*}} : vector<4x1xf32>
//  CHECK-COUNT-8:      memref.load %{{.*}} : memref<16x32xf32, strided<[64, 1], offset: ?>>
//  CHECK-COUNT-4:      nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
//       CHECK:         scf.yield
//  CHECK-COUNT-16:   memref.store
//       CHECK:     } {mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>]}
//       CHECK:   } {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @matmul(%A: memref<64x16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x16xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// bf16 operands read from global memory, f32 sums: 16x8x16 steps whose
// fragments are loaded element by element (A: 4 registers of 2 bf16, B: 2).
// CHECK-LABEL: func.func @matmul_bf16
//   CHECK-NOT:   linalg.matmul
//       CHECK:     scf.forall (%{{.*}}, %{{.*}}) in (2, 1)
//  CHECK-COUNT-16:   memref.load %{{.*}} : memref<32x32xf32, strided<[64, 1], offset: ?>>
//       CHECK:       scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16 iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>)
//  CHECK-COUNT-8:      memref.load %{{.*}} : memref<32x32xbf16, strided<[32, 1], offset: ?>>
//       CHECK:         vector.from_elements {{.*}} : vector<4x2xbf16>
//  CHECK-COUNT-4:      memref.load %{{.*}} : memref<32x32xbf16, strided<[64, 1], offset: ?>>
//       CHECK:         vector.from_elements {{.*}} : vector<2x2xbf16>
//       CHECK:         nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
//   CHECK-NOT:         nvgpu.ldmatrix
//       CHECK:         scf.yield
//  CHECK-COUNT-16:   memref.store
func.func @matmul_bf16(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xbf16>, memref<32x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// f16 operands and an f16 accumulator (f16 sums, as the payload asks).
// CHECK-LABEL: func.func @matmul_f16_acc
//       CHECK:   nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
func.func @matmul_f16_acc(%A: memref<32x16xf16>, %B: memref<16x32xf16>, %C: memref<32x32xf16>) {
  linalg.matmul ins(%A, %B : memref<32x16xf16>, memref<16x32xf16>)
                outs(%C : memref<32x32xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [16, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// bf16 tiles staged in shared memory with rows padded to 40 elements (80
// bytes: 16-byte aligned, and 8 consecutive rows hit 8 different 16-byte
// bank groups): A's fragments come from ldmatrix x4, B's two at a time
// from ldmatrix x4 transposed, split into the two n-fragments.
// CHECK-LABEL: func.func @matmul_ldmatrix
//       CHECK:   %[[LANE:.*]] = gpu.lane_id
//       CHECK:   %[[LDROW:.*]] = arith.remui %[[LANE]], %c16
//       CHECK:   %[[HALF:.*]] = arith.divui %[[LANE]], %c16
//       CHECK:   %[[LDCOL:.*]] = arith.muli %[[HALF]], %c8
//       CHECK:   scf.for %[[KK:.*]] = %c0{{.*}} to %c32{{.*}} step %c16
//       CHECK:     %[[KA:.*]] = arith.addi %[[KK]], %[[LDCOL]]
//       CHECK:     nvgpu.ldmatrix %{{.*}}[%{{.*}}, %[[KA]]] {numTiles = 4 : i32, transpose = false} : memref<32x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:     %[[KB:.*]] = arith.addi %[[KK]], %[[LDROW]]
//       CHECK:     %[[BOTH:.*]] = nvgpu.ldmatrix %{{.*}}[%[[KB]], %{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<32x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:     vector.shuffle %[[BOTH]], %[[BOTH]] [0, 1] : vector<4x2xbf16>, vector<4x2xbf16>
//       CHECK:     vector.shuffle %[[BOTH]], %[[BOTH]] [2, 3] : vector<4x2xbf16>, vector<4x2xbf16>
//  CHECK-COUNT-4:  nvgpu.mma.sync
func.func @matmul_ldmatrix(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xbf16>, memref<32x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %t operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Rows padded by 4 bf16 (72 bytes) do not start 16 bytes apart: no
// ldmatrix, the fragments are loaded element by element.
// CHECK-LABEL: func.func @matmul_unaligned_rows
//   CHECK-NOT:   nvgpu.ldmatrix
//       CHECK:   nvgpu.mma.sync
func.func @matmul_unaligned_rows(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x32xbf16>, memref<32x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %t operands [0, 1] {padding = 4} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// nn.Linear's x W^T: B given as (n, k) (mma.sync's "col" B). f32 (tf32):
// A's fragments as before, B's two registers from row g of the (n, k)
// tile, columns kk + t and kk + t + 4.
// CHECK-LABEL: func.func @matmul_tb
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.for %{{.*}} = %c0{{.*}} to %c16 step %c8
//  CHECK-COUNT-4:  memref.load %{{.*}} : memref<32x16xf32, strided<[16, 1], offset: ?>>
//       CHECK:     vector.from_elements {{.*}} : vector<4x1xf32>
//  CHECK-COUNT-8:  memref.load %{{.*}} : memref<32x16xf32, strided<[16, 1], offset: ?>>
//  CHECK-COUNT-4:  nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled}
func.func @matmul_tb(%A: memref<64x16xf32>, %B: memref<64x16xf32>, %C: memref<64x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<64x16xf32>, memref<64x16xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// bf16 with both operands transposed (A as (k, m), B as (n, k)), staged in
// shared memory with rows padded by 8: A from ldmatrix x4 transposed, B
// (k-contiguous rows) two fragments at a time from ldmatrix x4 not
// transposed.
// CHECK-LABEL: func.func @matmul_ldmatrix_ta_tb
//       CHECK:   scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16
//       CHECK:     nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:     %[[BOTH:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:     vector.shuffle %[[BOTH]], %[[BOTH]] [0, 1]
//       CHECK:     vector.shuffle %[[BOTH]], %[[BOTH]] [2, 3]
//  CHECK-COUNT-4:  nvgpu.mma.sync
//   CHECK-NOT:     memref.load {{.*}}bf16
func.func @matmul_ldmatrix_ta_tb(%A: memref<32x64xbf16>, %B: memref<64x32xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<32x64xbf16>, memref<64x32xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %t operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A transposed K: K is A's first extent. K = 24 with bf16 is refused.
func.func @ta_k(%A: memref<24x32xbf16>, %B: memref<24x32xbf16>, %C: memref<32x32xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<24x32xbf16>, memref<24x32xbf16>)
                outs(%C : memref<32x32xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: K = 24 is not a multiple of 16}}
    // expected-note @below {{hint:}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: not a matmul.
#id = affine_map<(d0) -> (d0)>
func.func @generic(%x: memref<64xf32>) {
  // expected-note @below {{payload op: func @generic / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%x : memref<64xf32>) {
  ^bb0(%a: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: the target is linalg.generic, not a linalg.matmul on buffers}}
    %w = transform.tirx.use_mma %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: no block yet.
func.func @unmapped(%A: memref<32x16xf32>, %B: memref<16x32xf32>, %C: memref<32x32xf32>) {
  // expected-note @below {{payload op: func @unmapped / linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<32x16xf32>, memref<16x32xf32>)
                outs(%C : memref<32x32xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the target is not inside a forall mapped to blocks}}
    // expected-note @below {{hint: apply tile_to_blocks first}}
    %w = transform.tirx.use_mma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: already split among threads.
func.func @threads(%A: memref<64x16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @threads / scf.forall#0 (block y, block x) / scf.forall#0 (thread y, thread x) / linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %g = transform.tirx.tile_to_threads %t elements_per_thread [2, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_order: the target is already split among threads; mma.sync is executed by a whole warp}}
    // expected-note @below {{hint: apply use_mma instead of tile_to_threads}}
    %w = transform.tirx.use_mma %u : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: f64 operands (mma.sync here takes f32, f16 and bf16).
func.func @double(%A: memref<64x16xf64>, %B: memref<16x64xf64>, %C: memref<64x64xf64>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xf64>, memref<16x64xf64>)
                outs(%C : memref<64x64xf64>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: A and B are f64 and f64; mma.sync here takes two f32 operands (multiplied as tf32), two f16 or two bf16}}
    // expected-note @below {{hint: convert the operands to one of these types first}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: A and B of different types.
func.func @mixed(%A: memref<64x16xf16>, %B: memref<16x64xbf16>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xf16>, memref<16x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: A and B are f16 and bf16}}
    // expected-note @below {{hint:}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a bf16 accumulator (the tensor cores sum bf16 products in f32).
func.func @bf16_acc(%A: memref<64x16xbf16>, %B: memref<16x64xbf16>, %C: memref<64x64xbf16>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xbf16>, memref<16x64xbf16>)
                outs(%C : memref<64x64xbf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: C is bf16; mma.sync sums bf16 products in f32}}
    // expected-note @below {{hint: accumulate into an f32 C and convert it afterwards}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: K = 24 is a multiple of 8 but not of 16, the K of a bf16 step.
func.func @short_k16(%A: memref<64x24xbf16>, %B: memref<24x64xbf16>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x24xbf16>, memref<24x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: K = 24 is not a multiple of 16, the K of one mma.sync step on bf16}}
    // expected-note @below {{hint: tile the reduction with tile_reduction to a multiple of 16}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 4 warps of 16 rows do not fit a 32-row tile; the hint names the
// counts that do.
func.func @too_many_warps(%A: memref<64x16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: 4 warps of 16-row fragments do not divide M = 32}}
    // expected-note @below {{hint: try 1 or 2}}
    %w = transform.tirx.use_mma %t warps [4, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: K is not a whole number of mma.sync steps.
func.func @short_k(%A: memref<64x12xf32>, %B: memref<12x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x12xf32>, memref<12x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: K = 12 is not a multiple of 8, the K of one mma.sync step on f32}}
    // expected-note @below {{hint:}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a broadcast operand (A a vector along k), named by its map.
func.func @broadcast(%A: memref<16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<16xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: A's indexing map is (d0, d1, d2) -> (d2) (a broadcast or other operand); the tensor cores read A as (m, k) or (k, m); use_mma takes C[m, n] += A[m, k] * B[k, n] with A as (m, k) or (k, m) and B as (k, n) or (n, k)}}
    %w = transform.tirx.use_mma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: B broadcast along n (a (k) vector).
func.func @broadcast_b(%A: memref<64x16xf32>, %B: memref<16xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<64x16xf32>, memref<16xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: B's indexing map is (d0, d1, d2) -> (d2) (a broadcast or other operand); the tensor cores read B as (k, n) or (n, k)}}
    %w = transform.tirx.use_mma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: warps takes two counts (along M and N), each at least 1, at most 32 in all (1024 threads)}}
    %w = transform.tirx.use_mma %root warps [8, 8] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: warps takes two counts}}
    %w = transform.tirx.use_mma %root warps [0, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
