// peel: the partial last iteration of an scf.for split off.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @peel
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: scf.for %{{.*}} = %c8 to %c10 step %c4
func.func @peel(%m: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c4 {
    %v = memref.load %m[%i] : memref<10xf32>
    memref.store %v, %m[%i] : memref<10xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    %a, %b = transform.tirx.peel %l : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

func.func @nothing(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // expected-note @below {{payload op: func @nothing / scf.for#0}}
  scf.for %i = %c0 to %c8 step %c4 {
    %v = memref.load %m[%i] : memref<8xf32>
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{nothing_to_peel: the step divides the loop's range: no partial iteration}}
    %a, %b = transform.tirx.peel %l : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
