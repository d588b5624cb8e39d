// nn.Linear's Y += X W^T, f32: B (the weight) held as (n, k).
func.func @linear(%X: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "X"},
                  %W: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "W"},
                  %Y: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "Y"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%X, %W : memref<64x64xf32>, memref<64x64xf32>)
                outs(%Y : memref<64x64xf32>)
  return
}
