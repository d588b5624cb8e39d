// C += A x B, f32 (tf32 products), B held as (k, n) as torch.mm's is, at
// odd sizes: M = 4000 = 31 x 128 + 32, N = 4100 = 16 x 256 + 4, K = 4100 =
// 128 x 32 + 4. use_wgmma computes it as C^T = B^T A^T (B^T from registers,
// A K-major as wgmma's B), the tail tiles in M and N with the full tiles'
// schedule (stores guarded), a last tile of 4 along K; TMA fills what lies
// past M, N and K with zeros. N and K are multiples of 4: a tensor map's
// rows are a multiple of 16 bytes.
func.func @matmul_f32(%A: memref<4000x4100xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                      %B: memref<4100x4100xf32> {llvm.align = 16 : i64, tirx.name = "B"},
                      %C: memref<4000x4100xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<4000x4100xf32>, memref<4100x4100xf32>)
                outs(%C : memref<4000x4100xf32>)
  return
}
