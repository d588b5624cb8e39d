// use_wgmma: a block's 16-bit matmul tile on Hopper's wgmma, its A and B
// tiles loaded by TMA into 128-byte swizzled shared stages, one mbarrier per
// stage; refusals of every precondition.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A 128x128 block tile of bf16, 3 stages, one warpgroup: tensor maps on the
// host (A in 128x64 boxes, B in 64x64 ones), one i8 shared buffer, 128
// threads; thread 0 inits a full and an empty barrier per stage and issues
// the first 2 tiles (A, then B's two 64-column boxes); the K loop (256 / 64 =
// 4 tiles) waits for its stage, multiplies on wgmma (B transposed: N is
// contiguous), releases the previous stage per warp and refills it; then
// wgmma's last group, the sums into shared memory, C += them by 4.
// CHECK-LABEL: func.func @matmul_bf16
//   CHECK-NOT:   linalg.matmul
//       CHECK:   %[[CA:.*]] = memref.cast %{{.*}} : memref<256x256xbf16> to memref<*xbf16>
//       CHECK:   %[[MAPA:.*]] = nvgpu.tma.create.descriptor %[[CA]] box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
//       CHECK:   %[[MAPB:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 4)
//       CHECK:     memref.alloc() : memref<99328xi8, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[TID:.*]]) in (128)
//       CHECK:       %[[PTR:.*]] = memref.extract_aligned_pointer_as_index
//       CHECK:       %[[LOW:.*]] = arith.remui %[[PTR]], %c1024
//       CHECK:       %[[UP:.*]] = arith.subi %c1024{{.*}}, %[[LOW]]
//       CHECK:       %[[PAD:.*]] = arith.remui %[[UP]], %c1024
//       CHECK:       %[[FULL:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 3>
//       CHECK:       %[[EMPTY:.*]] = nvgpu.mbarrier.create
//       CHECK:       scf.if
//  CHECK-COUNT-6:      nvgpu.mbarrier.init
//       CHECK:       gpu.barrier
//       CHECK:       scf.if
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%{{.*}}], %c32768
//       CHECK:         nvgpu.tma.async.load %[[MAPA]][%{{.*}}, %{{.*}}], %[[FULL]]
//  CHECK-COUNT-2:      nvgpu.tma.async.load %[[MAPB]]
//       CHECK:         nvgpu.mbarrier.arrive.expect_tx
//       CHECK:       nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<128x128xf32>>
//       CHECK:       scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c1{{.*}} iter_args
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[FULL]]
// The stage's tile of A starts at the buffer's first 1024-byte boundary
// (the pad) + stage x 16 KiB: the 128-byte swizzle's period.
//       CHECK:         %[[SA:.*]] = arith.muli %{{.*}}, %c16384
//       CHECK:         %[[OFFA:.*]] = arith.addi %[[PAD]], %[[SA]]
//       CHECK:         %[[TILEA:.*]] = memref.view %{{.*}}[%[[OFFA]]][] {{.*}} to memref<128x64xbf16
//       CHECK:         nvgpu.warpgroup.generate.descriptor %[[TILEA]], %[[MAPA]] : memref<128x64xbf16
//       CHECK:         nvgpu.warpgroup.generate.descriptor %{{.*}}, %[[MAPB]] : memref<64x128xbf16
//       CHECK:         nvgpu.warpgroup.mma {{.*}} {transposeB}
//       CHECK:         nvgpu.mbarrier.arrive %[[EMPTY]]
//       CHECK:         nvgpu.mbarrier.try_wait.parity %[[EMPTY]]
//       CHECK:         nvgpu.tma.async.load %[[MAPA]]
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:       gpu.barrier
//       CHECK:       nvgpu.warpgroup.mma.store {{.*}} to memref<128x128xf32, strided<[136, 1]>, #gpu.address_space<workgroup>>
//       CHECK:       gpu.barrier
//       CHECK:       scf.for %{{.*}} = %[[TID]] to %c4096 step %c128
//       CHECK:         vector.load {{.*}} vector<4xf32>
//       CHECK:         arith.addf {{.*}} : vector<4xf32>
//       CHECK:         vector.store
//       CHECK:     } {mapping = [#gpu.thread<x>]}
func.func @matmul_bf16(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>, %C: memref<256x512xf32>) {
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

// f16, a 128x256 tile on two warpgroups (256 threads): each holds a 64x256
// accumulator and reads its own 64 rows of A's stage.
// CHECK-LABEL: func.func @matmul_f16
//       CHECK:     scf.forall (%{{.*}}) in (256)
//       CHECK:       nvgpu.warpgroup.mma.init.accumulator -> <fragmented = vector<64x256xf32>>
//       CHECK:         nvgpu.warpgroup.mma {{.*}} : <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>, <tensor = memref<64x256xf16, #gpu.address_space<workgroup>>>
func.func @matmul_f16(%A: memref<256x128xf16>, %B: memref<128x512xf16>, %C: memref<256x512xf32>) {
  linalg.matmul ins(%A, %B : memref<256x128xf16>, memref<128x512xf16>)
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
    // expected-error @below {{not_applicable: the target is linalg.generic, not a linalg.matmul or linalg.batch_matmul on buffers}}
    %w = transform.tirx.use_wgmma %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: not tiled (no block yet).
func.func @unmapped(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{payload op: func @unmapped / linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the target is not inside a forall mapped to blocks}}
    // expected-note @below {{hint: apply tile_to_blocks first}}
    %w = transform.tirx.use_wgmma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: already split among threads.
func.func @threads(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %g = transform.tirx.tile_to_threads %t elements_per_thread [2, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_order: the target is already split among threads or warps}}
    // expected-note @below {{hint: apply use_wgmma right after tile_to_blocks}}
    %w = transform.tirx.use_wgmma %u : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the reduction tiled (A is not all of K).
func.func @reduction_tiled(%A: memref<128x256xbf16>, %B: memref<256x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x256xbf16>, memref<256x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_a_tile: A and B are not tiles}}
    // expected-note @below {{hint: apply use_wgmma right after tile_to_blocks, without tile_reduction or promote_to_shared}}
    %w = transform.tirx.use_wgmma %r : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: f16 products summed into an integer C (wgmma sums in f32, which
// use_wgmma stores as f32 or rounds to A's 16-bit type).
func.func @f16_sums(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xi32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xf16>, memref<64x128xf16>)
                outs(%C : memref<128x128xi32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: A, B and C are f16, f16 and i32; use_wgmma takes f16, bf16 or f32 (as tf32) A and B (alike) summed in f32 into an f32 C (or an f16 C of f16 A and B)}}
    // expected-note @below {{hint: use use_mma for other types}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 32 rows per block (wgmma computes 64 per warpgroup).
func.func @rows(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: the block tile has 32 rows; 1 warpgroup(s) of wgmma (64 rows each) take 64 or 128}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [128, 128] (or [64, ...])}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: two warpgroups on 64 rows.
func.func @rows2(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: the block tile has 64 rows; 2 warpgroup(s) of wgmma (64 rows each) take 128}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [128, 128] (or [64, ...])}}
    %w = transform.tirx.use_wgmma %t warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 96 columns (B arrives in 64-column boxes).
