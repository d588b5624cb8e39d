// promote_to_shared: a block's operand tiles copied into shared memory.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

func.func @big(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  // expected-note @below {{payload op: func @big / scf.forall#0 (block y, block x) / linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{exceeds_smem: the tiles need 131072 bytes of shared memory; a block has 49152}}
    // expected-note @below {{hint: use smaller block tiles, or raise max_shared_bytes up to the device's opt-in limit (227 KiB on the H200)}}
    %p = transform.tirx.promote_to_shared %t operands [0, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Padding: the A tile's rows are 4 floats longer in shared memory (a 32x20
// buffer), the op reads its 32x16 view; the padding counts against the
// block's shared memory.
// CHECK-LABEL: func.func @padded
//       CHECK:   scf.forall
//       CHECK:     %[[BUF:.*]] = memref.alloc() : memref<32x20xf32, #gpu.address_space<workgroup>>
//       CHECK:     %[[VIEW:.*]] = memref.subview %[[BUF]][0, 0] [32, 16] [1, 1] : memref<32x20xf32, #gpu.address_space<workgroup>> to memref<32x16xf32, strided<[20, 1]>, #gpu.address_space<workgroup>>
//       CHECK:     scf.for
//       CHECK:       gpu.barrier
//       CHECK:       linalg.copy ins(%{{.*}} : memref<32x16xf32, strided<[64, 1], offset: ?>>) outs(%[[VIEW]] : {{.*}})
//       CHECK:       gpu.barrier
//       CHECK:       linalg.matmul ins(%[[VIEW]], %{{.*}} : memref<32x16xf32, strided<[20, 1]>, #gpu.address_space<workgroup>>, memref<16x32xf32, strided<[64, 1], offset: ?>>)
func.func @padded(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0] {padding = 4} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @padded_too_big(%a: memref<128x128xf32>, %b: memref<128x128xf32>, %c: memref<128x128xf32>) {
  // expected-note @below {{linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<128x128xf32>, memref<128x128xf32>) outs(%c : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // 64x64 f32 is 16384 bytes, 16 KiB a tile; padded by 64 floats a row, 32768.
    // expected-error @below {{exceeds_smem: the tiles need 32768 bytes of shared memory; a block has 20000}}
    // expected-note @below {{hint:}}
    %p = transform.tirx.promote_to_shared %r operands [0] {padding = 64, max_shared_bytes = 20000} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: padding must lie in [0, 64], got -1}}
    %p = transform.tirx.promote_to_shared %root operands [0] {padding = -1} : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @whole(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  scf.forall (%i) in (1) {
    // expected-note @below {{payload op: func @whole / scf.forall#0 (block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_a_tile: operand 0 is not a static tile (a memref.subview of static shape)}}
    // expected-note @below {{hint: tile the op with tile_to_blocks first}}
    %p = transform.tirx.promote_to_shared %m operands [0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A named linalg.transpose, tiled: its input tile is staged through its
// generic form (the named op's verifier rejected the promoted view of
// dynamic size: "dim(result, 0) = 32 doesn't match dim(input,
// permutation[0]) = -9223372036854775808"), and copied in before it reads.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.forall
// CHECK: %[[SMEM:.+]] = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<32x32xf32, strided<[512, 1], offset: ?>>) outs(%[[SMEM]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins(%[[SMEM]] : memref<32x32xf32, #gpu.address_space<workgroup>>)
func.func @transpose(%x: memref<256x512xf32>, %y: memref<512x256xf32>) {
  linalg.transpose ins(%x : memref<256x512xf32>) outs(%y : memref<512x256xf32>) permutation = [1, 0]
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.transpose"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %t operands [0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
