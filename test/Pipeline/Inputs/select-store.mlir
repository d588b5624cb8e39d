// noalias.test: a kernel that stores through a select of a and b, then
// after a barrier reads another thread's element of a: a is written (through
// the select), so it is neither noalias nor loaded ahead of the barrier.
func.func @sel(%a: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "a"},
               %b: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "b"},
               %c: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "c"}) {
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  %c128 = arith.constant 128 : index
  %f1 = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %lo = arith.cmpi ult, %tx, %c128 : index
    %m = arith.select %lo, %a, %b : memref<256xf32>
    memref.store %f1, %m[%tx] : memref<256xf32>
    gpu.barrier
    %n = arith.subi %c255, %tx : index
    %y = memref.load %a[%n] : memref<256xf32>
    memref.store %y, %c[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
