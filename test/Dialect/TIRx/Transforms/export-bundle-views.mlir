// Views of the buffers the function allocates exports: tensor.pad writes
// the input through a subview of its padded buffer, and the result is a
// collapse_shape of an intermediate. Each kernel makes the view itself
// and takes the allocation, a scratch buffer of the bundle (before: the
// view was a kernel argument, refused as "kernel argument #2 ... is
// computed on the host, not a payload parameter or a constant").
// RUN: tirx-opt %s --tirx-map-reference | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && tirx-opt %s --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none reference=true" -o /dev/null
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: FileCheck %s --input-file=%t/forward_kernel_0.ptx --check-prefix=PTX

// IR-LABEL: func.func @forward
//       IR:   %[[PAD:.+]] = memref.alloc() {{.*}} : memref<32x32xf32>
//       IR:   gpu.launch
//       IR:   gpu.launch
//  IR-NEXT:     memref.subview %[[PAD]][1, 0] [30, 32] [1, 1]
//       IR:   %[[ABS:.+]] = memref.alloc() {{.*}} : memref<32x32xf32>
//       IR:   gpu.launch
//       IR:   gpu.launch
//  IR-NEXT:     memref.collapse_shape %[[ABS]] {{\[\[}}0, 1]] : memref<32x32xf32> into memref<1024xf32>

// The zero fill, the copy of x into rows 1..30, abs, the copy out.
// CHECK: "kernels": [
// CHECK: "args": [
// CHECK: "scratch": 0
// CHECK: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "scratch": 0
// CHECK: "param": 0
// CHECK: "args": [
// CHECK: "scratch": 0
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "scratch": 1
// CHECK: "args": [
// CHECK-NEXT: {
// CHECK-NEXT: "scratch": 1
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "param": 1
// CHECK: "params": [
// CHECK: "name": "arg0",
// CHECK-NEXT: "role": "in",
// CHECK: "name": "arg1",
// CHECK-NEXT: "role": "out",
// CHECK: "scratch": [
// CHECK-NEXT: {
// CHECK-NEXT: "bytes": 4096,
// CHECK-NEXT: "name": "scratch0",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: 32,
// CHECK-NEXT: 32
// CHECK: "bytes": 4096,
// CHECK-NEXT: "name": "scratch1",

// The copy into the subview stores at the padded buffer's row 1: 32
// elements, 128 bytes past the element the indices give.
// PTX: .entry forward_kernel(
// PTX: st.global.b32 [%rd{{[0-9]+}}+128]

func.func @forward(%x: tensor<30x32xf32>) -> tensor<1024xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<30x32xf32> to tensor<32x32xf32>
  %e = tensor.empty() : tensor<32x32xf32>
  %r = linalg.abs ins(%p : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = tensor.collapse_shape %r [[0, 1]] : tensor<32x32xf32> into tensor<1024xf32>
  return %c : tensor<1024xf32>
}
