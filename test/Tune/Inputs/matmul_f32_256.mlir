// C += A x B, f32 256 x 256: a matmul whose automatic schedule runs its
// products as tf32 on the tensor cores (wgmma after transpose_operand on
// sm_90), at a size that lowers quickly.
func.func @matmul_f32(%A: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                      %B: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "B"},
                      %C: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>)
                outs(%C : memref<256x256xf32>)
  return
}
