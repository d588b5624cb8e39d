// tirx-infer-domains marks the float inputs whose negative elements would
// reach a square root, a logarithm or a fractional power through
// sign-preserving ops only, and nothing else.
// RUN: tirx-opt %s -split-input-file --tirx-infer-domains | FileCheck %s
// Idempotent: a second run changes nothing.
// RUN: tirx-opt %s -split-input-file --tirx-infer-domains | tirx-opt -split-input-file --tirx-infer-domains | FileCheck %s

#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>

// The RMSNorm's normalize step of examples/transformer-block.mlir as a
// kernel of its own (tirx profile's k02): its sum of squares is an input.
// CHECK-LABEL: func.func @rms_normalize
// CHECK-SAME: (%{{.*}}: tensor<16x64xf32>, %{{.*}}: tensor<16xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32>)
func.func @rms_normalize(%x: tensor<16x64xf32>, %ss: tensor<16xf32>, %g: tensor<64xf32>) -> tensor<16x64xf32> {
  %inv_d = arith.constant 1.5625e-02 : f32
  %eps = arith.constant 1.0e-06 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %g : tensor<16x64xf32>, tensor<16xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %mean = arith.mulf %s, %inv_d : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %n0 = arith.mulf %a, %inv : f32
    %y = arith.mulf %n0, %w : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  return %n : tensor<16x64xf32>
}

// -----

// The whole RMSNorm: x reaches rsqrt only squared, nothing to mark.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @rms_whole
// CHECK-NOT: tirx.domain
// CHECK: return
func.func @rms_whole(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-06 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16x64xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : tensor<16x64xf32>, tensor<16xf32>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.addf %s, %eps : f32
    %inv = math.rsqrt %m : f32
    %y = arith.mulf %a, %inv : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  return %n : tensor<16x64xf32>
}

// -----

// A layer norm's variance, split off its mean and centred squares, through
// a reciprocal square root; the mean itself reaches it only subtracted.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @layer_norm_apply
// CHECK-SAME: (%{{.*}}: tensor<16x64xf32>, %{{.*}}: tensor<16xf32>, %{{.*}}: tensor<16xf32> {tirx.domain = "nonnegative"})
func.func @layer_norm_apply(%x: tensor<16x64xf32>, %mean: tensor<16xf32>, %var: tensor<16xf32>) -> tensor<16x64xf32> {
  %eps = arith.constant 1.0e-05 : f32
  %e = tensor.empty() : tensor<16x64xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %var : tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %mu: f32, %v: f32, %o: f32):
    %d = arith.subf %a, %mu : f32
    %m = arith.addf %v, %eps : f32
    %s = math.sqrt %m : f32
    %y = arith.divf %d, %s : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  return %n : tensor<16x64xf32>
}

// -----

// Log-softmax: the log of a sum of exps needs nothing; a log of the input
// itself marks it. A reduction's sum is nonnegative when its init and
// every term are (the accumulator by induction).
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#v = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @log_sum_exp
// CHECK-SAME: (%{{.*}}: tensor<16x64xf32>, %{{.*}}: tensor<16x64xf32> {tirx.domain = "nonnegative"})
func.func @log_sum_exp(%x: tensor<16x64xf32>, %p: tensor<16x64xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %se = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %ex = math.exp %a : f32
    %sum = arith.addf %acc, %ex : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %sp = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<16x64xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %acc, %a : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %l = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%se, %sp : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %la = math.log %a : f32
    %lb = math.log %b : f32
    %y = arith.addf %la, %lb : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %l, %sp : tensor<16xf32>, tensor<16xf32>
}

// -----

// A sum whose init may be negative proves nothing.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @sum_from_minus_one
// CHECK-NOT: tirx.domain
// CHECK: return
func.func @sum_from_minus_one(%p: tensor<16x64xf32>) -> tensor<16xf32> {
  %m1 = arith.constant -1.0 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%m1 : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %sp = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<16x64xf32>) outs(%z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %acc, %a : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %l = linalg.log ins(%sp : tensor<16xf32>) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  return %l : tensor<16xf32>
}

// -----

