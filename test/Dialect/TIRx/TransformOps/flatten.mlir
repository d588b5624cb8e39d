// flatten: an elementwise op on contiguous buffers as one loop over all
// elements (memref.collapse_shape of each buffer), so that tile_to_blocks
// cuts the buffer, not each row. Each refusal: its code, its message, the
// payload op, a hint.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// Rows of 4097 f32 (no vector width divides them): 16785409 elements.
// CHECK-LABEL: func.func @relu_4097
//  CHECK-SAME: (%[[X:.*]]: memref<4097x4097xf32>, %[[Y:.*]]: memref<4097x4097xf32>)
//       CHECK:   %[[FX:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<4097x4097xf32> into memref<16785409xf32>
//       CHECK:   %[[FY:.*]] = memref.collapse_shape %[[Y]] {{\[\[}}0, 1]] : memref<4097x4097xf32> into memref<16785409xf32>
// Then tiled: 16393 blocks, the first 16392 full tiles of 1024 (each at a
// multiple of 1024), a tail of 1 element.
//       CHECK:   scf.forall (%{{.*}}) in (16393)
//       CHECK:     arith.constant 16392 : index
//       CHECK:     memref.subview %[[FX]][%{{.*}}] [1024] [1] : memref<16785409xf32> to memref<1024xf32, strided<[1], offset: ?>>
//       CHECK:     linalg.generic {{.*}}iterator_types = ["parallel"]
//       CHECK:       arith.maximumf
//       CHECK:   } else {
//       CHECK:     memref.subview %[[FX]][%{{.*}}] [1] [1] : memref<16785409xf32> to memref<1xf32, strided<[1], offset: ?>>
//       CHECK:     linalg.generic {{.*}}tirx.tail
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_4097(%x: memref<4097x4097xf32>, %y: memref<4097x4097xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4097x4097xf32>) outs(%y : memref<4097x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    // The handle is the flattened op: tiled next.
    %t, %b = transform.tirx.tile_to_blocks %f tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// Run-time sizes: one loop of s0 * s1 elements; a scalar operand (the same
// for every element) stays as it is.
// CHECK-LABEL: func.func @axpy_dynamic
//       CHECK:   memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<?x?xf32> into memref<?xf32>
//       CHECK:   memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<?x?xf32> into memref<?xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}} ins(%{{.*}}, %{{.*}} : f32, memref<?xf32>) outs(%{{.*}} : memref<?xf32>)
func.func @axpy_dynamic(%a: f32, %x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %x : f32, memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%s: f32, %v: f32, %o: f32):
    %p = arith.mulf %s, %v : f32
    %q = arith.addf %p, %o : f32
    linalg.yield %q : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A named op (linalg.add) of three loops, in its generic form.
// CHECK-LABEL: func.func @named_add
//       CHECK:   memref.collapse_shape %{{.*}} {{\[\[}}0, 1, 2]] : memref<8x1000x3xf32> into memref<24000xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel"]
//       CHECK:     arith.addf
func.func @named_add(%x: memref<8x1000x3xf32>, %y: memref<8x1000x3xf32>, %z: memref<8x1000x3xf32>) {
  linalg.add ins(%x, %y : memref<8x1000x3xf32>, memref<8x1000x3xf32>) outs(%z : memref<8x1000x3xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// One loop: nothing to flatten.
func.func @one_loop(%x: memref<1000003xf32>, %y: memref<1000003xf32>) {
  // expected-note @below {{payload op: func @one_loop / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : memref<1000003xf32>) outs(%y : memref<1000003xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: the op has 1 loop: nothing to flatten}}
    // expected-note @below {{hint: tile it with tile_to_blocks}}
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// A row sum: a reduction loop.
func.func @rowsum(%x: memref<64x4097xf32>, %s: memref<64xf32>) {
  // expected-note @below {{payload op: func @rowsum / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x4097xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_elementwise: the op has reduction loops}}
    // expected-note @below {{hint: flatten takes elementwise ops; tile a reduction with tile_to_blocks and reduce_in_block}}
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// A broadcast of a row statistic: its operand is not indexed by both loops.
func.func @scale_rows(%x: memref<64x4097xf32>, %s: memref<64xf32>, %y: memref<64x4097xf32>) {
  // expected-note @below {{payload op: func @scale_rows / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : memref<64x4097xf32>, memref<64xf32>) outs(%y : memref<64x4097xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_elementwise: operand #1 is indexed by (d0, d1) -> (d0), not by the loops in order (a broadcast or a transpose): one loop cannot index it}}
    // expected-note @below {{hint: tile the op with tile_to_blocks as it is}}
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// The left half of each row: a gap of 64 elements after every row.
func.func @strided(%x: memref<64x128xf32>, %y: memref<64x64xf32>) {
  %v = memref.subview %x[0, 0] [64, 64] [1, 1] : memref<64x128xf32> to memref<64x64xf32, strided<[128, 1]>>
  // expected-note @below {{payload op: func @strided / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<64x64xf32, strided<[128, 1]>>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_contiguous: operand #0 (memref<64x64xf32, strided<[128, 1]>>) is not contiguous: its elements are not consecutive in memory}}
    // expected-note @below {{hint: flatten the op on whole buffers, before any view}}
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// Already tiled to blocks: flatten comes first.
func.func @tiled(%x: memref<64x4097xf32>, %y: memref<64x4097xf32>) {
  // expected-note @below {{payload op: func @tiled / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x4097xf32>) outs(%y : memref<64x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_order: the target is already tiled (inside a forall)}}
    // expected-note @below {{hint: flatten before tile_to_blocks}}
    %f = transform.tirx.flatten %t : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>// On tensors: bufferize first.
func.func @on_tensors(%x: tensor<64x4097xf32>) -> tensor<64x4097xf32> {
  %e = tensor.empty() : tensor<64x4097xf32>
  // expected-note @below {{payload op: func @on_tensors / linalg.generic#0}}
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x4097xf32>) outs(%e : tensor<64x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<64x4097xf32>
  return %r : tensor<64x4097xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on_tensors}}
    // expected-note @below {{hint:}}
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
