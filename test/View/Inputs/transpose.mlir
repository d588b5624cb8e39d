// out[j][i] = in[i][j], one element per thread, 32 threads along j: the load
// is contiguous along thread x, the store strides by a whole row.
func.func @transpose(%in: memref<1024x1024xf32> {tirx.name = "in"},
                     %out: memref<1024x1024xf32> {tirx.name = "out"}) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c32, %gy = %c1024, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %j0 = arith.muli %bx, %c32 : index
    %j = arith.addi %j0, %tx : index
    %v = memref.load %in[%by, %j] : memref<1024x1024xf32>
    memref.store %v, %out[%j, %by] : memref<1024x1024xf32>
    gpu.terminator
  }
  return
}
