// A payload of run-time sizes, bundled: the tensor seed of x + y on
// tensor<?x?xf32> bufferized (the result computed into its out-parameter,
// no copy), its sizes named (tirx.dims: x's, y's and the result's rows are
// one size, s0, the columns s1), mapped as the reference and exported. The
// manifest declares the sizes (bound to parameter 0's dimensions, with a
// default), writes the shapes, the grid and the host-computed kernel
// arguments as expressions of them, and passes the buffers as memref
// descriptors (3 + 2 x 2 values each in the PTX).
// RUN: tirx-opt %s --tirx-map-reference | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && tirx-opt %s --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none reference=true" -o /dev/null
// RUN: FileCheck %s --input-file=%t/manifest.json
// RUN: grep -c "\.param \.u64" %t/forward_kernel.ptx | FileCheck %s --check-prefix=PTX

// IR-LABEL: func.func @forward
//  IR-SAME:   %[[X:.*]]: memref<?x?xf32> {tirx.dims = ["s0", "s1"]}, %{{.*}}: memref<?x?xf32> {tirx.dims = ["s0", "s1"]}, %[[OUT:.*]]: memref<?x?xf32> {tirx.dims = ["s0", "s1"]})
//   IR-NOT:   memref.alloc
//   IR-NOT:   linalg.copy
//       IR:   memref.store %{{.*}}, %[[OUT]]

// CHECK: "args": [
// CHECK-NEXT: {
// CHECK-NEXT:   "type": "i64",
// CHECK-NEXT:   "value": "s0"
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT:   "type": "i64",
// CHECK-NEXT:   "value": "s1"
// CHECK: "descriptor": true,
// CHECK-NEXT: "param": 0
// CHECK: "descriptor": true,
// CHECK-NEXT: "param": 1
// CHECK: "descriptor": true,
// CHECK-NEXT: "param": 2
// CHECK: "grid": [
// CHECK-NEXT: "ceildiv(s1, 256)",
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK: "params": [
// CHECK: "shape": [
// CHECK-NEXT: "s0",
// CHECK-NEXT: "s1"
// CHECK: "sizes": [
// CHECK-NEXT: {
// CHECK-NEXT:   "default": 4096,
// CHECK-NEXT:   "dim": 0,
// CHECK-NEXT:   "max": 2147483648,
// CHECK-NEXT:   "min": 1,
// CHECK-NEXT:   "multiple_of": 1,
// CHECK-NEXT:   "name": "s0",
// CHECK-NEXT:   "param": 0
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT:   "default": 4096,
// CHECK-NEXT:   "dim": 1,
// CHECK:        "name": "s1",
// CHECK-NEXT:   "param": 0

// The two sizes, three descriptors of 7 values and two constants (the
// row loop's bounds): 25 kernel parameters, each 64 bits.
// PTX: 25

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
