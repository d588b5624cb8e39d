// The reference mapping: one element per thread, 256 threads per block along
// the innermost dimension, bounds checks where the extent does not divide.
// RUN: tirx-opt %s -split-input-file --tirx-map-reference | FileCheck %s
// RUN: tirx-opt %s -split-input-file --tirx-map-reference="block-size=64" | FileCheck %s --check-prefix=B64
// RUN: not tirx-opt %s -split-input-file --tirx-map-reference="block-size=2048" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tirx-map-reference: block-size must be 1 to 1024, got 2048

// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[C4]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C256]],
// CHECK: scf.if
// CHECK: memref.load
// CHECK: arith.addf
// CHECK: memref.store
// B64: gpu.launch blocks({{.*}}) in ({{.*}} = %c16, {{.*}}) threads({{.*}}) in ({{.*}} = %c64,
#id = affine_map<(d0) -> (d0)>
func.func @add(%a: memref<1000xf32>, %b: memref<1000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<1000xf32>) outs(%b : memref<1000xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 2-D: both dimensions of the outer nest to blocks (x, y), the 256-wide tile
// of the inner dimension to threads (y, after the unit x).
// CHECK-LABEL: func.func @transpose
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c512, {{.*}} = %c2, {{.*}}) threads({{.*}}) in ({{.*}} = %c1, {{.*}} = %c256,
// CHECK: memref.load %{{.*}} : memref<512x512xf32>
// CHECK: memref.store %{{.*}} : memref<512x512xf32>
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose(%a: memref<512x512xf32>, %b: memref<512x512xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<512x512xf32>) outs(%b : memref<512x512xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

