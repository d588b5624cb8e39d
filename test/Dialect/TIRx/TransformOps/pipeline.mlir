// pipeline: a loop's copies into shared memory issued stages - 1 tiles
// ahead, asynchronously, into stages buffers per tile.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A bf16 matmul's K loop (4 tiles of 32), its A and B tiles staged in padded
// shared buffers, its warps on mma.sync, pipelined in 3 stages: the buffers
// become 3 deep, tiles 0 and 1 are copied before the loop (a group each);
// each iteration waits for its tile (1 group may stay in flight), syncs the
// block, copies tile i + 2 into stage (i + 2) mod 3, commits, then computes
// on stage i mod 3. The last 2 iterations have no tile to copy: they are a
// loop of their own that commits empty groups.
// CHECK-LABEL: func.func @matmul
//       CHECK:   scf.forall
//   CHECK-DAG:     %[[A:.*]] = memref.alloc() {alignment = 16 : i64} : memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//   CHECK-DAG:     %[[B:.*]] = memref.alloc() {alignment = 16 : i64} : memref<3x32x40xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:     memref.alloc
//       CHECK:     %[[A0:.*]] = memref.subview %[[A]][0, 0, 0] [1, 32, 40] [1, 1, 1]
//       CHECK:     %[[A0V:.*]] = memref.subview %[[A0]][0, 0] [32, 32] [1, 1]
//       CHECK:     linalg.copy {tirx.async_copy} ins(%{{.*}} : memref<32x32xbf16, strided<[128, 1], offset: ?>>) outs(%[[A0V]] :
//       CHECK:     linalg.copy {tirx.async_copy}
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     memref.subview %[[A]][1, 0, 0] [1, 32, 40] [1, 1, 1]
//       CHECK:     linalg.copy {tirx.async_copy}
//       CHECK:     linalg.copy {tirx.async_copy}
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:     scf.for %[[K:.*]] = %c0{{.*}} to %c64{{.*}} step %c32
//  CHECK-NEXT:       nvvm.cp.async.wait.group 1
//  CHECK-NEXT:       gpu.barrier
//       CHECK:       %[[I:.*]] = arith.divui
//       CHECK:       %[[CUR:.*]] = arith.remui %[[I]], %c3
//       CHECK:       %[[I2:.*]] = arith.addi %[[I]], %c2
//       CHECK:       %[[NEXT:.*]] = arith.remui %[[I2]], %c3
//       CHECK:       %[[AHEAD:.*]] = arith.addi %[[K]], %c64
//   CHECK-NOT:       scf.if
//       CHECK:       memref.subview %[[A]][%[[NEXT]], 0, 0] [1, 32, 40] [1, 1, 1]
//       CHECK:       memref.subview %{{.*}}[0, %[[AHEAD]]] [32, 32] [1, 1]
//       CHECK:       linalg.copy {tirx.async_copy}
//       CHECK:       linalg.copy {tirx.async_copy}
//  CHECK-NEXT:       nvvm.cp.async.commit.group
//       CHECK:       %[[ACUR:.*]] = memref.subview %[[A]][%[[CUR]], 0, 0] [1, 32, 40] [1, 1, 1]
//       CHECK:       %[[ACURV:.*]] = memref.subview %[[ACUR]][0, 0] [32, 32] [1, 1]
//   CHECK-NOT:       gpu.barrier
//       CHECK:       scf.forall
//       CHECK:         nvgpu.ldmatrix %[[ACURV]]
//       CHECK:         nvgpu.mma.sync
//       CHECK:       } {mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>]}
//  CHECK-NEXT:     }
//  CHECK-NEXT:     scf.for %{{.*}} = %c64{{.*}} to %c128{{.*}} step %c32
//  CHECK-NEXT:       nvvm.cp.async.wait.group 1
//  CHECK-NEXT:       gpu.barrier
//   CHECK-NOT:       linalg.copy
//       CHECK:       nvvm.cp.async.commit.group
//       CHECK:       scf.forall
//       CHECK:         nvgpu.mma.sync
//       CHECK:       } {mapping = [#gpu.warp<linear_dim_1>, #gpu.warp<linear_dim_0>]}
//  CHECK-NEXT:     }
//  CHECK-NEXT:     nvvm.cp.async.wait.group 0
func.func @matmul(%A: memref<64x128xbf16>, %B: memref<128x64xbf16>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x128xbf16>, memref<128x64xbf16>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 1] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 3 : !transform.any_op
    transform.yield
  }
}

// -----

// Two stages: every iteration waits for all copies (numGroups 0).
// CHECK-LABEL: func.func @two_stages
//       CHECK:   memref.alloc() {alignment = 16 : i64} : memref<2x32x32xf32, #gpu.address_space<workgroup>>
//       CHECK:   scf.for
//  CHECK-NEXT:     nvvm.cp.async.wait.group 0
//       CHECK:   scf.for
//  CHECK-NEXT:     nvvm.cp.async.wait.group 0
func.func @two_stages(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 2 : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: not a loop.
func.func @not_a_loop(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @not_a_loop / linalg.matmul#0}}
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: the target is linalg.matmul, not an scf.for}}
    transform.tirx.pipeline %m : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a loop outside any block mapping.
