// vectorize: a thread's op as vector loads and stores of proven alignment.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

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

// -----

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @saxpy / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: vectorize only after thread mapping}}
    // expected-note @below {{hint: apply tile_to_threads first}}
    transform.tirx.vectorize %g width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1024xf16>, %y: memref<1024xf16>) {
  // expected-note @below {{payload op: func @saxpy / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: width 8 is wider than the per-thread extent 4: no vector of that width fits}}
    // expected-note @below {{hint: try 2 or 4}}
    transform.tirx.vectorize %e width = 8 : !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @wide(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @wide / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [512] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{too_wide: width 8 of 4-byte elements is 32 bytes; a vector access is at most 16}}
    // expected-note @below {{hint: try width 4}}
    transform.tirx.vectorize %e width = 8 : !transform.any_op
    transform.yield
  }
}

// -----

#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @transpose / scf.forall#0 (block y, block x) / scf.forall#0 (thread y, thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [8, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_contiguous: the innermost loop is not the last index of operand #0}}
    // expected-note @below {{hint: interchange the loops so that the contiguous axis is innermost}}
    transform.tirx.vectorize %e width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 0}}
    transform.tirx.vectorize %root width = 0 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 3}}
    transform.tirx.vectorize %root width = 3 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: width must be 1, 2, 4, 8 or 16, got 64}}
    transform.tirx.vectorize %root width = 64 : !transform.any_op
    transform.yield
  }
}

// -----

// A thread's op with a size known only at run time.
#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  scf.forall (%i) in (4) {
    scf.forall (%t) in (32) {
      // expected-note @below {{payload op: func @dynamic / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
      linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
          ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        linalg.yield %s : f32
      }
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{dynamic_shape: loop 0 has a size known only at run time (memref<?xf32>)}}
    // expected-note @below {{hint: tile the run-time size with tile_to_blocks first (a guarded tail takes what the tiles leave)}}
    transform.tirx.vectorize %g width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// Through a reshape (a front end's view, bufferized): the expanded buffer
// shares its source's aligned base and offset, so 8 x f16 per thread are
// 16-byte vectors (before: "proven 1-byte aligned", refused).
// (The vector load folds the reshape away: it reads the 2-D source.)
// CHECK-LABEL: func.func @expanded_rows
//       CHECK:   vector.load %{{.*}} {alignment = 16 : i64} : memref<8192x768xf16>, vector<8xf16>
//       CHECK:   vector.store %{{.*}} {alignment = 16 : i64} : memref<64x128x768xf16>, vector<8xf16>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @expanded_rows(%x: memref<8192x768xf16>, %y: memref<64x128x768xf16>) {
  %v = memref.expand_shape %x [[0, 1], [2]] output_shape [64, 128, 768] : memref<8192x768xf16> into memref<64x128x768xf16>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v : memref<64x128x768xf16>) outs(%y : memref<64x128x768xf16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %a : f16
    linalg.yield %s : f16
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1, 8, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 1, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 8 : !transform.any_op
    transform.yield
  }
}

// -----

// A column reduction (the reduction loop first): tile_to_threads takes
// over the fill that starts the output (each thread fills its own 4
// outputs; the fill kernel goes), and vectorize runs the thread's loop down
// its 4 adjacent columns: one 16-byte load a row, the running maxima a
// vector, the thread's fill stored as one vector.
// CHECK-LABEL: func.func @column_max
//   CHECK-NOT:   linalg.fill
//       CHECK:   scf.forall
//       CHECK:     scf.forall
//       CHECK:       vector.store %{{.*}} {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
//       CHECK:       scf.for
//       CHECK:         %[[X:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
//       CHECK:         %[[ACC:.*]] = vector.load %{{.*}} : memref<1024xf32>, vector<4xf32>
//       CHECK:         %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : vector<4xf32>
//       CHECK:         vector.store %[[M]]
//   CHECK-NOT:   linalg.generic
//       CHECK:   return
func.func @column_max(%x: memref<64x1024xf32> {llvm.align = 16 : i64},
                      %m: memref<1024xf32> {llvm.align = 16 : i64}) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%m : memref<1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x1024xf32>) outs(%m : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [0, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

// A row reduction's innermost loop is its reduction: no vector runs along
// it (reduce_in_block or split_reduction share a row among threads).
func.func @row_sum(%x: memref<64x1024xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @row_sum / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x1024xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_applicable: the innermost loop is a reduction: a vector runs along a parallel loop}}
    // expected-note @below {{hint: interchange the loops so that a parallel, contiguous loop is innermost (a column reduction), or use reduce_in_block or split_reduction for a row reduction}}
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    transform.yield
  }
}
