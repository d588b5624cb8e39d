// A seed that reads dense constants (`arith.constant dense<...>` on tensors:
// after bufferization a memref.get_global of a constant memref.global)
// exports: the launch reads the global itself and outlining copies it into
// the kernel's module, whose PTX holds its contents; the loads of a splat
// (dense<0.5>) become the value, and no global is copied. Before, the
// global was a kernel argument and the export refused it ("kernel argument
// #1 ... is computed on the host, not a payload parameter or a constant").
// RUN: rm -rf %t && tirx-opt %s --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none reference=true" -o /dev/null
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: FileCheck %s --input-file=%t/forward_kernel.ptx --check-prefix=SPLAT
// RUN: FileCheck %s --input-file=%t/forward_kernel_0.ptx --check-prefix=BIAS

// x * 0.5 into a scratch buffer, then + bias over the rows into the result:
// the kernels take the payload's buffers, the scratch buffer and scalars.
// CHECK: "kernels": [
// CHECK: "args": [
// CHECK: "param": 0
// CHECK: "type": "f32",
// CHECK-NEXT: "value": 0.5
// CHECK: "scratch": 0
// CHECK: "ptx": "forward_kernel.ptx",
// CHECK: "args": [
// CHECK: "scratch": 0
// CHECK: "param": 1
// CHECK: "ptx": "forward_kernel_0.ptx",
// CHECK: "params": [
// CHECK: "name": "arg0",
// CHECK-NEXT: "role": "in",
// CHECK: "name": "arg1",
// CHECK-NEXT: "role": "out",
// CHECK: "scratch": [
// CHECK-NEXT: {
// CHECK-NEXT: "bytes": 1024,
// CHECK-NEXT: "name": "scratch0",

// SPLAT-NOT: .global .align
// SPLAT: .entry forward_kernel(
// SPLAT-NOT: __constant

// BIAS: .global .align 64 .b8 __constant_4xf32[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};
// BIAS: .entry forward_kernel(

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @forward(%x: tensor<64x4xf32>) -> tensor<64x4xf32> {
  %half = arith.constant dense<0.5> : tensor<64x4xf32>
  %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<64x4xf32>
  %s = linalg.mul ins(%x, %half : tensor<64x4xf32>, tensor<64x4xf32>) outs(%e : tensor<64x4xf32>) -> tensor<64x4xf32>
  %e2 = tensor.empty() : tensor<64x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %bias : tensor<64x4xf32>, tensor<4xf32>) outs(%e2 : tensor<64x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<64x4xf32>
  return %r : tensor<64x4xf32>
}
