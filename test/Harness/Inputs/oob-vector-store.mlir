// A hand kernel whose vector store runs 4 elements past the end of %y.
func.func @oob(%x: memref<256xf32>, %y: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %i = arith.muli %tx, %c4 : index
    %j = arith.addi %i, %c4 : index
    %v = vector.load %x[%i] : memref<256xf32>, vector<4xf32>
    vector.store %v, %y[%j] : memref<256xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}
