// use_wgmma on an f32 matmul with B held as (k, n), as torch.mm's is: wgmma
// reads 32-bit operands K-major only, so each block computes C^T = B^T A^T.
// B^T is wgmma's A, loaded from B's staged boxes into registers (where
// wgmma takes any layout); A, K-major, is wgmma's B (a descriptor); the
// product is inline PTX (NVVM's op takes A by descriptor only), and the
// sums go into C's tile in shared memory transposed.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A 128x128 block tile, 2 stages, one warpgroup (its 128 rows of C^T in two
// groups of 64: two accumulators of 64 f32 a thread). The tensor maps: A in
// 128 x 32 boxes (K-major rows of 128 bytes), B in 32 x 32 boxes (32 rows of
// K by 128 bytes of N), four a stage (16 KiB, after the 2 stages of A).
// In each K tile, 4 steps of 8: wait until only the last 3 groups are in
// flight (the previous tile's group of this step, whose fragment registers
// are reloaded, is complete), 8 loads of B^T's fragments (4 a group, from
// offsets fixed but for the step: + 256 f32 = 1024 bytes a step), the fence,
// two wgmma m64n128k8 with A in registers, one commit. The sums are stored
// transposed: the accumulator's rows are columns of C.
// CHECK-LABEL: func.func @f32_n_major
//   CHECK-NOT:   linalg.matmul
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<128x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   %[[MAPB:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c32{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<32x32xf32, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   scf.forall (%[[TID:.*]]) in (128)
//       CHECK:     scf.if
//       CHECK:       nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c32768
//       CHECK:       nvgpu.tma.async.load
//  CHECK-SAME:         memref<128x32xf32
//  CHECK-COUNT-4:    nvgpu.tma.async.load %[[MAPB]]{{.*}} memref<32x32xf32
//   CHECK-NOT:       nvgpu.tma.async.load
//       CHECK:     %[[SUMS:.*]] = memref.view {{.*}} to memref<128x136xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[ACC:.*]]:2 = scf.for {{.*}} iter_args
//       CHECK:       nvgpu.mbarrier.try_wait.parity
//       CHECK:       %[[STAGEB:.*]] = memref.view {{.*}} to memref<4096xf32, #gpu.address_space<workgroup>>
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 3
// CHECK-COUNT-8:     memref.load %[[STAGEB]]
//       CHECK:       nvvm.wgmma.fence.aligned
//       CHECK:       llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {$0, {{.*}}, $63}, {$128, $129, $130, $131}, $132, p, 1, 1;
//  CHECK-SAME:         "=f,{{.*}},0,1,{{.*}},63,r,r,r,r,l"
//       CHECK:       llvm.inline_asm has_side_effects {{.*}}m64n128k8.f32.tf32.tf32
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 3
//       CHECK:       arith.addi %{{.*}}, %c256
//       CHECK:       memref.load %[[STAGEB]]
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
//   CHECK-NOT:       nvvm.wgmma.commit.group.sync.aligned
//       CHECK:       scf.yield
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     gpu.barrier
//       CHECK:     memref.store %{{.*}}, %[[SUMS]][%[[R:.*]], %[[C:.*]]]
//       CHECK:     %[[R1:.*]] = arith.addi %[[R]], %c1
//       CHECK:     memref.store %{{.*}}, %[[SUMS]][%[[R1]], %[[C]]]
func.func @f32_n_major(%A: memref<128x64xf32>, %B: memref<64x128xf32>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x64xf32>, memref<64x128xf32>)
                outs(%C : memref<128x128xf32>)
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

// Two warpgroups on a 128x256 tile: each takes 128 columns of C (rows of
// C^T) from its first, (tid / 128) x 128, in two groups of 64.
// CHECK-LABEL: func.func @two_warpgroups
//       CHECK:   scf.forall (%[[TID:.*]]) in (256)
//       CHECK:     %[[ACC:.*]]:2 = scf.for
// CHECK-COUNT-2:     m64n128k8.f32.tf32.tf32
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     %[[WG:.*]] = arith.divui %[[TID]], %c128
//       CHECK:     %[[FIRST:.*]] = arith.muli %[[WG]], %c128
func.func @two_warpgroups(%A: memref<128x64xf32>, %B: memref<64x256xf32>, %C: memref<128x256xf32>) {
  linalg.matmul ins(%A, %B : memref<128x64xf32>, memref<64x256xf32>)
                outs(%C : memref<128x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 2 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A 256x128 tile on two warpgroups: C's 256 rows are wgmma's N (one
// m64n256k8 a K step, 128 sums a thread), each warpgroup takes 64 columns
// of C (one group): 4 fragment loads a step.
// CHECK-LABEL: func.func @rows_256
//       CHECK:   nvgpu.tma.create.descriptor %{{.*}} box[%c256{{.*}}, %c32{{.*}}] : memref<*xf32> -> <tensor = memref<256x32xf32
//       CHECK:   scf.forall (%[[TID:.*]]) in (256)
//       CHECK:     %[[ACC:.*]] = scf.for
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 3
// CHECK-COUNT-4:     memref.load
//   CHECK-NOT:       memref.load
//       CHECK:       nvvm.wgmma.fence.aligned
//       CHECK:       llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {$0, {{.*}}, $127}, {$256, $257, $258, $259}, $260, p, 1, 1;
//   CHECK-NOT:       llvm.inline_asm
//       CHECK:       nvvm.wgmma.commit.group.sync.aligned
func.func @rows_256(%A: memref<256x64xf32>, %B: memref<64x128xf32>, %C: memref<256x128xf32>) {
  linalg.matmul ins(%A, %B : memref<256x64xf32>, memref<64x128xf32>)
                outs(%C : memref<256x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [256, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 4 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 100 rows of C, wgmma's N when swapped, which must be a multiple
// of 8.
func.func @swap_rows_100(%A: memref<200x64xf32>, %B: memref<64x128xf32>, %C: memref<200x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<200x64xf32>, memref<64x128xf32>)
                outs(%C : memref<200x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [100, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: the block tile has 100 rows; f32 with B as (k, n) takes a multiple of 8 up to 256 (C^T = B^T A^T: C's rows are wgmma's N)}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [256, 128] or [128, 256]}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: two warpgroups split C's 64 columns (wgmma's M when swapped),
// 32 each, fewer than wgmma's 64.
func.func @swap_narrow(%A: memref<128x64xf32>, %B: memref<64x64xf32>, %C: memref<128x64xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xf32>, memref<64x64xf32>)
                outs(%C : memref<128x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: the block tile has 64 columns; use_wgmma takes 64, 128, 192 or 256 (f32 with B as (k, n): each warpgroup computes 64, 128, 192 or 256 of them, wgmma's M is C's columns)}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [128, 128] or [128, 256]}}
    %w = transform.tirx.use_wgmma %t warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: N = 202 is not a multiple of 4: B's rows (808 bytes) are not a
// multiple of 16 bytes, which its tensor map needs.
func.func @swap_odd_n(%A: memref<128x64xf32>, %B: memref<64x202xf32>, %C: memref<128x202xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xf32>, memref<64x202xf32>)
                outs(%C : memref<128x202xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: N = 202 is not a multiple of 4: the rows of B (808 bytes) are not a multiple of 16 bytes, which TMA's tensor maps need}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: an f32 batch matmul (B as (k, n)): the transposed product takes a
// linalg.matmul only; the batch matmul and its tiles are left as they were.
func.func @swap_batch(%A: memref<2x128x64xf32>, %B: memref<2x64x128xf32>, %C: memref<2x128x128xf32>) {
  // expected-note @below {{linalg.batch_matmul#0}}
  linalg.batch_matmul ins(%A, %B : memref<2x128x64xf32>, memref<2x64x128xf32>)
                      outs(%C : memref<2x128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: an f32 batch matmul: wgmma takes 32-bit operands K-major only, and its transposed product (C^T = B^T A^T, B^T from registers) takes a linalg.matmul only}}
    // expected-note @below {{hint: use use_mma, or f16 or bf16 operands}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
