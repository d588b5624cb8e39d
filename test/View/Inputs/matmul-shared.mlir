// A 256^3 f32 matmul with 16x16 tiles staged through shared memory (as
// promote_to_shared produces them), plus a transposed staging buffer that
// conflicts on banks.
func.func @matmul(%A: memref<256x256xf32> {tirx.name = "A"},
                  %B: memref<256x256xf32> {tirx.name = "B"},
                  %C: memref<256x256xf32> {tirx.name = "C"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c16, %gy = %c16, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c16, %sz = %c1) {
    %As = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %Bs = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %Ts = memref.alloc() : memref<16x16xf32, #gpu.address_space<workgroup>>
    %r0 = arith.muli %by, %c16 : index
    %row = arith.addi %r0, %ty : index
    %c0b = arith.muli %bx, %c16 : index
    %col = arith.addi %c0b, %tx : index
    %acc = scf.for %k0 = %c0 to %c256 step %c16 iter_args(%sum = %zero) -> (f32) {
      %ka = arith.addi %k0, %tx : index
      %a = memref.load %A[%row, %ka] : memref<256x256xf32>
      memref.store %a, %As[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      %kb = arith.addi %k0, %ty : index
      %b = memref.load %B[%kb, %col] : memref<256x256xf32>
      memref.store %b, %Bs[%ty, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
      memref.store %b, %Ts[%tx, %ty] : memref<16x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %t = memref.load %Ts[%tx, %ty] : memref<16x16xf32, #gpu.address_space<workgroup>>
      %sum2 = arith.addf %sum, %t : f32
      %inner = scf.for %kk = %c0 to %c16 step %c1 iter_args(%s = %sum2) -> (f32) {
        %x = memref.load %As[%ty, %kk] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %y = memref.load %Bs[%kk, %tx] : memref<16x16xf32, #gpu.address_space<workgroup>>
        %p = arith.mulf %x, %y : f32
        %n = arith.addf %s, %p : f32
        scf.yield %n : f32
      }
      gpu.barrier
      scf.yield %inner : f32
    }
    memref.store %acc, %C[%row, %col] : memref<256x256xf32>
    gpu.terminator
  }
  return
}
