// unroll: an scf.for unrolled by a factor that divides its trip count.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @unroll
// CHECK: scf.for %{{.*}} = %c0 to %c10 step %c2
// CHECK-COUNT-2: memref.load
// CHECK-NOT: memref.load
func.func @unroll(%m: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %c10 step %c1 {
    %v = memref.load %m[%i] : memref<10xf32>
    memref.store %v, %m[%i] : memref<10xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.unroll %l factor = 2 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @loop(%m: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-note @below {{payload op: func @loop / scf.for#0}}
  scf.for %i = %c0 to %c10 step %c1 {
    %v = memref.load %m[%i] : memref<10xf32>
    memref.store %v, %m[%i] : memref<10xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: factor 4 does not divide the trip count 10: a tail would be left}}
    // expected-note @below {{hint: try 1, 2, 5 or 10}}
    transform.tirx.unroll %l factor = 4 : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    // expected-error @below {{invalid_parameter: factor must lie in [2, 64], got 1}}
    transform.tirx.unroll %root factor = 1 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @dynamic(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @below {{payload op: func @dynamic / scf.for#0}}
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%i] : memref<?xf32>
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{unknown_trip_count: the loop's trip count is not static: a tail could remain}}
    transform.tirx.unroll %l factor = 2 : !transform.any_op
    transform.yield
  }
}
