// The rewrites themselves: unroll, interchange, remove_barrier.
// RUN: tirx-opt %s -split-input-file --transform-interpreter | FileCheck %s

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
