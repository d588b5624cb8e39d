// last-use.test: a grid of a run-time number of blocks (one per row of a
// run-time number of rows, tirx.dims s0). The block id takes any number of
// values, so it must be the index's largest step.
func.func @last_use_rows(%x: memref<?x64xf32> {llvm.align = 16 : i64, tirx.name = "x", tirx.dims = ["s0", ""]},
                         %y: memref<?xf32> {llvm.align = 16 : i64, tirx.name = "y", tirx.dims = ["s0"]},
                         %out: memref<?x64xf32> {llvm.align = 16 : i64, tirx.name = "out", tirx.dims = ["s0", ""]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // Row bx, column tx: each element once (the block id the top digit):
    // the policy.
    %vx = memref.load %x[%bx, %tx] : memref<?x64xf32>
    // Row bx's one element, read by every thread of the block: none.
    %vy = memref.load %y[%bx] : memref<?xf32>
    %s = arith.addf %vx, %vy : f32
    memref.store %s, %out[%bx, %tx] : memref<?x64xf32>
    gpu.terminator
  }
  return
}
