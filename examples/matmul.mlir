// C += A x B, 256^3 f32, as one linalg.matmul on memrefs.
func.func @matmul(%A: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                  %B: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "B"},
                  %C: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>)
                outs(%C : memref<256x256xf32>)
  return
}
