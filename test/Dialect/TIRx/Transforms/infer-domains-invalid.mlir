// A malformed tirx.domain is refused, naming the argument.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-infer-domains

// expected-error @below {{argument #1 (ss) of @f: its tirx.domain is "positive"; expected "signed_unit" or "nonnegative"}}
func.func @f(%x: tensor<4xf32>, %ss: tensor<4xf32> {tirx.domain = "positive", tirx.name = "ss"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 (arg0) of @f: its tirx.domain is 1 : i64; expected "signed_unit" or "nonnegative"}}
func.func @f(%x: tensor<4xf32> {tirx.domain = 1}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{argument #1 (arg1) of @f: tirx.domain is for buffers (a tensor or memref of floats); this argument is the scalar 'f32'}}
func.func @f(%x: tensor<4xf32>, %s: f32 {tirx.domain = "nonnegative"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @below {{argument #0 (arg0) of @f: tirx.domain is for buffers of floats; this argument is 'memref<4xi32>'}}
func.func @f(%m: memref<4xi32> {tirx.domain = "signed_unit"}) {
  return
}
