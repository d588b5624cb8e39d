// transpose_operand: a matmul input copied into a buffer the function
// allocates with its dimensions swapped (linalg.transpose), the matmul
// reading the copy through the swapped map: the same product. B of A @ B
// becomes (n, k), K-major, as tf32 wgmma needs. Each refusal: its code, its
// message, the payload op.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s --check-prefix=MAPS

// The first split's maps: B's copy read as (n, k).
// MAPS: affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @matmul
//  CHECK-SAME: (%[[AA:.*]]: memref<256x128xf32>, %[[B:.*]]: memref<128x512xf32>, %[[CC:.*]]: memref<256x512xf32>)
//       CHECK:   %[[COPY:.*]] = memref.alloc() : memref<512x128xf32>
//       CHECK:   linalg.transpose ins(%[[B]] : memref<128x512xf32>) outs(%[[COPY]] : memref<512x128xf32>) permutation = [1, 0]
//       CHECK:   scf.forall
//       CHECK:     %[[BT:.*]] = memref.subview %[[COPY]][%{{.*}}, 0] [256, 128] [1, 1] : memref<512x128xf32>
//       CHECK:     linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%{{.*}}, %[[BT]] : memref<128x128xf32, {{.*}}>, memref<256x128xf32, {{.*}}>)
//       CHECK:   memref.dealloc %[[COPY]] : memref<512x128xf32>
func.func @matmul(%a: memref<256x128xf32>, %b: memref<128x512xf32>, %c: memref<256x512xf32>) {
  linalg.matmul ins(%a, %b : memref<256x128xf32>, memref<128x512xf32>)
                outs(%c : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    // The handle is the matmul: tiled next.
    %tiled, %blocks = transform.tirx.tile_to_blocks %t tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A transposed A (read as (k, m)) stored the other way: read as (m, k).
// CHECK-LABEL: func.func @matmul_ta
//       CHECK:   %[[COPY:.*]] = memref.alloc() : memref<256x128xf32>
//       CHECK:   linalg.transpose ins(%{{.*}} : memref<128x256xf32>) outs(%[[COPY]] : memref<256x128xf32>) permutation = [1, 0]
// The default maps again (printed without indexing_maps).
//       CHECK:   linalg.matmul ins(%[[COPY]], %{{.*}} : memref<256x128xf32>, memref<128x512xf32>)
func.func @matmul_ta(%a: memref<128x256xf32>, %b: memref<128x512xf32>, %c: memref<256x512xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%a, %b : memref<128x256xf32>, memref<128x512xf32>)
                outs(%c : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t = transform.tirx.transpose_operand %m operand = 0 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @on_tensors(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-note @below {{payload op: func @on_tensors / linalg.matmul#0}}
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{on_tensors}}
    // expected-note @below {{hint:}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @dynamic(%a: memref<?x64xf32>, %b: memref<64x?xf32>, %c: memref<?x?xf32>) {
  // expected-note @below {{payload op: func @dynamic / linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x?xf32>)
                outs(%c : memref<?x?xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{dynamic_shape: B (operand 1) has a size known only at run time: the copy needs static sizes}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @written(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @written / linalg.matmul#0}}
  linalg.matmul ins(%a, %c : memref<64x64xf32>, memref<64x64xf32>)
                outs(%c : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{input_written: B (operand 1) is also the matmul's output (or a view of the same buffer)}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// B a view of C's buffer: a copy taken before the matmul would read C as
// it stood before.
func.func @written_view(%a: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %b = memref.subview %c[0, 0] [64, 64] [1, 1] : memref<64x64xf32> to memref<64x64xf32, strided<[64, 1]>>
  // expected-note @below {{payload op: func @written_view / linalg.matmul#0}}
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32, strided<[64, 1]>>)
                outs(%c : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{input_written: B (operand 1) is also the matmul's output (or a view of the same buffer)}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A matmul in a loop of the host: the copy would be made in the loop, not
// as a buffer of the function's body.
func.func @in_loop(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    // expected-note @below {{payload op: func @in_loop / scf.for#0 / linalg.matmul#0}}
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>)
                  outs(%c : memref<64x64xf32>)
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the matmul is inside a loop or a branch: the copy must be made in the function's body}}
    // expected-note @below {{hint: transpose_operand on a matmul of the function's body}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// A strided view of a buffer (every other column) is copied as it is read.
// CHECK-LABEL: func.func @strided_b
//       CHECK:   %[[COPY:.*]] = memref.alloc() : memref<64x64xf32>
//       CHECK:   linalg.transpose ins(%{{.*}} : memref<64x64xf32, strided<[128, 2]>>) outs(%[[COPY]] : memref<64x64xf32>) permutation = [1, 0]
func.func @strided_b(%a: memref<64x64xf32>, %wide: memref<64x128xf32>, %c: memref<64x64xf32>) {
  %b = memref.subview %wide[0, 0] [64, 64] [1, 2] : memref<64x128xf32> to memref<64x64xf32, strided<[128, 2]>>
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32, strided<[128, 2]>>)
                outs(%c : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

func.func @tiled(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  scf.forall (%i) in (2) {
    %ai = memref.subview %a[%i, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %ci = memref.subview %c[%i, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    // expected-note @below {{payload op: func @tiled / scf.forall#0 / linalg.matmul#0}}
    linalg.matmul ins(%ai, %b : memref<32x64xf32, strided<[64, 1], offset: ?>>, memref<64x64xf32>)
                  outs(%ci : memref<32x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: the matmul is already tiled (inside a forall)}}
    // expected-note @below {{hint: transpose_operand before tile_to_blocks}}
    %t = transform.tirx.transpose_operand %m operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_matmul(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @not_matmul / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x64xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{the target is linalg.generic, not a linalg.matmul}}
    %t = transform.tirx.transpose_operand %g operand = 1 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{invalid_parameter: operand must be 0 (A) or 1 (B), got 2}}
    %t = transform.tirx.transpose_operand %m operand = 2 : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
