// C += A x B, A and B f16 256 x 256, C f32: the 16-bit matmul of
// examples/matmul_f16.mlir at a size that lowers quickly.
func.func @matmul_f16(%A: memref<256x256xf16> {llvm.align = 16 : i64, tirx.name = "A"},
                      %B: memref<256x256xf16> {llvm.align = 16 : i64, tirx.name = "B"},
                      %C: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<256x256xf16>, memref<256x256xf16>)
                outs(%C : memref<256x256xf32>)
  return
}
