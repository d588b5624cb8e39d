// split_reduction: a reduction becomes partial reductions along a new
// parallel loop, into a buffer filled with the combiner's neutral element,
// and a combine into the output.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// Interleaved (the default): part r of row i sums x[i, kk * 4 + r]; the
// input is viewed as 8x16x4, (row, kk, r).
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[$PART:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @rowsum
//  CHECK-SAME:   (%[[X:.*]]: memref<8x64xf32>, %[[S:.*]]: memref<8xf32>)
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<8x4xf32>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   linalg.fill ins(%[[ZERO]] : f32) outs(%[[P]] : memref<8x4xf32>)
//       CHECK:   %[[V:.*]] = memref.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [8, 16, 4] : memref<8x64xf32> into memref<8x16x4xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #[[$PART]]], iterator_types = ["parallel", "parallel", "reduction"]}
//  CHECK-SAME:     ins(%[[V]] : memref<8x16x4xf32>) outs(%[[P]] : memref<8x4xf32>)
//       CHECK:     arith.addf
//       CHECK:   linalg.generic {indexing_maps = [#[[$ALL]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
//  CHECK-SAME:     ins(%[[P]] : memref<8x4xf32>) outs(%[[S]] : memref<8xf32>)
//       CHECK:     arith.addf
//       CHECK:   memref.dealloc %[[P]] : memref<8x4xf32>
//  CHECK-NEXT:   return
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (i)>
func.func @rowsum(%x: memref<8x64xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Chunked: part r reduces the contiguous x[r * 16, (r + 1) * 16); a full
// reduction (rank-0 output) by max starts each part from -inf.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$PART:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$NONE:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @max_all
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<4xf32>
//       CHECK:   %[[NEG:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   linalg.fill ins(%[[NEG]] : f32) outs(%[[P]] : memref<4xf32>)
//       CHECK:   memref.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 16] : memref<64xf32> into memref<4x16xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #[[$PART]]], iterator_types = ["parallel", "reduction"]}
//       CHECK:     arith.maximumf
//       CHECK:   linalg.generic {indexing_maps = [#[[$ALL]], #[[$NONE]]], iterator_types = ["reduction"]}
//       CHECK:     arith.maximumf
func.func @max_all(%x: memref<64xf32>, %m: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<64xf32>) outs(%m : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 {chunked} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A column reduction (the reduction loop first: s[j] = sum_i x[i, j]),
// chunked, the parts first: part r sums rows [r * 16, (r + 1) * 16) of each
// column into partial[r, j] (a thread per column writes beside its
// neighbours), and the combine reduces the 4 rows of partials, itself a
// column reduction.
// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$PART:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @colsum
//  CHECK-SAME:   (%[[X:.*]]: memref<64x32xf32>, %[[S:.*]]: memref<32xf32>)
//       CHECK:   %[[P:.*]] = memref.alloc() : memref<4x32xf32>
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<4x32xf32>)
//       CHECK:   %[[V:.*]] = memref.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [4, 16, 32] : memref<64x32xf32> into memref<4x16x32xf32>
//       CHECK:   linalg.generic {indexing_maps = [#[[$IN]], #[[$PART]]], iterator_types = ["parallel", "reduction", "parallel"]}
//  CHECK-SAME:     ins(%[[V]] : memref<4x16x32xf32>) outs(%[[P]] : memref<4x32xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[$ALL]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
//  CHECK-SAME:     ins(%[[P]] : memref<4x32xf32>) outs(%[[S]] : memref<32xf32>)
//       CHECK:     arith.addf
//       CHECK:   memref.dealloc %[[P]] : memref<4x32xf32>
func.func @colsum(%x: memref<64x32xf32>, %s: memref<32xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x32xf32>) outs(%s : memref<32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 {chunked, parts_first} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Parts first on a row max (the reduction last): partial[r, i]; the
// combine's reduction loop comes first.
// CHECK-LABEL: func.func @rowmax_parts_first
//       CHECK:   memref.alloc() : memref<4x8xf32>
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
//  CHECK-SAME:     outs(%{{.*}} : memref<4x8xf32>)
//       CHECK:   linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
//  CHECK-SAME:     ins(%{{.*}} : memref<4x8xf32>) outs(%{{.*}} : memref<8xf32>)
//       CHECK:     arith.maximumf
func.func @rowmax_parts_first(%x: memref<8x64xf32>, %m: memref<8xf32>) {
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%m : memref<8xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.maximumf %a, %b : f32
      linalg.yield %r : f32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 {parts_first} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: 5 parts do not divide 64.
func.func @indivisible(%x: memref<8x64xf32>, %s: memref<8xf32>) {
  // expected-note @below {{payload op: func @indivisible / linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: 5 parts do not divide the reduction's extent 64}}
    // expected-note @below {{hint: try 1, 2, 4, 8, 16 or 32}}
    %f, %s, %c = transform.tirx.split_reduction %g parts = 5 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: nothing to split.
func.func @elementwise(%x: memref<64xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%x : memref<64xf32>) {
  ^bb0(%a: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_reduction: the op has no reduction loop}}
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: two reduction loops (a matmul-like sum over j and k).
func.func @two(%x: memref<8x8x8xf32>, %s: memref<8xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : memref<8x8x8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{several_reductions: the op has 2 reduction loops; split_reduction takes one}}
    // expected-note @below {{hint:}}
    %f, %s, %c = transform.tirx.split_reduction %g parts = 2 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: the body is not one combiner (a running average).
func.func @average(%x: memref<8x64xf32>, %s: memref<8xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %half = arith.constant 0.5 : f32
    %sum = arith.addf %acc, %a : f32
    %r = arith.mulf %sum, %half : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{unknown_combiner: the body does not combine into the output with one of add, mul, max, min, and, or, xor}}
    // expected-note @below {{hint:}}
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: already tiled over blocks.
func.func @tiled(%x: memref<64x64xf32>, %s: memref<64xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_order: the target is already tiled or inside a kernel}}
    // expected-note @below {{hint: split the reduction first, then tile each part}}
    %f, %s, %c = transform.tirx.split_reduction %t parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Refused: the reduction loop indexes an input through an expression (a
// sliding window): no view splits it.
func.func @window(%x: memref<72xf32>, %w: memref<64xf32>, %s: memref<8xf32>) {
  // expected-note @below {{linalg.generic#0}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i + j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<72xf32>, memref<64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: input 0 is indexed by an expression of the reduction loop, not the loop itself}}
    %f, %s, %c = transform.tirx.split_reduction %g parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Named ops too: a matmul splits K (both A and B are viewed with K split,
// the partial C gets a dimension of parts: split-K), and linalg.reduce with
// a signed max starts each part from the smallest i32.
// CHECK-LABEL: func.func @split_k
//       CHECK:   memref.alloc() : memref<64x64x4xf32>
//       CHECK:   memref.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 64, 4] : memref<64x256xf32> into memref<64x64x4xf32>
//       CHECK:   memref.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [64, 4, 64] : memref<256x64xf32> into memref<64x4x64xf32>
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
// CHECK-LABEL: func.func @max_rows
//       CHECK:   %[[MIN:.*]] = arith.constant -2147483648 : i32
//       CHECK:   linalg.fill ins(%[[MIN]] : i32) outs(%{{.*}} : memref<16x4xi32>)
//       CHECK:   arith.maxsi
//       CHECK:   arith.maxsi
func.func @split_k(%A: memref<64x256xf32>, %B: memref<256x64xf32>, %C: memref<64x64xf32>) {
  linalg.matmul ins(%A, %B : memref<64x256xf32>, memref<256x64xf32>) outs(%C : memref<64x64xf32>)
  return
}
func.func @max_rows(%x: memref<16x64xi32>, %s: memref<16xi32>) {
  linalg.reduce ins(%x : memref<16x64xi32>) outs(%s : memref<16xi32>) dimensions = [1]
    (%a: i32, %b: i32) {
      %m = arith.maxsi %a, %b : i32
      linalg.yield %m : i32
    }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul", "linalg.reduce"]} in %root : (!transform.any_op) -> !transform.any_op
    %f, %s, %c = transform.tirx.split_reduction %m parts = 4 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: parts must lie in [2, 65536], got 1}}
    %f, %s, %c = transform.tirx.split_reduction %root parts = 1 : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
