// tile_to_threads: a block's tile split among its threads (an scf.forall
// mapped to threads).
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics

#id = affine_map<(d0) -> (d0)>
func.func @threads(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @threads / scf.forall#0 (block x) / linalg.generic#0}}
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
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: 16 threads per block: a block needs a multiple of 32 threads and at most 1024}}
    // expected-note @below {{hint: elements per thread giving a legal block: 1, 2, 4, 8, 16, 32}}
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: max_threads must lie in [32, 1024], got 2048}}
    %t, %f = transform.tirx.tile_to_threads %root elements_per_thread [4] {max_threads = 2048 : i64} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A block's op with a size known only at run time.
#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  scf.forall (%i) in (4) {
    // expected-note @below {{payload op: func @dynamic / scf.forall#0 (block x) / linalg.generic#0}}
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{dynamic_shape: loop 0 has a size known only at run time (memref<?xf32>)}}
    // expected-note @below {{hint: tile the run-time size with tile_to_blocks first (a guarded tail takes what the tiles leave)}}
    %t, %f = transform.tirx.tile_to_threads %g elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Zeros leave loops untiled, so a list may be longer than 3; but at most 3
// loops map to threads (x, y, z), and no more counts than the op has loops.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: give 1 to 3 nonzero counts (0 leaves a loop untiled)}}
    %t, %f = transform.tirx.tile_to_threads %root elements_per_thread [1, 1, 1, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: give 1 to 3 nonzero tile sizes (0 leaves a loop untiled)}}
    %t, %f = transform.tirx.tile_to_blocks %root tile_sizes [1, 1, 16, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @permute(%x: memref<2x64x4x128xf16>, %y: memref<2x4x64x128xf16>) {
  // expected-note @below {{payload op: func @permute / scf.forall#0 (block z, block y, block x) / linalg.transpose#0}}
  linalg.transpose ins(%x : memref<2x64x4x128xf16>) outs(%y : memref<2x4x64x128xf16>) permutation = [0, 2, 1, 3]
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.transpose"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1, 1, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{invalid_parameter: 5 elements per thread for an op with 4 loops}}
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [0, 0, 1, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
