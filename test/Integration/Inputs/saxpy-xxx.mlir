// A planted numerically wrong saxpy over 2^20 elements: x computed as
// x * x / x, so y[i] = a * (x[i] * x[i] / x[i]) + y[i]. Within an ulp or two
// on random inputs in [-1, 1) (it passes them), but x * x overflows for large
// x (inf / x = inf) and underflows for subnormal x (0 / x = 0): the
// adversarial input sets fail it (test/Integration/strict.test).
func.func @saxpy(%a: f32 {tirx.name = "a", tirx.value = 2.0 : f32},
                 %x: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c4096 = arith.constant 4096 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4096, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %xv = memref.load %x[%i] : memref<1048576xf32>
    %yv = memref.load %y[%i] : memref<1048576xf32>
    %sq = arith.mulf %xv, %xv : f32
    %back = arith.divf %sq, %xv : f32
    %p = arith.mulf %a, %back : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %y[%i] : memref<1048576xf32>
    gpu.terminator
  }
  return
}
