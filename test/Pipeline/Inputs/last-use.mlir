// stream.test: the loads that tirx-export-bundle gives the L2 evict-first
// policy (each element's last read in the kernel) and those it leaves.
func.func @last_use(%a: memref<128xf32> {llvm.align = 16 : i64, tirx.name = "a"},
                    %w: memref<64xf32> {llvm.align = 16 : i64, tirx.name = "w"},
                    %c: memref<128xf32> {llvm.align = 16 : i64, tirx.name = "c"},
                    %d: memref<128xf32> {llvm.align = 16 : i64, tirx.name = "d"},
                    %e: memref<128xf64> {llvm.align = 16 : i64, tirx.name = "e"},
                    %out: memref<128xf32> {llvm.align = 16 : i64, tirx.name = "out"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %tx : index
    // Each element once (block and thread in the index): the policy.
    %va = memref.load %a[%i] : memref<128xf32>
    // The same element in every block (no block id): none.
    %vw = memref.load %w[%tx] : memref<64xf32>
    // The same element in each iteration (no induction variable): none.
    %zero = arith.constant 0.0 : f32
    %vc = scf.for %k = %c0 to %c4 step %c1 iter_args(%s = %zero) -> (f32) {
      %x = memref.load %c[%i] : memref<128xf32>
      %t = arith.addf %s, %x : f32
      scf.yield %t : f32
    }
    // Read twice: the second read, the last, takes the policy.
    %vd = memref.load %d[%i] : memref<128xf32>
    %s1 = arith.addf %va, %vw : f32
    %s2 = arith.addf %s1, %vc : f32
    %s3 = arith.addf %s2, %vd : f32
    memref.store %s3, %out[%i] : memref<128xf32>
    gpu.barrier
    %vd2 = memref.load %d[%i] : memref<128xf32>
    %s4 = arith.addf %s3, %vd2 : f32
    // A 64-bit scalar, read once: left as it is (words of 32 bits only).
    %ve = memref.load %e[%i] : memref<128xf64>
    %te = arith.truncf %ve : f64 to f32
    %s5 = arith.addf %s4, %te : f32
    memref.store %s5, %out[%i] : memref<128xf32>
    gpu.terminator
  }
  return
}
