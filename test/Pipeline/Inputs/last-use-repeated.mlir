// last-use.test: a grid of a run-time number of blocks whose kernel does
// not read its block id: every block reads the same elements of x, so no
// load is the last read of what it reads.
func.func @last_use_repeated(%x: memref<64xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                             %n: memref<?xf32> {llvm.align = 16 : i64, tirx.name = "n", tirx.dims = ["s0"]},
                             %out: memref<64xf32> {llvm.align = 16 : i64, tirx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %blocks = memref.dim %n, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<64xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
