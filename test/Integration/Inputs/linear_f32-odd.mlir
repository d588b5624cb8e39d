// C += A x W^T, f32 (tf32 products), W held as (n, k), at odd sizes:
// M = 4000 = 31 x 128 + 32, N = 4100 = 16 x 256 + 4, K = 4100 = 128 x 32
// + 4. use_wgmma (128x256 tiles) computes the tail tiles in M and N with the
// full tiles' schedule, its stores guarded, and ends K with a tile of 4
// columns of A and of W; TMA fills what lies past M, N and K with zeros. K
// and N must be multiples of 4: a tensor map's rows are a multiple of 16
// bytes, and the tail blocks store C four columns at a time.
func.func @linear_f32(%A: memref<4000x4100xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                      %W: memref<4100x4100xf32> {llvm.align = 16 : i64, tirx.name = "W"},
                      %C: memref<4000x4100xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<4000x4100xf32>, memref<4100x4100xf32>)
                outs(%C : memref<4000x4100xf32>)
  return
}
