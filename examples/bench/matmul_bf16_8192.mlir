// C += A x B, bf16 A and B 8192 x 8192, f32 C (the 16-bit matmul benchmark
// at 8192^3; examples/matmul_bf16.mlir is 4096^3).
func.func @matmul_bf16(%A: memref<8192x8192xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<8192x8192xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<8192x8192xbf16>, memref<8192x8192xbf16>)
                outs(%C : memref<8192x8192xf32>)
  return
}
