// tile_to_blocks: a linalg op tiled into an scf.forall mapped to blocks.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1000xf32>, %y: memref<1000xf32>) {
  // expected-note @below {{payload op: func @saxpy / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1000xf32>) outs(%y : memref<1000xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: tile size 256 does not divide the extent 1000 of loop 0}}
    // expected-note @below {{hint: try 40, 50, 100, 125, 200, 250, 500 or 1000}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: tile sizes must be non-negative with at least one positive}}
    %t, %f = transform.tirx.tile_to_blocks %root tile_sizes [0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @rowsum(%a: memref<64x256xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @rowsum / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x256xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_parallel: loop 1 is a reduction; only parallel loops map to blocks and threads}}
    // expected-note @below {{hint: tile the reduction with tile_reduction instead}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [0, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
