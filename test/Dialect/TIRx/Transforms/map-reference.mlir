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

// 2-D: the innermost dimension on x (blocks and threads: coalesced), the
// outer one on the blocks' y.
// CHECK-LABEL: func.func @transpose
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c512, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
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


// -----

// 3-D (a batch matmul's output): the 256-wide tile on threads' x, never on
// z (at most 64 threads there: upstream's greedy mapper gave 1 x 1 x 256, an
// invalid launch); a fourth dimension and a grid dimension over 65535 run
// sequentially.
// CHECK-LABEL: func.func @batch
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}} = %c2048, {{.*}} = %c4) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK-LABEL: func.func @tall
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK: scf.for {{.*}} = %c0 to %c70000 step %c1
#b3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batch(%a: memref<4x2048x2048xf16>, %b: memref<4x2048x2048xf16>) {
  linalg.generic {indexing_maps = [#b3, #b3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<4x2048x2048xf16>) outs(%b : memref<4x2048x2048xf16>) {
  ^bb0(%x: f16, %y: f16):
    linalg.yield %x : f16
  }
  return
}
#t2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @tall(%a: memref<70000x4xf32>, %b: memref<70000x4xf32>) {
  linalg.generic {indexing_maps = [#t2, #t2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<70000x4xf32>) outs(%b : memref<70000x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// The longest sum of the payload is kept for the check's tolerance (the
// bundle's manifest carries it as reduction_length).
// CHECK: module attributes {tirx.reduction_length = 1000 : i64}
// CHECK-LABEL: func.func @rowsum
#r_in = affine_map<(d0, d1) -> (d0, d1)>
#r_out = affine_map<(d0, d1) -> (d0)>
func.func @rowsum(%a: memref<64x1000xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#r_in, #r_out], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x1000xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  }
  return
}
