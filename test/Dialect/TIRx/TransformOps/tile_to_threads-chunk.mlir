// tile_to_threads with `chunk`: the innermost tiled loop distributed
// cyclically, so that consecutive threads take consecutive runs of `chunk`
// elements (a warp's accesses contiguous) instead of each thread one
// contiguous run of all its elements (blocked).
// Each refusal: its code, its message, the payload op, a hint.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A row of 8192 f32 per block, 1024 threads, 8 elements each as 2 runs of
// 4: thread t takes [4 t, 4 t + 4) and [4096 + 4 t, 4096 + 4 t + 4), in an
// scf.for inside the thread forall; vectorize 4 then makes each run one
// 16-byte access (alignment proven: 4 t + 4096 r is a multiple of 4).
//   CHECK-DAG: #[[$CYC:.*]] = affine_map<(d0, d1) -> (d0 * 4 + d1 * 4096)>
// CHECK-LABEL: func.func @rows
//       CHECK:   scf.forall (%[[ROW:.*]]) in (16) {
//       CHECK:     scf.forall (%{{.*}}, %[[T:.*]]) in (1, 1024) {
//       CHECK:       scf.for %[[R:.*]] = %c0 to %c2 step %c1 {
//       CHECK:         %[[OFF:.*]] = affine.apply #[[$CYC]](%[[T]], %[[R]])
//       CHECK:         vector.load %{{.*}}[%{{.*}}, %[[OFF]]] {alignment = 16 : i64} : memref<16x8192xf32>, vector<4xf32>
//       CHECK:         %[[OUT:.*]] = affine.apply #[[$CYC]](%[[T]], %[[R]])
//       CHECK:         vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[OUT]]] {alignment = 16 : i64} : memref<16x8192xf32>, vector<4xf32>
//       CHECK:       }
//       CHECK:     } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
//       CHECK:   } {mapping = [#gpu.block<x>]}
func.func @rows(%x: memref<16x8192xf32> {llvm.align = 16 : i64},
                %y: memref<16x8192xf32> {llvm.align = 16 : i64}) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x8192xf32>) outs(%y : memref<16x8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 8] {chunk = 4 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// Two tiled loops: the outer one blocked (2 rows a thread, rows 2 t1 and
// 2 t1 + 1), the innermost cyclic; a chunk equal to the elements per
// thread is one run (no loop): the same tiles as without chunk.
//   CHECK-DAG: #[[$TWO:.*]] = affine_map<(d0) -> (d0 * 2)>
//   CHECK-DAG: #[[$ONE:.*]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-LABEL: func.func @two_loops
//       CHECK:   scf.forall (%[[T1:.*]], %[[T0:.*]]) in (4, 64) {
//   CHECK-NOT:     scf.for
//   CHECK-DAG:     affine.apply #[[$TWO]](%[[T1]])
//   CHECK-DAG:     affine.apply #[[$ONE]](%[[T0]])
//       CHECK:     linalg.generic
//  CHECK-SAME:       memref<2x4xf32, strided<[256, 1], offset: ?>>
//       CHECK:   } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
func.func @two_loops(%x: memref<8x256xf32>, %y: memref<8x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x256xf32>) outs(%y : memref<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = arith.negf %a : f32
    linalg.yield %e : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [8, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [2, 4] {chunk = 4 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A chunk that does not divide the elements per thread: no whole runs.
func.func @odd_chunk(%x: memref<16x8192xf32>, %y: memref<16x8192xf32>) {
  // expected-note @below {{payload op: func @odd_chunk / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x8192xf32>) outs(%y : memref<16x8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: chunk 3 does not divide the 8 elements per thread of loop 1}}
    // expected-note @below {{hint: try 1, 2, 4 or 8}}
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 8] {chunk = 3 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A tiled extent its elements per thread do not divide: blocked, the last
// thread would take a tail; a cyclic distribution has none.
func.func @tail_thread(%x: memref<6x256xf32>, %y: memref<6x256xf32>) {
  // expected-note @below {{payload op: func @tail_thread / scf.forall#0 (block y, block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<6x256xf32>) outs(%y : memref<6x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [3, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: loop 0 of extent 3 is not a multiple of its 2 elements per thread: a chunked distribution has no tail thread}}
    // expected-note @below {{hint: use chunk 0 (blocked) here, or elements per thread that divide 3}}
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [2, 8] {chunk = 4 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A tail of run-time size (bounded by 255): blocked threads take it by its
// bound; runs of a cyclic distribution need a static extent.
#id = affine_map<(d0) -> (d0)>
func.func @dynamic_tail(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-note @below {{payload op: func @dynamic_tail / scf.forall#0 (block x) / scf.if#0 / linalg.generic#0}}
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
    // expected-error @below {{dynamic_shape: loop 0 has a size known only at run time}}
    // expected-note @below {{hint:}}
    %u, %h = transform.tirx.tile_to_threads %tail elements_per_thread [4] {chunk = 4 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: chunk must be 0 (blocked) or positive, got -4}}
    %t, %f = transform.tirx.tile_to_threads %root elements_per_thread [1, 8] {chunk = -4 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A row sum whose reduction has a run-time length: the cyclic tiling sizes
// the loops it leaves whole by their static extents, so it refuses (it
// built a subview of size INT64_MIN before).
func.func @dynamic_reduction(%x: memref<64x?xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @dynamic_reduction / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x?xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{dynamic_shape: loop 1 has a size known only at run time}}
    // expected-note @below {{hint:}}
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1] {chunk = 1 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
