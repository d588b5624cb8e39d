// C += A^T B^T with A held as (k, m) and B as (n, k), bf16, C f32: M 1024,
// N 2048, K 1024 (all different, so that a swapped extent shows). use_mma
// loads A by ldmatrix .trans and B by ldmatrix without it
// (test/Integration/linear16.test).
func.func @linear_ta(%A: memref<1024x1024xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                     %B: memref<2048x1024xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                     %C: memref<1024x2048xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %B : memref<1024x1024xbf16>, memref<2048x1024xbf16>)
                outs(%C : memref<1024x2048xf32>)
  return
}
