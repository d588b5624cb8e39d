// A mapped payload with a scalar of a type the runner cannot pass (i16):
// it cannot be bundled.
func.func @scale(%s: i16, %m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.load %m[%tx] : memref<256xf32>
    %f = arith.sitofp %s : i16 to f32
    %r = arith.mulf %v, %f : f32
    memref.store %r, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
