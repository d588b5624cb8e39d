// C += A x B, 2048^3 f32 (the matmul benchmark's larger size), as one linalg.matmul.
func.func @matmul(%A: memref<2048x2048xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                  %B: memref<2048x2048xf32> {llvm.align = 16 : i64, tirx.name = "B"},
                  %C: memref<2048x2048xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<2048x2048xf32>, memref<2048x2048xf32>)
                outs(%C : memref<2048x2048xf32>)
  return
}
