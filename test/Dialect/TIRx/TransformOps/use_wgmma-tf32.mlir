// use_wgmma with B held as (n, k) (nn.Linear's x W^T): both staged tiles
// K-major, wgmma.mma_async written as NVVM's op (m64nNk8 on tf32 from f32
// operands, m64nNk16 on 16-bit ones), its matrix descriptors built from the
// stages' address; refusals of what the K-major path cannot take.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// An f32 linear on a 128x128 block tile, 3 stages, one warpgroup: tensor
// maps of A and W in 128 x 32 boxes (32 f32 = one 128-byte swizzled row);
// thread 0 loads both boxes of a stage (32 KiB) with one TMA load each; the
// K loop (256 / 32 = 8 tiles) keeps two 64-row accumulators (LLVM structs of
// 64 f32 a thread), starts each tile's descriptors from the stage's
// address (A: stage x 16 KiB; W: after the 3 stages of A, 48 KiB, + stage x
// 16 KiB; >> 4), and issues 4 K steps of 8 (32 bytes: descriptor + 2) for
// each 64-row group (rows 64-127: + 8 KiB, descriptor + 512), both operands
// K-major (A row, B col: no transpose); one group in flight; then the
// accumulators go into shared memory by wgmma's D fragment (pairs of f32,
// 8-byte aligned) and C += them by 4.
// CHECK-LABEL: func.func @linear_f32
//   CHECK-NOT:   linalg.matmul
//       CHECK:   %[[MAPA:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   %[[MAPB:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   scf.forall (%[[BM:.*]], %[[BN:.*]]) in (2, 4)
//       CHECK:     %[[ROW0:.*]] = affine.apply #{{.*}}(%[[BM]])
//       CHECK:     %[[COL0:.*]] = affine.apply #{{.*}}(%[[BN]])
//       CHECK:     %[[RAW:.*]] = memref.alloc() : memref<99328xi8, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[TID:.*]]) in (128)
//       CHECK:       %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[RAW]]
//       CHECK:       %[[FULL:.*]] = nvgpu.mbarrier.create
//       CHECK:       scf.if
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c32768
//       CHECK:         %[[K0:.*]] = arith.muli %{{.*}}, %c32
//       CHECK:         nvgpu.tma.async.load %[[MAPA]][%[[K0]], %[[ROW0]]], %[[FULL]]{{.*}} -> memref<128x32xf32
//       CHECK:         nvgpu.tma.async.load %[[MAPB]][%[[K0]], %[[COL0]]], %[[FULL]]{{.*}} -> memref<128x32xf32
//   CHECK-NOT:         nvgpu.tma.async.load
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx
//       CHECK:       %[[SUMS:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<99328xi8, #gpu.address_space<workgroup>> to memref<128x136xf32, #gpu.address_space<workgroup>>
//       CHECK:       %[[START:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
//       CHECK:       %[[ZERO0:.*]] = llvm.mlir.zero : !llvm.struct<({{(f32, )+}}f32)>
//       CHECK:       %[[ZERO1:.*]] = llvm.mlir.zero
//       CHECK:       %[[ACC:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c8 step %{{.*}} iter_args(%[[ACC0:.*]] = %[[ZERO0]], %[[ACC1:.*]] = %[[ZERO1]])
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[FULL]]
//       CHECK:         nvvm.bar.warp.sync
//       CHECK:         %[[OFFA:.*]] = arith.muli %{{.*}}, %c16384
//       CHECK:         %[[DA16:.*]] = arith.divui %[[OFFA]], %c16
//       CHECK:         %[[DA:.*]] = arith.index_castui %[[DA16]]
//       CHECK:         %[[DESCA:.*]] = arith.addi %[[START]], %[[DA]] : i64
//       CHECK:         %[[OFFB:.*]] = arith.addi %{{.*}}, %c49152
//       CHECK:         %[[DB16:.*]] = arith.divui %[[OFFB]], %c16
//       CHECK:         %[[DB:.*]] = arith.index_castui %[[DB16]]
//       CHECK:         %[[DESCB:.*]] = arith.addi %[[START]], %[[DB]] : i64
//       CHECK:         nvvm.wgmma.fence.aligned
//       CHECK:         %[[S0G0:.*]] = nvvm.wgmma.mma_async %[[DESCA]], %[[DESCB]], %[[ACC0]], <m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
//       CHECK:         %[[A1:.*]] = arith.addi %[[DESCA]], %c512_i64
//       CHECK:         %[[S0G1:.*]] = nvvm.wgmma.mma_async %[[A1]], %[[DESCB]], %[[ACC1]], <m = 64, n = 128, k = 8>
//       CHECK:         %[[B2:.*]] = arith.addi %[[DESCB]], %c2_i64
//       CHECK:         %[[A2:.*]] = arith.addi %[[DESCA]], %c2_i64
//       CHECK:         nvvm.wgmma.mma_async %[[A2]], %[[B2]], %[[S0G0]], <m = 64, n = 128, k = 8>
//       CHECK:         %[[A514:.*]] = arith.addi %[[DESCA]], %c514_i64
//       CHECK:         nvvm.wgmma.mma_async %[[A514]], %[[B2]], %[[S0G1]]
// CHECK-COUNT-4:       nvvm.wgmma.mma_async
//   CHECK-NOT:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.wgmma.commit.group.sync.aligned
//       CHECK:         nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:         nvgpu.mbarrier.arrive
//       CHECK:         nvgpu.mbarrier.try_wait.parity
//       CHECK:         nvgpu.tma.async.load %[[MAPA]]
//       CHECK:         nvgpu.tma.async.load %[[MAPB]]
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:       gpu.barrier
//       CHECK:       %[[W16:.*]] = arith.muli %{{.*}}, %c16
//       CHECK:       %[[ROW:.*]] = arith.addi %[[W16]], %{{.*}} : index
//       CHECK:       %[[COL:.*]] = arith.muli %{{.*}}, %c2
//       CHECK:       %[[D0:.*]] = llvm.extractvalue %[[ACC]]#0[0]
//       CHECK:       %[[D1:.*]] = llvm.extractvalue %[[ACC]]#0[1]
//       CHECK:       %[[P01:.*]] = vector.from_elements %[[D0]], %[[D1]] : vector<2xf32>
//       CHECK:       vector.store %[[P01]], %[[SUMS]][%[[ROW]], %[[COL]]] {alignment = 8 : i64}
//       CHECK:       llvm.extractvalue %[[ACC]]#0[2]
//       CHECK:       %[[ROW8:.*]] = arith.addi %[[ROW]], %c8
//       CHECK:       vector.store %{{.*}}, %[[SUMS]][%[[ROW8]], %[[COL]]]
//       CHECK:       llvm.extractvalue %[[ACC]]#0[4]
//       CHECK:       %[[COL8:.*]] = arith.addi %[[COL]], %c8
//       CHECK:       vector.store %{{.*}}, %[[SUMS]][%[[ROW]], %[[COL8]]]
//       CHECK:       llvm.extractvalue %[[ACC]]#1[63]
//       CHECK:       %[[ROW72:.*]] = arith.addi %[[ROW]], %c72
//       CHECK:       %[[COL120:.*]] = arith.addi %[[COL]], %c120
//       CHECK:       vector.store %{{.*}}, %[[SUMS]][%[[ROW72]], %[[COL120]]]
//       CHECK:       gpu.barrier
//       CHECK:       scf.for %{{.*}} = %[[TID]] to %c4096 step %c128
//       CHECK:         vector.load %[[SUMS]]{{.*}} vector<4xf32>
//       CHECK:         arith.addf {{.*}} : vector<4xf32>
//       CHECK:         vector.store
//       CHECK:     } {mapping = [#gpu.thread<x>]}
func.func @linear_f32(%A: memref<256x256xf32>, %W: memref<512x256xf32>, %C: memref<256x512xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x256xf32>, memref<512x256xf32>)
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

