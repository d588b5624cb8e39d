// A mapped payload whose scalar has no tirx.value: it cannot be bundled.
func.func @scale(%s: f32, %m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %v = memref.load %m[%tx] : memref<256xf32>
    %r = arith.mulf %v, %s : f32
    memref.store %r, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
