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

// A view of a buffer the function allocates (tensor.pad writes the input
// through a subview of its result) is cloned too: the kernel gets the
// allocation (the bundle's scratch buffer), not a host-computed view.
// CHECK-LABEL: func.func @padded
//       CHECK:   %[[A:.+]] = memref.alloc() : memref<4x4xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.subview %[[A]][1, 0] [3, 4] [1, 1] : memref<4x4xf32> to memref<3x4xf32, strided<[4, 1], offset: 4>>
//       CHECK:     memref.store

// OUTLINED: gpu.launch_func @padded_kernel::@padded_kernel {{.*}} args(%{{.*}} : memref<4x4xf32>, %{{.*}} : memref<3x4xf32>)
func.func @padded(%x: memref<3x4xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4x4xf32>
  %view = memref.subview %a[1, 0] [3, 4] [1, 1] : memref<4x4xf32> to memref<3x4xf32, strided<[4, 1], offset: 4>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx, %tx] : memref<3x4xf32>
    memref.store %v, %view[%bx, %tx] : memref<3x4xf32, strided<[4, 1], offset: 4>>
    gpu.terminator
  }
  return
}

// A dense constant (bufferized: a constant global) is read inside the
// launch, and outlining copies the global into the kernel's module: the
// kernel takes only the payload's buffer.
// CHECK-LABEL: func.func @biased
//       CHECK:   gpu.launch
//       CHECK:     %[[B:.+]] = memref.get_global @bias : memref<4xf32>
//       CHECK:     memref.load %[[B]]

// OUTLINED: gpu.launch_func @biased_kernel::@biased_kernel {{.*}} args(%{{.*}} : memref<4xf32>){{$}}
// OUTLINED-LABEL: gpu.module @biased_kernel
//       OUTLINED: memref.get_global @bias
//       OUTLINED: memref.global "private" constant @bias : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
memref.global "private" constant @bias : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @biased(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = memref.get_global @bias : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<4xf32>
    %w = memref.load %b[%tx] : memref<4xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %x[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// A constant of one repeated value (dense<0.5>): its loads, scalar and
// vector, become the value, and no global is copied into the kernel's
// module (a 1024 x 1024 one spelled out in the PTX is 13 MB).
// CHECK-LABEL: func.func @halved
//       CHECK:   gpu.launch
//   CHECK-NOT:     memref.get_global
//       CHECK:     arith.constant dense<5.000000e-01> : vector<4xf32>
//   CHECK-NOT:     memref.get_global
//       CHECK:     arith.constant 5.000000e-01 : f32
//   CHECK-NOT:     memref.get_global
//       CHECK:     gpu.terminator

// OUTLINED: gpu.launch_func @halved_kernel::@halved_kernel {{.*}} args(%{{.*}} : memref<8xf32>){{$}}
// OUTLINED-LABEL: gpu.module @halved_kernel
//   OUTLINED-NOT: memref.global
memref.global "private" constant @half : memref<8xf32> = dense<0.5>
func.func @halved(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %h = memref.get_global @half : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = vector.load %x[%c0] : memref<8xf32>, vector<4xf32>
    %hv = vector.load %h[%c0] : memref<8xf32>, vector<4xf32>
    %p = arith.mulf %v, %hv : vector<4xf32>
    vector.store %p, %x[%c0] : memref<8xf32>, vector<4xf32>
    %e = memref.load %x[%tx] : memref<8xf32>
    %he = memref.load %h[%tx] : memref<8xf32>
    %q = arith.addf %e, %he : f32
    memref.store %q, %x[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}
