// noalias.test: a kernel that exchanges values of b between threads across a
// barrier (b read and written: not noalias) and reads a (read-only).
func.func @exchange(%a: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "a"},
                    %b: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "b"}) {
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %b[%tx] : memref<256xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %b[%tx] : memref<256xf32>
    gpu.barrier
    %n = arith.subi %c255, %tx : index
    %x = memref.load %b[%n] : memref<256xf32>
    %y = memref.load %a[%n] : memref<256xf32>
    %z = arith.addf %x, %y : f32
    gpu.barrier
    memref.store %z, %b[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
