// use_wgmma's epilogue: a matmul whose C is a block's tile in shared memory
// (fuse_into's, started by a linalg.fill) and read by one elementwise
// linalg.generic: the consumer is computed on the sums in the register
// epilogue, four elements of a row at a time, and the tile, the fill and
// the consumer disappear (one kernel, no round trip of the sums through
// global memory). Refusals of every precondition of the epilogue.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// matmul + bias + GELU (erf form), scheduled as the recipe
// examples/recipes/matmul_bias_gelu_bf16-wgmma.json does: the consumer
// tiled to 128x256 blocks, the matmul fused into them (its 128 KiB tile
// allowed by max_shared_bytes), then use_wgmma on two warpgroups. The
// fill's value is 0: the sums are taken as they are; the bias is read as
// vectors of four along the row; the body's ops run on vector<4xf32>.
// CHECK-LABEL: func.func @bias_gelu
//   CHECK-NOT:   linalg.
//       CHECK:   scf.forall (%{{.*}}, %{{.*}}) in (2, 2)
//   CHECK-NOT:     memref<128x256xf32, #gpu.address_space<workgroup>>
//   CHECK-NOT:     gpu.barrier
//       CHECK:     memref.alloc() : memref<197632xi8, #gpu.address_space<workgroup>>
//       CHECK:     scf.forall (%[[TID:.*]]) in (256)
//       CHECK:       nvgpu.warpgroup.mma {{.*}} {transposeB}
//       CHECK:       nvgpu.warpgroup.mma.store
//       CHECK:       scf.for %{{.*}} = %[[TID]] to %c8192 step %c256
//       CHECK:         %[[SUM:.*]] = vector.load %{{.*}} : memref<128x264xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:         %[[BIAS:.*]] = vector.load %{{.*}} : memref<256xf32, strided<[1], offset: ?>>, vector<4xf32>
//       CHECK:         %[[X:.*]] = arith.addf %[[SUM]], %[[BIAS]] : vector<4xf32>
//       CHECK:         math.erf %{{.*}} : vector<4xf32>
//       CHECK:         vector.store %{{.*}}, %{{.*}} : memref<128x256xf32, strided<[512, 1], offset: ?>>, vector<4xf32>
//       CHECK:     } {mapping = [#gpu.thread<x>]}
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   memref.dealloc
//       CHECK:   return
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @bias_gelu(%A: memref<256x256xbf16>, %B: memref<256x512xbf16>,
                     %bias: memref<512xf32>, %Y: memref<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<256x512xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<256x512xf32>)
  linalg.matmul ins(%A, %B : memref<256x256xbf16>, memref<256x512xbf16>)
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