// Negative cases: through subf, a negative factor, an unknown factor, a
// negative offset, a scalar argument (no domain for scalars): nothing
// marked.
#x = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @not_sign_preserving
// CHECK-NOT: tirx.domain
// CHECK: return
func.func @not_sign_preserving(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>,
                               %u: tensor<64xf32>, %d: tensor<64xf32>, %w: tensor<64xf32>,
                               %s: f32) -> tensor<64xf32> {
  %m1 = arith.constant -1.0 : f32
  %neg = arith.constant -2.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#x, #x, #x, #x, #x, #x, #x], iterator_types = ["parallel"]}
      ins(%a, %b, %c, %u, %d, %w : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%va: f32, %vb: f32, %vc: f32, %vu: f32, %vd: f32, %vw: f32, %o: f32):
    %sub = arith.subf %va, %one : f32
    %r0 = math.rsqrt %sub : f32
    %mul = arith.mulf %vb, %neg : f32
    %r1 = math.sqrt %mul : f32
    %prod = arith.mulf %vc, %vu : f32
    %r2 = math.log %prod : f32
    %sum = arith.addf %vd, %m1 : f32
    %r3w = math.log2 %sum : f32
    %r3 = arith.addf %r3w, %vw : f32
    %sc = arith.mulf %s, %one : f32
    %r4 = math.sqrt %sc : f32
    %t0 = arith.addf %r0, %r1 : f32
    %t1 = arith.addf %r2, %r3 : f32
    %t2 = arith.addf %t0, %t1 : f32
    %t3 = arith.addf %t2, %r4 : f32
    linalg.yield %t3 : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A user's own attribute is kept: signed_unit stops the inference, and
// nonnegative counts as proven (the other factor is then marked).
#x = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @user_attributes
// CHECK-SAME: (%{{.*}}: tensor<64xf32> {tirx.domain = "signed_unit"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"})
func.func @user_attributes(%a: tensor<64xf32> {tirx.domain = "signed_unit"},
                           %w: tensor<64xf32> {tirx.domain = "nonnegative"},
                           %b: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [#x, #x, #x, #x], iterator_types = ["parallel"]}
      ins(%a, %w, %b : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%va: f32, %vw: f32, %vb: f32, %o: f32):
    %r0 = math.sqrt %va : f32
    %p = arith.mulf %vb, %vw : f32
    %r1 = math.sqrt %p : f32
    %y = arith.addf %r0, %r1 : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// Named ops, views and tensor-level math: linalg.sqrt of a collapsed
// input, math.log of a splat-scaled tensor, linalg.reciprocal (1 / x)
// under a square root, a fractional power's base (an integral exponent
// needs nothing), and a ReLU (maximumf with 0) needs nothing.
// CHECK-LABEL: func.func @named_and_views
// CHECK-SAME: (%{{.*}}: tensor<4x16xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32>, %{{.*}}: tensor<64xf32>)
func.func @named_and_views(%a: tensor<4x16xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>,
                           %d: tensor<64xf32>, %f: tensor<64xf32>, %h: tensor<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %flat = tensor.collapse_shape %a [[0, 1]] : tensor<4x16xf32> into tensor<64xf32>
  %ra = linalg.sqrt ins(%flat : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %half = arith.constant dense<0.5> : tensor<64xf32>
  %bs = arith.mulf %b, %half : tensor<64xf32>
  %rb = math.log %bs : tensor<64xf32>
  %rc0 = linalg.reciprocal ins(%c : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %rc = linalg.sqrt ins(%rc0 : tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %p = arith.constant dense<1.5> : tensor<64xf32>
  %rd = math.powf %d, %p : tensor<64xf32>
  %two = arith.constant dense<2.0> : tensor<64xf32>
  %rf = math.powf %f, %two : tensor<64xf32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %relu = arith.maximumf %h, %zero : tensor<64xf32>
  %rh = math.sqrt %relu : tensor<64xf32>
  return %ra, %rb, %rc, %rd, %rf, %rh : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Buffers: a memref input is marked (through a subview); one the function
// writes before it reads it is not (what it reads is not what was drawn).
#x = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%{{.*}}: memref<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: memref<32xf32>, %{{.*}}: memref<32xf32>)
func.func @buffers(%a: memref<64xf32>, %b: memref<32xf32>, %o: memref<32xf32>) {
  %v = memref.subview %a[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel"]}
      ins(%v : memref<32xf32, strided<[1]>>) outs(%o : memref<32xf32>) {
  ^bb0(%va: f32, %vo: f32):
    %r = math.sqrt %va : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel"]}
      ins(%o : memref<32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%vo: f32, %vb: f32):
    %r = math.sqrt %vo : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A sum is nonnegative when both terms are: both inputs marked.
// CHECK-LABEL: func.func @sum_of_inputs
// CHECK-SAME: (%{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<64xf32> {tirx.domain = "nonnegative"})
func.func @sum_of_inputs(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %s = arith.addf %a, %b : tensor<64xf32>
  %r = math.log10 %s : tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A constant that is not a splat: nonnegative when every element is.
// CHECK-LABEL: func.func @dense_factors
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {tirx.domain = "nonnegative"}, %{{.*}}: tensor<4xf32>)
func.func @dense_factors(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %w = arith.constant dense<[1.0, 0.5, 0.0, 2.0]> : tensor<4xf32>
  %v = arith.constant dense<[1.0, -0.5, 0.0, 2.0]> : tensor<4xf32>
  %pa = arith.mulf %a, %w : tensor<4xf32>
  %ra = math.sqrt %pa : tensor<4xf32>
  %pb = arith.mulf %b, %v : tensor<4xf32>
  %rb = math.sqrt %pb : tensor<4xf32>
  return %ra, %rb : tensor<4xf32>, tensor<4xf32>
}
