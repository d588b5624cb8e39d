// Constants used in a launch are cloned into it, so outlining does not make
// them kernel arguments (a bundle cannot reproduce a host-computed vector).
// RUN: tirx-opt %s --tirx-sink-constants | FileCheck %s
// RUN: tirx-opt %s --tirx-sink-constants --gpu-kernel-outlining | FileCheck %s --check-prefix=OUTLINED

// CHECK-LABEL: func.func @scale
//       CHECK:   gpu.launch
//       CHECK:     arith.constant dense<2.000000e+00> : vector<4xf32>
//       CHECK:     arith.mulf

// OUTLINED: gpu.launch_func @scale_kernel::@scale_kernel {{.*}} args(%{{.*}} : memref<4xf32>)
// OUTLINED-NOT: vector<4xf32>)
func.func @scale(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %two = arith.constant dense<2.0> : vector<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %x[%c0] : memref<4xf32>, vector<4xf32>
    %s = arith.mulf %v, %two : vector<4xf32>
    vector.store %s, %x[%c0] : memref<4xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// A view of a buffer (a front end's reshape) read in a launch is cloned into
// it: the kernel gets the buffer, not a host-computed view.
// CHECK-LABEL: func.func @reshaped
//       CHECK:   gpu.launch
//       CHECK:     memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xf32>
//       CHECK:     memref.load

// OUTLINED: gpu.launch_func @reshaped_kernel::@reshaped_kernel {{.*}} args(%{{.*}} : memref<4x8x16xf32>, %{{.*}} : memref<32xf32>)
func.func @reshaped(%x: memref<4x8x16xf32>, %y: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %rows = memref.collapse_shape %x [[0, 1], [2]] : memref<4x8x16xf32> into memref<32x16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %rows[%bx, %c0] : memref<32x16xf32>
    memref.store %v, %y[%bx] : memref<32xf32>
    gpu.terminator
  }
  return
}
