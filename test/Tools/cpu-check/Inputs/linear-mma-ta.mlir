// Y += X^T W^T, f32: A held as (k, m), B as (n, k); not square, so that a
// swapped extent shows.
func.func @linear_ta(%XT: memref<32x64xf32> {llvm.align = 16 : i64, tirx.name = "XT"},
                     %W: memref<96x32xf32> {llvm.align = 16 : i64, tirx.name = "W"},
                     %Y: memref<64x96xf32> {llvm.align = 16 : i64, tirx.name = "Y"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%XT, %W : memref<32x64xf32>, memref<96x32xf32>)
                outs(%Y : memref<64x96xf32>)
  return
}
