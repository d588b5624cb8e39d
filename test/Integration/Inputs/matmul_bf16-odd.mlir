// C += A x B at an odd-ish size that use_wgmma's 128x256 block tile and
// 64-wide K tiles divide: M = 31 x 128, N = 19 x 256, K = 65 x 64 (so the
// K loop ends on a partial turn of its 4 stages).
func.func @matmul_bf16(%A: memref<3968x4160xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<4160x4864xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<3968x4864xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<3968x4160xbf16>, memref<4160x4864xbf16>)
                outs(%C : memref<3968x4864xf32>)
  return
}