// f32, a 128x256 tile on two warpgroups (256 threads), 4 stages: each
// warpgroup holds one 64x256 accumulator (128 f32 a thread) and reads its
// own 64 rows of A's stage (thread / 128 x 8 KiB); W arrives in one 256 x 32
// box a stage.
// CHECK-LABEL: func.func @linear_f32_two_groups
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c256{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<256x32xf32
//       CHECK:     scf.forall (%[[TID:.*]]) in (256)
//       CHECK:       nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c49152
//       CHECK:       nvgpu.tma.async.load {{.*}} -> memref<256x32xf32
//       CHECK:       %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<({{(f32, )+}}f32)>
//   CHECK-NOT:       llvm.mlir.zero
//       CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (!llvm.struct
//       CHECK:         %[[GROUP:.*]] = arith.divui %[[TID]], %c128
//       CHECK:         arith.muli %[[GROUP]], %c8192
// CHECK-COUNT-4:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
//   CHECK-NOT:         nvvm.wgmma.mma_async
//       CHECK:       llvm.extractvalue %{{.*}}[127]
func.func @linear_f32_two_groups(%A: memref<256x128xf32>, %W: memref<512x128xf32>, %C: memref<256x512xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x128xf32>, memref<512x128xf32>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 4 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A bf16 linear takes the same K-major path: 128 x 64 boxes (64 bf16 = one
// 128-byte row), 4 K steps of 16 a tile, no transpose.
// CHECK-LABEL: func.func @linear_bf16
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16
//       CHECK:       scf.for %{{.*}} = %{{.*}} to %c4 step
// CHECK-COUNT-8:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
//   CHECK-NOT:         nvgpu.warpgroup.mma
func.func @linear_bf16(%A: memref<256x256xbf16>, %W: memref<512x256xbf16>, %C: memref<256x512xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x256xbf16>, memref<512x256xbf16>)
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

// Tails in M and N and a K no tile of 32 divides (M 200, N 196, K 100: N
// and K multiples of 4): the tails' branches go, 4 tiles of K (the last
// zero-filled past 100 by TMA), C's stores guarded inside 200 x 196.
// CHECK-LABEL: func.func @linear_f32_tails
//   CHECK-NOT:   linalg.matmul
//   CHECK-NOT:   tirx.tail
//       CHECK:       scf.for %{{.*}} = %{{.*}} to %c4 step
//       CHECK:       scf.for
//       CHECK:         %[[IN:.*]] = arith.andi
//       CHECK:         scf.if %[[IN]] {
//       CHECK:           vector.load
//       CHECK:           vector.store
func.func @linear_f32_tails(%A: memref<200x100xf32>, %W: memref<196x100xf32>, %C: memref<200x196xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<200x100xf32>, memref<196x100xf32>)
                outs(%C : memref<200x196xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %full = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %full stages 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A tf32 linear + bias + GELU (the recipe of matmul_bias_gelu_bf16-wgmma):
// the K-major path stores its accumulators into the shared tile the
// epilogue reads, which computes the consumer on vectors of four.
// CHECK-LABEL: func.func @linear_bias_gelu_f32
//   CHECK-NOT:   linalg.
//       CHECK:     scf.forall (%[[TID:.*]]) in (256)
//       CHECK:       nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:       vector.store %{{.*}}, %[[SUMS:.*]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//       CHECK:       gpu.barrier
//       CHECK:       scf.for %{{.*}} = %[[TID]] to %c8192 step %c256
//       CHECK:         %[[SUM:.*]] = vector.load %[[SUMS]]
//       CHECK:         %[[BIAS:.*]] = vector.load %{{.*}} : memref<256xf32, strided<[1], offset: ?>>, vector<4xf32>
//       CHECK:         arith.addf %[[SUM]], %[[BIAS]] : vector<4xf32>
//       CHECK:         math.erf %{{.*}} : vector<4xf32>
//   CHECK-NOT:   linalg.
//       CHECK:   return
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @linear_bias_gelu_f32(%A: memref<256x256xf32>, %W: memref<512x256xf32>,
                                %bias: memref<512xf32>, %Y: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<256x512xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<256x512xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x256xf32>, memref<512x256xf32>)
                outs(%acc : memref<256x512xf32>)
  linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<256x512xf32>, memref<512xf32>) outs(%Y : memref<256x512xf32>) {
  ^bb0(%s: f32, %b: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678118654752 : f32
    %x = arith.addf %s, %b : f32
    %u = arith.mulf %x, %rsqrt2 : f32
    %e = math.erf %u : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %x, %half : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  }
  memref.dealloc %acc : memref<256x512xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %fm = transform.tirx.fuse_into %m {max_shared_bytes = 131072} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %fm stages 4 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: K = 102 is not a multiple of 4 (A's and W's rows of 408 bytes).
func.func @f32_odd_k(%A: memref<128x102xf32>, %W: memref<128x102xf32>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<128x102xf32>, memref<128x102xf32>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: K = 102 is not a multiple of 4: the rows of A (408 bytes) are not a multiple of 16 bytes, which TMA's tensor maps need}}
    // expected-note @below {{hint: pad K to a multiple of 4 (zeros in A and B), or use use_mma}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: N = 198 leaves a tail, and the tail blocks store C four columns
// at a time.
func.func @f32_odd_n(%A: memref<128x64xf32>, %W: memref<198x64xf32>, %C: memref<128x198xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<128x64xf32>, memref<198x64xf32>)
                outs(%C : memref<128x198xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: N = 198 is not a multiple of 4: the tail blocks store C four columns at a time}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: B broadcast along N (neither (k, n) nor (n, k)).
func.func @broadcast_b(%A: memref<128x64xf32>, %B: memref<64xf32>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<128x64xf32>, memref<64xf32>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: B's indexing map is (d0, d1, d2) -> (d2) (a broadcast or other operand); the tensor cores read B as (k, n) or (n, k); use_wgmma takes C[m, n] += A[m, k] * B[k, n] with A as (m, k) and B as (k, n) or (n, k)}}
    // expected-note @below {{hint: copy the broadcast operand into a full buffer first}}
    %w = transform.tirx.use_wgmma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
