// C += A x B, bf16 A (M x K) and B (K x N), f32 C, at odd sizes:
// M = 4000 = 31 x 128 + 32, N = 4096, K = 4104 = 64 x 64 + 8. use_wgmma
// (128x256 tiles) computes the 32-row tail tiles with the full tiles'
// schedule, its stores guarded, and ends K with a tile of 8 columns of A
// (8 rows of B); TMA fills what lies past M and K with zeros. K must be a
// multiple of 8: a tensor map's rows are a multiple of 16 bytes, so the
// issue's 4000 x 4096 x 4100 cannot be loaded by TMA (refused, hint: pad K).
func.func @matmul_bf16(%A: memref<4000x4104xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %B: memref<4104x4096xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                       %C: memref<4000x4096xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<4000x4104xbf16>, memref<4104x4096xbf16>)
                outs(%C : memref<4000x4096xf32>)
  return
}
