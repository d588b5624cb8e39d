// tile_to_blocks: a linalg op tiled into an scf.forall mapped to blocks.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs. (Sizes that do not
// divide their extents leave tails: tails.mlir.)
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics

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

// -----

// A dimension of size 0: nothing to compute, refused. (Before: a reduction
// loop of extent 0 left whole crashed upstream's tiling; a parallel one
// tiled gave a forall of 0 blocks, an empty grid.)
func.func @empty_rows(%a: memref<4x0xf32>, %s: memref<4xf32>) {
  // expected-note @below {{payload op: func @empty_rows / linalg.reduce#0}}
  linalg.reduce ins(%a : memref<4x0xf32>) outs(%s : memref<4xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: loop 1 has extent 0 (an operand has a dimension of size 0): the op computes nothing, and a kernel of no elements cannot be launched}}
    // expected-note @below {{hint: remove the op from the payload (its outputs keep their initial values), or give the dimension a nonzero size}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

#id0 = affine_map<(d0) -> (d0)>
func.func @empty(%x: memref<0xf32>, %y: memref<0xf32>) {
  // expected-note @below {{payload op: func @empty / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id0, #id0], iterator_types = ["parallel"]}
      ins(%x : memref<0xf32>) outs(%y : memref<0xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: loop 0 has extent 0}}
    // expected-note @below {{hint: remove the op from the payload}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A front end's payload on tensors: the refusal says so.
#id = affine_map<(d0) -> (d0)>
func.func @on_tensors(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<1024xf32> {
  // expected-note @below {{payload op: func @on_tensors / linalg.generic#0}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%y : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on_tensors: the target works on tensors (operand #0 of linalg.generic is tensor<1024xf32>): the GPU schedules work on buffers; apply bufferize first}}
    // expected-note @below {{hint: the bufferize action (transform.tirx.bufferize on the payload module) turns the tensor payload into one on buffers}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Named ops tile as they are: a batch matmul's batch and M loops to blocks.
func.func @batch_matmul(%a: memref<4x64x32xf32>, %b: memref<4x32x16xf32>, %c: memref<4x64x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x64x32xf32>, memref<4x32x16xf32>) outs(%c : memref<4x64x16xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match interface{LinalgOp} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
