// A kernel that calls a function no device code defines: ptxas refuses it;
// the error names it and the exit status is non-zero.
// REQUIRES: ptxas
// RUN: not tirx-opt %s --tirx-lower-to-nvvm 2>&1 | FileCheck %s
// CHECK: error: `ptxas` invocation failed
// CHECK: Unresolved extern function 'host_only'

module {
  func.func private @host_only(f32) -> f32
  func.func @k(%m: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
               threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
      %v = memref.load %m[%c0] : memref<4xf32>
      %r = func.call @host_only(%v) : (f32) -> f32
      memref.store %r, %m[%c0] : memref<4xf32>
      gpu.terminator
    }
    return
  }
}
