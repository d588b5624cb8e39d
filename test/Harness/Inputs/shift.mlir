// A kernel that reads x[k + 1] for k < 256: one past the end on the last trip.
func.func @shift(%x: memref<256xf32>, %y: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c256 step %c1 {
      %i = arith.addi %k, %c1 : index
      %v = memref.load %x[%i] : memref<256xf32>
      memref.store %v, %y[%k] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}
