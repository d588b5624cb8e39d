// interchange: the loops of a linalg.generic permuted.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// CHECK-DAG: #[[$IN:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @interchange
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]]
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @interchange(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
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
    %n = transform.tirx.interchange %g permutation [1, 0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @repeated(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @repeated / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_permutation: the permutation must order all 2 loops exactly once}}
    %n = transform.tirx.interchange %g permutation [0, 0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A named op's loops are reordered in its generic form.
// CHECK-LABEL: func.func @named_matmul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
func.func @named_matmul(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %i = transform.tirx.interchange %g permutation [0, 2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