// A fill of 1 (added to the sums), a per-row input (one load, broadcast to
// the four columns), a scalar from outside the body (broadcast) and a bf16
// output (arith.truncf on vectors, stored as vector<4xbf16>); the
// deallocation of the tile goes with it.
// CHECK-LABEL: func.func @row_scale_bf16
//  CHECK-SAME:   %[[SCALE:[^:]*]]: memref<128xf32>, %[[Y:[^:]*]]: memref<128x128xbf16>, %[[ALPHA:[^:]*]]: f32
//   CHECK-NOT:   linalg.
//       CHECK:   scf.for %{{.*}} = %{{.*}} to %c4096 step %c128
//       CHECK:     %[[SUM:.*]] = vector.load %{{.*}} : memref<128x136xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:     %[[ONE:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
//       CHECK:     %[[START:.*]] = arith.addf %[[SUM]], %[[ONE]] : vector<4xf32>
//       CHECK:     %[[R:.*]] = memref.load %[[SCALE]][%[[ROW:.*]]] : memref<128xf32>
//       CHECK:     %[[RV:.*]] = vector.broadcast %[[R]] : f32 to vector<4xf32>
//       CHECK:     %[[X:.*]] = arith.mulf %[[START]], %[[RV]] : vector<4xf32>
//       CHECK:     %[[AV:.*]] = vector.broadcast %[[ALPHA]] : f32 to vector<4xf32>
//       CHECK:     %[[Z:.*]] = arith.mulf %[[X]], %[[AV]] : vector<4xf32>
//       CHECK:     %[[H:.*]] = arith.truncf %[[Z]] : vector<4xf32> to vector<4xbf16>
//       CHECK:     vector.store %[[H]], %[[Y]][%[[ROW]], %{{.*}}] : memref<128x128xbf16>, vector<4xbf16>
//   CHECK-NOT:   memref.dealloc
#mn = affine_map<(m, n) -> (m, n)>
#m = affine_map<(m, n) -> (m)>
func.func @row_scale_bf16(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %scale: memref<128xf32>, %Y: memref<128x128xbf16>, %alpha: f32) {
  %one = arith.constant 1.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    gpu.barrier
    linalg.fill ins(%one : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    linalg.generic {indexing_maps = [#mn, #m, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %scale : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xbf16>) {
    ^bb0(%s: f32, %r: f32, %y: bf16):
      %x = arith.mulf %s, %r : f32
      %z = arith.mulf %x, %alpha : f32
      %h = arith.truncf %z : f32 to bf16
      linalg.yield %h : bf16
    }
    memref.dealloc %t : memref<128x128xf32, #gpu.address_space<workgroup>>
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: nothing fills the tile before the matmul.
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @no_fill(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    // expected-note @below {{payload op: func @no_fill / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %bias : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %x = arith.addf %s, %b : f32
      linalg.yield %x : f32
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_intermediate: nothing fills C's tile in shared memory before the matmul: its sums would start from unknown values}}
    // expected-note @below {{hint: fuse the matmul (fuse_into) into the block loop of an elementwise linalg.generic that reads its tile}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the tile is read by a second op after the consumer.
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @second_reader(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    // expected-note @below {{payload op: func @second_reader / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %bias : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %x = arith.addf %s, %b : f32
      linalg.yield %x : f32
    }
    linalg.copy ins(%t : memref<128x128xf32, #gpu.address_space<workgroup>>) outs(%Y : memref<128x128xf32>)
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{other_use: C's tile in shared memory is also used by func @second_reader / scf.forall#0 (block y, block x) / linalg.copy#0}}
    // expected-note @below {{hint: fuse the matmul (fuse_into) into the block loop of an elementwise linalg.generic that reads its tile}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a store between the matmul and its consumer.
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @store_between(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    // expected-note @below {{payload op: func @store_between / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    %c0 = arith.constant 0 : index
    memref.store %zero, %bias[%c0] : memref<128xf32>
    linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %bias : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %x = arith.addf %s, %b : f32
      linalg.yield %x : f32
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: func @store_between / scf.forall#0 (block y, block x) / memref.store#0 between the fill, the matmul and its consumer touches memory}}
    // expected-note @below {{hint: move it after the consumer}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the consumer reads the tile transposed.
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @transposed(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    // expected-note @below {{payload op: func @transposed / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    linalg.generic {indexing_maps = [affine_map<(m, n) -> (n, m)>, #n, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %bias : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %x = arith.addf %s, %b : f32
      linalg.yield %x : f32
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_elementwise: func @transposed / scf.forall#0 (block y, block x) / linalg.generic#0 reads the tile through a map other than the identity}}
    // expected-note @below {{hint: leave the consumer a kernel of its own (tile the matmul to blocks without fuse_into)}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: the consumer's body has an op that is not elementwise (linalg.index).
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @index(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    // expected-note @below {{payload op: func @index / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %bias : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %k = linalg.index 1 : index
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      %x = arith.addf %s, %kf : f32
      linalg.yield %x : f32
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_elementwise: func @index / scf.forall#0 (block y, block x) / linalg.generic#0 computes linalg.index, which is not a pure elementwise op on scalars}}
    // expected-note @below {{hint: leave the consumer a kernel of its own (tile the matmul to blocks without fuse_into)}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a 2-D input read with the columns as its outer dimension.
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @columns_outer(%A: memref<128x64xbf16>, %B: memref<64x128xbf16>, %bias: memref<128xf32>, %Y: memref<128x128xf32>, %W: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (1, 1) {
    %t = memref.alloc() : memref<128x128xf32, #gpu.address_space<workgroup>>
    %a = memref.subview %A[0, 0] [128, 64] [1, 1] : memref<128x64xbf16> to memref<128x64xbf16, strided<[64, 1]>>
    %bt = memref.subview %B[0, 0] [64, 128] [1, 1] : memref<64x128xbf16> to memref<64x128xbf16, strided<[128, 1]>>
    linalg.fill ins(%zero : f32) outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    // expected-note @below {{payload op: func @columns_outer / scf.forall#0 (block y, block x) / linalg.matmul#0}}
    linalg.matmul ins(%a, %bt : memref<128x64xbf16, strided<[64, 1]>>, memref<64x128xbf16, strided<[128, 1]>>)
                  outs(%t : memref<128x128xf32, #gpu.address_space<workgroup>>)
    linalg.generic {indexing_maps = [#mn, affine_map<(m, n) -> (n, m)>, #mn], iterator_types = ["parallel", "parallel"]}
        ins(%t, %W : memref<128x128xf32, #gpu.address_space<workgroup>>, memref<128x128xf32>) outs(%Y : memref<128x128xf32>) {
    ^bb0(%s: f32, %b: f32, %y: f32):
      %x = arith.addf %s, %b : f32
      linalg.yield %x : f32
    }
  } {mapping = [#gpu.block<y>, #gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_contiguous: func @columns_outer / scf.forall#0 (block y, block x) / linalg.generic#0 accesses its operand 1 along the columns other than as its contiguous innermost dimension}}
    // expected-note @below {{hint: interchange the consumer's loops or transpose the input}}
    %w = transform.tirx.use_wgmma %m stages 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
