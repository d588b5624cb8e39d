// An already mapped payload is not a seed: the reference must not share a
// schedule with the candidates.
// RUN: tirx-opt %s --tirx-map-reference -verify-diagnostics

// expected-error @below {{tirx-map-reference: the payload is already mapped to the GPU}}
module {
  func.func @mapped(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
      gpu.terminator
    }
    return
  }
}
