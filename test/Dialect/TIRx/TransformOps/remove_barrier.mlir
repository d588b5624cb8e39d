// remove_barrier: a gpu.barrier removed where no shared memory needs it.
// Each refusal: its code, its message, the payload op, a hint; parameters
// are checked by the verifier before anything runs.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// A barrier in a kernel without shared memory goes.
// CHECK-LABEL: func.func @no_shared
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.terminator
func.func @no_shared(%m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.load %m[%tx] : memref<256xf32>
    gpu.barrier
    memref.store %v, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %b = transform.structured.match ops{["gpu.barrier"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.remove_barrier %b : !transform.any_op
    transform.yield
  }
}

// -----

func.func @shared(%m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%tx] : memref<256xf32>
    memref.store %v, %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    // expected-note @below {{payload op: func @shared / gpu.launch#0 / gpu.barrier#0}}
    gpu.barrier
    %w = memref.load %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %b = transform.structured.match ops{["gpu.barrier"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{barrier_needed: the kernel uses shared memory (func @shared / gpu.launch#0 / memref.alloc#0): the barrier may order its accesses}}
    transform.tirx.remove_barrier %b : !transform.any_op
    transform.yield
  }
}
