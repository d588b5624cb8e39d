// A function that returns one tensor twice (`return %r, %r`): the second
// result becomes an out-parameter of its own, filled by a copy of the
// first. Before, upstream's buffer-results-to-out-params replaced the
// returned allocation by the first out-parameter, erased it, and read it
// again for the second: tirx-bufferize and tirx-map-reference died of a
// segmentation fault.
// RUN: tirx-opt %s --tirx-bufferize | FileCheck %s
// RUN: rm -rf %t && tirx-opt %s --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none reference=true" -o /dev/null
// RUN: FileCheck %s --input-file=%t/manifest.json --check-prefix=MANIFEST

// CHECK-LABEL: func.func @forward
//  CHECK-SAME: (%[[X:.+]]: memref<1024xf32>, %[[R0:.+]]: memref<1024xf32>, %[[R1:.+]]: memref<1024xf32>)
//   CHECK-NOT: memref.alloc
//       CHECK: linalg.exp ins(%[[X]] : memref<1024xf32>) outs(%[[R0]] : memref<1024xf32>)
//  CHECK-NEXT: linalg.copy ins(%[[R0]] : memref<1024xf32>) outs(%[[R1]] : memref<1024xf32>)
//  CHECK-NEXT: return{{$}}

// exp, then the copy: the first result is written, then read back by the
// copy (inout); the second is written only.
// MANIFEST: "kernels": [
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "param": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "param": 1
// MANIFEST: "args": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "param": 1
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "param": 2
// MANIFEST: "params": [
// MANIFEST: "name": "arg0",
// MANIFEST-NEXT: "role": "in",
// MANIFEST: "name": "arg1",
// MANIFEST-NEXT: "role": "inout",
// MANIFEST: "name": "arg2",
// MANIFEST-NEXT: "role": "out",

func.func @forward(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.exp ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  return %r, %r : tensor<1024xf32>, tensor<1024xf32>
}
