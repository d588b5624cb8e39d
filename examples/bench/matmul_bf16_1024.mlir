// C += A x B, bf16 A and B 1024 x 1024, f32 C (the 16-bit matmul benchmark
// at 1024^3; examples/matmul_bf16.mlir is 4096^3).
func.func @matmul_bf16(%A: memref<1024x1024xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<1024x1024xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<1024x1024xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<1024x1024xbf16>, memref<1024x1024xbf16>)
                outs(%C : memref<1024x1024xf32>)
  return
}
