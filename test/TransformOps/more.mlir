// peel, tile_reduction, promote_to_shared: effects and refusals.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @peel
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: scf.for %{{.*}} = %c8 to %c10 step %c4
func.func @peel(%m: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c4 {
    %v = memref.load %m[%i] : memref<10xf32>
    memref.store %v, %m[%i] : memref<10xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.tirx.peel %l : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @nothing(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // expected-note @below {{payload op: func @nothing / scf.for#0}}
  scf.for %i = %c0 to %c8 step %c4 {
    %v = memref.load %m[%i] : memref<8xf32>
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{nothing_to_peel: the step divides the loop's range: no partial iteration}}
    %a, %b = transform.tirx.peel %l : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// CHECK-LABEL: func.func @reduce
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xf32, strided<[64, 1], offset: ?>>, memref<16x8xf32
func.func @reduce(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.tirx.tile_reduction %m tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @not_reduction(%a: memref<8x64xf32>, %b: memref<64x8xf32>, %c: memref<8x8xf32>) {
  // expected-note @below {{payload op: func @not_reduction / linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_reduction: loop 0 is parallel}}
    // expected-note @below {{hint: tile parallel loops with tile_to_blocks or tile_to_threads}}
    %t, %l = transform.tirx.tile_reduction %m tile_sizes [4, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

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

// vectorize on a thread's 1x4 piece of a 2-D op: 1-D vector loads and
// stores (the unit dimension dropped), and an input that does not vary
// along the vector (a row's statistic) read once and broadcast.
// CHECK-LABEL: func.func @scale_rows
//       CHECK:   %[[X:.*]] = vector.load %{{.*}} : memref<64x128xf32>, vector<4xf32>
//       CHECK:   %[[S:.*]] = memref.load %{{.*}} : memref<64xf32>
//       CHECK:   %[[B:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
//       CHECK:   %[[Q:.*]] = arith.divf %[[X]], %[[B]] : vector<4xf32>
//       CHECK:   vector.store %[[Q]], %{{.*}} : memref<64x128xf32>, vector<4xf32>
func.func @scale_rows(%x: memref<64x128xf32>, %s: memref<64xf32>, %y: memref<64x128xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<64x128xf32>, memref<64xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q = arith.divf %a, %b : f32
    linalg.yield %q : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}