func.func @columns(%A: memref<128x64xbf16>, %B: memref<64x192xbf16>, %C: memref<128x192xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x192xbf16>)
                outs(%C : memref<128x192xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 96] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: the block tile has 96 columns}}
    // expected-note @below {{hint: tile_to_blocks with tile sizes [128, 128] or [128, 256]}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// M = 320 and N = 200 are not multiples of the 128 x 128 tile: the tails
// tile_to_blocks splits off are computed by the full tile's schedule. No
// branch is left: every block loads whole boxes (TMA fills the rows of A
// past 320 and the columns of B past 200 with zeros) and stores only the
// elements of C inside 320 x 200; no tail matmul remains.
// CHECK-LABEL: func.func @tails
//   CHECK-NOT:   linalg.matmul {{.*}}ins(
//       CHECK:   scf.forall (%[[BY:.*]], %[[BX:.*]]) in (3, 2)
//   CHECK-NOT:     scf.if
//       CHECK:     scf.forall (%{{.*}}) in (128)
//       CHECK:       nvgpu.warpgroup.mma
//       CHECK:       scf.for
//       CHECK:         %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
//       CHECK:         scf.if %[[IN]] {
//       CHECK:           vector.load
//       CHECK:           vector.store
//   CHECK-NOT:   linalg.matmul {{.*}}ins(
func.func @tails(%A: memref<320x64xbf16>, %B: memref<64x200xbf16>, %C: memref<320x200xf32>) {
  linalg.matmul ins(%A, %B : memref<320x64xbf16>, memref<64x200xbf16>)
                outs(%C : memref<320x200xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %all : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a tail tile alone (the full tile's matmul takes the tails).
func.func @tail_alone(%A: memref<320x64xbf16>, %B: memref<64x128xbf16>, %C: memref<320x128xf32>) {
  // expected-note @below {{payload op: func @tail_alone / scf.forall#0 (block y, block x) / scf.if#0 / linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<320x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<320x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tail = transform.structured.match ops{["linalg.matmul"]} attributes {tirx.tail} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: the target is a tail tile tile_to_blocks split off: use_wgmma computes the tails with the full tile's schedule}}
    // expected-note @below {{hint: apply use_wgmma to the full tile's matmul (the first linalg.matmul, target index 0), or to all of them}}
    %w = transform.tirx.use_wgmma %tail : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: N = 196 leaves a tail, and B's rows (392 bytes) are not a
// multiple of 16 bytes: TMA cannot load B.
func.func @tail_n_unaligned(%A: memref<128x64xbf16>, %B: memref<64x196xbf16>, %C: memref<128x196xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x196xbf16>)
                outs(%C : memref<128x196xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: N = 196 is not a multiple of 8: the rows of B (392 bytes) are not a multiple of 16 bytes, which TMA's tensor maps need}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a tile that does not divide M where no tail op of
// tile_to_blocks surrounds it (a hand-made block loop over 2 x 128 rows of
// 320).
func.func @no_tails(%A: memref<320x64xbf16>, %B: memref<64x128xbf16>, %C: memref<320x128xf32>) {
  scf.forall (%i) in (2) {
    %r = affine.apply affine_map<(d0) -> (d0 * 128)>(%i)
    %a = memref.subview %A[%r, 0] [128, 64] [1, 1] : memref<320x64xbf16> to memref<128x64xbf16, strided<[64, 1], offset: ?>>
    %b = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    %c = memref.subview %C[%r, 0] [128, 128] [1, 1] : memref<320x128xf32> to memref<128x128xf32, strided<[128, 1], offset: ?>>
    // expected-note @below {{linalg.matmul#0}}
    linalg.matmul ins(%a, %b : memref<128x64xbf16, strided<[64, 1], offset: ?>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%c : memref<128x128xf32, strided<[128, 1], offset: ?>>)
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: the 128 x 128 block tile does not divide M x N = 320 x 128, and the tail tiles are not those tile_to_blocks split off (matmuls on the same buffers)}}
    // expected-note @below {{hint: pick block tile sizes that divide M and N}}
    %w = transform.tirx.use_wgmma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// K = 96: a whole tile of 64 and a partial one (TMA fills A's columns and
// B's rows past K with zeros): 2 tiles of K.
// CHECK-LABEL: func.func @partial_k
//       CHECK:   scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args
//       CHECK:     nvgpu.warpgroup.mma
func.func @partial_k(%A: memref<128x96xbf16>, %B: memref<96x128xbf16>, %C: memref<128x128xf32>) {
  linalg.matmul ins(%A, %B : memref<128x96xbf16>, memref<96x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: K = 100 is not a multiple of 8 (A's 200-byte rows: a tensor
// map's rows are a multiple of 16 bytes).
func.func @odd_k(%A: memref<128x100xbf16>, %B: memref<100x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x100xbf16>, memref<100x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: K = 100 is not a multiple of 8: the rows of A (200 bytes) are not a multiple of 16 bytes, which TMA's tensor maps need}}
    // expected-note @below {{hint: pad K to a multiple of 8 (zeros in A and B), or use use_mma}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 128x256 sums on one warpgroup (256 registers a thread).
func.func @too_wide(%A: memref<128x64xbf16>, %B: memref<64x256xbf16>, %C: memref<128x256xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x256xbf16>)
                outs(%C : memref<128x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{too_wide: each thread would hold 256 f32 sums, more than 128}}
    // expected-note @below {{hint: use warpgroups 2}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 5 stages of 128x256 tiles take 240 KiB.
func.func @smem(%A: memref<128x64xbf16>, %B: memref<64x256xbf16>, %C: memref<128x256xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x256xbf16>)
                outs(%C : memref<128x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: 5 stages take 246784 bytes of shared memory, more than 232448}}
    // expected-note @below {{hint: try 4 stages}}
    %w = transform.tirx.use_wgmma %t stages 5 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused parameters.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{invalid_parameter: stages must lie in [2, 8], got 9}}
    %w = transform.tirx.use_wgmma %m stages 9 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused parameters.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{invalid_parameter: warpgroups must be 1 or 2, got 3}}
    %w = transform.tirx.use_wgmma %m warpgroups 3 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: A read as (k, m) (a B read as (n, k) is taken: K-major,
// use_wgmma-tf32.mlir).
func.func @transposed(%A: memref<64x128xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<64x128xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: A is read as (k, m); use_wgmma takes C[m, n] += A[m, k] * B[k, n] with A as (m, k) and B as (k, n) or (n, k)}}
    // expected-note @below {{hint: transpose A first (a linalg.transpose into an (m, k) buffer)}}
    %w = transform.tirx.use_wgmma %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a bf16 C (the reference sums in bf16, too far from f32 sums
// for a check to allow over a long K).
func.func @bf16_c(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %C: memref<128x128xbf16>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<128x64xbf16>, memref<64x128xbf16>)
                outs(%C : memref<128x128xbf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{unsupported_type: A, B and C are bf16, bf16 and bf16; use_wgmma takes f16, bf16 or f32 (as tf32) A and B (alike) summed in f32 into an f32 C (or an f16 C of f16 A and B)}}
    // expected-note @below {{hint: use use_mma for other types}}
    %w = transform.tirx.use_wgmma %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
