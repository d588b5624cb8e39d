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

// Refused: f16 operands (tf32 from f32 is what use_mma emits).
func.func @half(%A: memref<64x16xf16>, %B: memref<16x64xf16>, %C: memref<64x64xf16>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x16xf16>, memref<16x64xf16>)
                outs(%C : memref<64x64xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: operand of type memref<32x16xf16, strided<[16, 1], offset: ?>> is not a static memref of f32}}
    // expected-note @below {{hint:}}
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
    // expected-error @below {{not_divisible: K = 12 is not a multiple of 8, the K of one mma.sync step}}
    // expected-note @below {{hint:}}
    %w = transform.tirx.use_mma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a transposed operand (the matmul's own indexing maps).
func.func @transposed(%A: memref<16x64xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<16x64xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: the matmul has its own indexing maps}}
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
