// A planted endless kernel with saxpy's signature: thread 0 spins for ever
// on an atomic add of zero to y[0] (an atomic is never hoisted, promoted to
// a register or deleted: with plain loads and stores, the kernel arguments
// being noalias, LLVM kept a bare branch to itself that ptxas dropped, and
// the kernel ended). The runner must kill it within its time limit and go
// on with the next candidate.
func.func @saxpy(%a: f32 {tirx.name = "a", tirx.value = 2.0 : f32},
                 %x: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 1.0e30 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %start = memref.load %y[%c0] : memref<67108864xf32>
    %r = scf.while (%v = %start) : (f32) -> f32 {
      %go = arith.cmpf olt, %v, %big : f32
      scf.condition(%go) %v : f32
    } do {
    ^bb0(%v: f32):
      %zero = arith.constant 0.0 : f32
      %next = memref.atomic_rmw addf %zero, %y[%c0] : (f32, memref<67108864xf32>) -> f32
      scf.yield %next : f32
    }
    gpu.terminator
  }
  return
}
