// bufferize: a front end's tensor payload becomes one on buffers; inputs
// stay inputs (never written in place), results become out-parameters.
// RUN: tirx-opt %s -split-input-file -allow-unregistered-dialect --transform-interpreter -verify-diagnostics | FileCheck %s

// The maps of the folded broadcasts (@bias_add, @bias_transposed below).
// CHECK-DAG: #[[$ROWB:map[0-9]*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$COLB:map[0-9]*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @saxpy
// CHECK-SAME: (%[[X:.+]]: memref<1024xf32>, %[[Y:.+]]: memref<1024xf32>, %[[OUT:.+]]: memref<1024xf32>)
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : memref<1024xf32>, memref<1024xf32>) outs(%[[OUT]] : memref<1024xf32>)
// CHECK: return{{$}}
#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: tensor<1024xf32>, %y: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// A named op writing into an input: the input is a value, so the result
// goes to the out-parameter and the input is only read.
// CHECK-LABEL: func.func @add_into_input
// CHECK-SAME: (%[[A:.+]]: memref<1024xf32>, %[[B:.+]]: memref<1024xf32>, %[[O:.+]]: memref<1024xf32>)
// CHECK: linalg.add ins(%[[A]], %[[B]] : {{.*}}) outs(%[[O]] : memref<1024xf32>)
// CHECK-NOT: memref.copy
func.func @add_into_input(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<1024xf32> {
  %r = linalg.add ins(%a, %b : tensor<1024xf32>, tensor<1024xf32>) outs(%b : tensor<1024xf32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[C:[^:]+]]: memref<64x16xf32>)
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]] : memref<64x16xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<64x32xf32>, memref<32x16xf32>) outs(%[[C]] : memref<64x16xf32>)
func.func @matmul(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>) outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// A broadcast read by a generic as an input is folded into its map: the
// generic reads the bias itself (b[j]), no broadcast copy is made (it was a
// kernel of its own writing the whole 2-D tensor). A broadcast the
// function returns stays: it is a result.
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[BX:[^:]+]]: memref<8x16xf32>, %[[BB:[^:]+]]: memref<16xf32>, %[[BO:[^:]+]]: memref<8x16xf32>)
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$ROWB]], #{{.*}}]
// CHECK-SAME: ins(%[[BX]], %[[BB]] : memref<8x16xf32>, memref<16xf32>) outs(%[[BO]]
// CHECK: return
func.func @bias_add(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Read transposed by its consumer ((i, j) -> (j, i)): the composed map
// reads the bias along the consumer's first dim.
// CHECK-LABEL: func.func @bias_transposed
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$COLB]], #{{.*}}]
func.func @bias_transposed(%x: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<16x8xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e0 : tensor<16x8xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<8x16xf32>, tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A sum over the broadcast rows that no other operand reads: folded, no
// map would bound the rows' loop (linalg's verifier refuses such maps), so
// the broadcast stays.
// CHECK-LABEL: func.func @sum_over_broadcast_rows
// CHECK: linalg.broadcast
// CHECK: linalg.generic
func.func @sum_over_broadcast_rows(%b: tensor<16xf32>) -> tensor<16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) dimensions = [0]
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%bb : tensor<8x16xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.addf %a, %o : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// CHECK-LABEL: func.func @broadcast_returned
// CHECK: linalg.broadcast
func.func @broadcast_returned(%b: tensor<16xf32>) -> tensor<8x16xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e0 : tensor<8x16xf32>) dimensions = [0]
  return %bb : tensor<8x16xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    %b = transform.tirx.bufferize %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// linalg.softmax (an aggregate named op, IREE's input form) is decomposed
// into the ops it stands for before bufferization: a max over the row,
// exp(x - max), their sum, the division; each a linalg op the schedules
// take (tirx auto maps the result). Each intermediate is a buffer of its
// own, as torch-mlir writes a softmax out: the exponentials not in the
// output (upstream's decomposition writes them there and divides in
// place), the max and the sum not in one buffer; so the row block can
// take them (fuse_into) and the softmax is one kernel.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: %[[X:[^:]+]]: memref<64x128xf32>, %[[Y:[^:]+]]: memref<64x128xf32>)
// CHECK-NOT: linalg.softmax
// CHECK-DAG: %[[EX:.+]] = memref.alloc() {{.*}} : memref<64x128xf32>
// CHECK-DAG: %[[MAX:.+]] = memref.alloc() {{.*}} : memref<64xf32>
// CHECK-DAG: %[[SUM:.+]] = memref.alloc() {{.*}} : memref<64xf32>
// CHECK: linalg.fill {{.*}} outs(%[[MAX]]
// CHECK: ins(%[[X]] : {{.*}}) outs(%[[MAX]]
// CHECK: arith.maxnumf
// CHECK: ins(%[[X]], %[[MAX]] : {{.*}}) outs(%[[EX]]
// CHECK: math.exp
// CHECK: linalg.fill {{.*}} outs(%[[SUM]]
// CHECK: ins(%[[EX]] : {{.*}}) outs(%[[SUM]]
// CHECK: arith.addf
// CHECK: ins(%[[EX]], %[[SUM]] : {{.*}}) outs(%[[Y]]
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
func.func @softmax(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["builtin.module"]} in %root : (!transform.any_op) -> !transform.any_op
    %b = transform.tirx.bufferize %m : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}

// -----

// Nothing to bufferize.
// expected-note @below {{payload op:}}
module {
  func.func @on_buffers(%x: memref<4xf32>) {
    return
  }
  module attributes {transform.with_named_sequence} {
    transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
      // expected-error @below {{not_applicable: the payload has no tensors: it is on buffers already}}
      // expected-note @below {{hint: schedule it: tile_to_blocks is the first step}}
      %b = transform.tirx.bufferize %root : (!transform.any_op) -> !transform.any_op
      transform.yield
    }
  }
}

// -----

// An op one-shot bufferization does not know: refused, the payload kept.
// expected-note @below {{payload op:}}
module {
  func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = "test.opaque"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  module attributes {transform.with_named_sequence} {
    transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
      // expected-error @below {{not_bufferizable: the payload does not bufferize: one-shot bufferization failed}}
      // expected-note @below {{hint: rewrite the op named into linalg, tensor, arith or scf ops, or give the payload on buffers}}
      %b = transform.tirx.bufferize %root : (!transform.any_op) -> !transform.any_op
      transform.yield
    }
  }
}

// -----

// expected-note @below {{payload op: func @not_a_module}}
func.func @not_a_module(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_applicable: the target is func.func, not a builtin.module (the payload)}}
    %b = transform.tirx.bufferize %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
