// A planted wrong saxpy: y[i] = a * x[i + 1] + y[i] (an off-by-one index).
// The runner must fail it with the first bad index.
func.func @saxpy(%a: f32 {tirx.name = "a", tirx.value = 2.0 : f32},
                 %x: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c262144 = arith.constant 262144 : index
  %n = arith.constant 67108864 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c262144, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c256 : index
    %i = arith.addi %base, %tx : index
    %j = arith.addi %i, %c1 : index
    %inside = arith.cmpi ult, %j, %n : index
    scf.if %inside {
      %xv = memref.load %x[%j] : memref<67108864xf32>
      %yv = memref.load %y[%i] : memref<67108864xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %p, %yv : f32
      memref.store %s, %y[%i] : memref<67108864xf32>
    }
    gpu.terminator
  }
  return
}