func.func @unmapped(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  // expected-note @below {{payload op: func @unmapped / scf.for#0}}
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %x[%i] : memref<64xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the loop is not inside a forall mapped to blocks}}
    // expected-note @below {{hint: apply tile_to_blocks, tile_reduction and promote_to_shared first}}
    transform.tirx.pipeline %l : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a K loop without tiles staged in shared memory.
func.func @no_copy(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{scf.for#0}}
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{no_staged_copy: the loop copies no tile from global into shared memory}}
    // expected-note @below {{hint: apply promote_to_shared to an op in the loop first}}
    transform.tirx.pipeline %l : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 2 iterations cannot feed 4 stages.
func.func @few_trips(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{scf.for#0}}
  linalg.matmul ins(%A, %B : memref<64x64xf32>, memref<64x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{too_few_trips: the loop runs 2 times; 4 stages issue the copies of 3 iterations before it}}
    // expected-note @below {{hint: use at most 3 stages}}
    transform.tirx.pipeline %l stages = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 4 stages of two 8 KiB tiles exceed 48 KiB; 3 fit.
func.func @too_big(%A: memref<64x512xf32>, %B: memref<512x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{scf.for#0}}
  linalg.matmul ins(%A, %B : memref<64x512xf32>, memref<512x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{exceeds_smem: 4 stages take 65536 bytes of shared memory, more than 49152}}
    // expected-note @below {{hint: try 3 stages}}
    transform.tirx.pipeline %l stages = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a stage of 6 x 6 bf16 (72 bytes) would shift the next one's
// rows off their 16-byte alignment.
func.func @odd_stage(%A: memref<6x12xbf16>, %B: memref<12x6xbf16>, %C: memref<6x6xf32>) {
  // expected-note @below {{scf.for#0}}
  linalg.matmul ins(%A, %B : memref<6x12xbf16>, memref<12x6xbf16>)
                outs(%C : memref<6x6xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [6, 6] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 6] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0] : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: a stage of the shared buffer 72 bytes long is not a multiple of 16 bytes}}
    // expected-note @below {{hint: change the tile or its padding}}
    transform.tirx.pipeline %l stages = 2 : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the loop also writes the staged buffer.
#map = affine_map<(d0) -> (d0 * 32)>
func.func @race(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%b) in (2) {
    %s = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
    %o = affine.apply #map(%b)
    // expected-note @below {{payload op: func @race / scf.forall#0 (block x) / scf.for#0}}
    scf.for %k = %c0 to %c64 step %c32 {
      %src = memref.subview %A[%o, %k] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      gpu.barrier
      linalg.copy ins(%src : memref<32x32xf32, strided<[64, 1], offset: ?>>) outs(%s : memref<32x32xf32, #gpu.address_space<workgroup>>)
      gpu.barrier
      // expected-note @below {{conflicting op}}
      memref.store %zero, %s[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
    }
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{shared_race: 'memref.store' writes a staged buffer}}
    transform.tirx.pipeline %l stages = 2 : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a loop whose bounds are not static.
func.func @dynamic(%A: memref<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  scf.forall (%b) in (2) {
    // expected-note @below {{payload op}}
    scf.for %k = %c0 to %n step %c32 {
      gpu.barrier
    }
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{unknown_trip_count: the loop's bounds or step are not static}}
    transform.tirx.pipeline %l : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{invalid_parameter: stages must lie in [2, 8], got 1}}
    transform.tirx.pipeline %root stages = 1 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{invalid_parameter: max_shared_bytes must lie in [1, 232448]}}
    transform.tirx.pipeline %root {max_shared_bytes = 300000} : !transform.any_op
    transform.yield
  }
}

// -----

// The block's other shared buffers count once, an index buffer (an
// argmax's positions) at 8 bytes an element: 3 stages of two 2560-byte
// tiles and 8 indices take 15424 bytes.
#tile = affine_map<(d0) -> (d0 * 32)>
func.func @index_buffer(%A: memref<64x128xbf16>, %B: memref<128x64xbf16>, %C: memref<64x64xf32>) {
  scf.forall (%i, %j) in (2, 2) {
    %c0 = arith.constant 0 : index
    %r = affine.apply #tile(%i)
    %c = affine.apply #tile(%j)
    %a = memref.subview %A[%r, 0] [32, 128] [1, 1] : memref<64x128xbf16> to memref<32x128xbf16, strided<[128, 1], offset: ?>>
    %b = memref.subview %B[0, %c] [128, 32] [1, 1] : memref<128x64xbf16> to memref<128x32xbf16, strided<[64, 1], offset: ?>>
    %o = memref.subview %C[%r, %c] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
    %pos = memref.alloc() : memref<8xindex, #gpu.address_space<workgroup>>
    memref.store %c0, %pos[%c0] : memref<8xindex, #gpu.address_space<workgroup>>
    // expected-note @below {{scf.for#0}}
    linalg.matmul ins(%a, %b : memref<32x128xbf16, strided<[128, 1], offset: ?>>, memref<128x32xbf16, strided<[64, 1], offset: ?>>)
                  outs(%o : memref<32x32xf32, strided<[64, 1], offset: ?>>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %r, %l = transform.tirx.tile_reduction %m tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{exceeds_smem: 3 stages take 15424 bytes of shared memory, more than 15360}}
    // expected-note @below {{hint: try 2 stages}}
    transform.tirx.pipeline %l stages = 3 {max_shared_bytes = 15360} : !transform.any_op
    transform.yield
  }
}
