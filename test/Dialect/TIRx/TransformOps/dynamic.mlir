// Sizes known only at run time (memref<?xf32>): tile_to_blocks gives
// ceil(N / 256) blocks, the full tiles while the block is below N / 256,
// then a tail of N - 256 * block elements (at most 255: tirx.tail_bounds);
// the size is named on the arguments (tirx.dims) for the bundle's manifest.
// tile_to_threads gives the tail as many threads as its bound needs, those
// past N doing nothing; vectorize takes the static pieces and refuses the
// tail's, naming the loop; map_to_gpu launches ceil(N / 256) blocks.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

//       CHECK: #[[$CEIL:.*]] = affine_map<()[s0] -> (s0 ceildiv 256)>
//       CHECK: #[[$FLOOR:.*]] = affine_map<()[s0] -> (s0 floordiv 256)>
// CHECK-LABEL: func.func @blocks
//  CHECK-SAME:   {tirx.dims = ["s0"]}
//  CHECK-SAME:   {tirx.dims = ["s0"]}
//       CHECK:   %[[N:.*]] = memref.dim %{{.*}}, %c0
//       CHECK:   %[[BLOCKS:.*]] = affine.apply #[[$CEIL]]()[%[[N]]]
//       CHECK:   scf.forall (%[[B:.*]]) in (%[[BLOCKS]]) {
//       CHECK:     %[[FULL:.*]] = affine.apply #[[$FLOOR]]()[%[[N]]]
//       CHECK:     %[[IS:.*]] = arith.cmpi slt, %[[B]], %[[FULL]]
//       CHECK:     scf.if %[[IS]] {
//       CHECK:       linalg.generic {{.*}} ins(%{{.*}} : memref<256xf32, strided<[1], offset: ?>>)
//       CHECK:     } else {
//       CHECK:       linalg.generic {{.*}} ins(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>)
//  CHECK-SAME:         tirx.tail, tirx.tail_bounds = array<i64: 255>
#id = affine_map<(d0) -> (d0)>
func.func @blocks(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The whole schedule: 4 per thread, the full tiles' pieces as vectors, the
// tail's 64 threads (255 / 4, rounded up), each guarded by its start, its
// piece of min(4, rest) elements scalar.
// CHECK-LABEL: func.func @schedule
//       CHECK:   %[[N:.*]] = memref.dim %{{.*}}, %c0
//       CHECK:   %[[BLOCKS:.*]] = affine.apply #{{.*}}()[%[[N]]]
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %[[BLOCKS]], %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c64
//       CHECK:     scf.if
//       CHECK:       vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:     } else {
//       CHECK:       scf.if
//       CHECK:         vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:       } else {
//       CHECK:         arith.cmpi slt
//       CHECK:         scf.if
//       CHECK:           linalg.generic {{.*}} memref<?xf32, strided<[1], offset: ?>>
//  CHECK-SAME:             tirx.tail_bounds = array<i64: 3>
#id = affine_map<(d0) -> (d0)>
func.func @schedule(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %u, %h = transform.tirx.tile_to_threads %both elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %full, %rest = transform.split_handle %all {overflow_result = 1 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %full width = 4 : !transform.any_op
    %left = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %first, %tail = transform.split_handle %left : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %first width = 4 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

// The tail's per-thread piece has a run-time extent: vectorize refuses it,
// naming the loop and its bound.
#id = affine_map<(d0) -> (d0)>
func.func @tail_piece(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-note @below {{payload op: func @tail_piece / scf.forall#0 (block x) / scf.if#0 / scf.forall#0 (thread x) / scf.if#0 / scf.if#0 / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %both = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %full, %tail = transform.split_handle %both : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %tail elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b, %c = transform.split_handle %all : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    // expected-error @below {{dynamic_shape: loop 0 has a size known only at run time (memref<?xf32, strided<[1], offset: ?>>), at most 3: a tail}}
    // expected-note @below {{hint: the full tiles are static: transform them; a tail of a run-time size stays as it is (scalar)}}
    transform.tirx.vectorize %c width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// A row sum over rows of run-time length: a block per row works (the rows
// are the run-time size s0), but reduce_in_block's tree needs the row's
// static extent: refused, naming the loop.
func.func @dynamic_row(%x: memref<?x?xf32>, %s: memref<?xf32>) {
  // expected-note @below {{payload op: func @dynamic_row / scf.forall#0 (block x) / linalg.reduce#0}}
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%s : memref<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %r tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{dynamic_shape: loop 1 has a size known only at run time (memref<1x?xf32, strided<[?, 1], offset: ?>>)}}
    // expected-note @below {{hint: tile the run-time size with tile_to_blocks first}}
    %red = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Two arguments no op reads together, joined by the buffer the function
// allocates between them (sized by x's run-time size: bufferize's
// intermediate of linalg.softmax on a run-time batch): one size, s0.
// (Before: y's s1, a size of its own, against which the kernel writing y
// over x's rows could prove nothing.)
// CHECK-LABEL: func.func @through_scratch
//  CHECK-SAME:   {tirx.dims = ["s0"]}
//  CHECK-SAME:   {tirx.dims = ["s0"]}
#id3 = affine_map<(d0) -> (d0)>
func.func @through_scratch(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%t : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]}
      ins(%t : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %g0, %g1 = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t, %f = transform.tirx.tile_to_blocks %g0 tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
