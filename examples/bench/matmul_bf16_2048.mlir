// C += A x B, bf16 A and B 2048 x 2048, f32 C (the 16-bit matmul benchmark
// at 2048^3; examples/matmul_bf16.mlir is 4096^3).
func.func @matmul_bf16(%A: memref<2048x2048xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<2048x2048xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<2048x2048xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<2048x2048xbf16>, memref<2048x2048xbf16>)
                outs(%C : memref<2048x2048xf32>)
  return
}
