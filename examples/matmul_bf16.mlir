// C += A x B, A and B bf16 4096 x 4096, C f32: the products on tensor cores
// with f32 sums (torch: C.addmm_(A.float(), B.float()) up to the order of
// the sums).
func.func @matmul_bf16(%A: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>)
                outs(%C : memref<4096x4096xf32>)
  return
}
