// A tensor op left inside a kernel cannot be translated to LLVM IR: the
// error comes out and the exit status is non-zero.
// RUN: not tirx-opt %s --tirx-lower-to-nvvm=cubin-format=isa 2>&1 | FileCheck %s
// CHECK: error: LLVM Translation failed for operation: builtin.unrealized_conversion_cast

module {
  func.func @k(%m: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
      %t = tensor.empty() : tensor<4xf32>
      %v = tensor.extract %t[%c0] : tensor<4xf32>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.terminator
    }
    return
  }
}
