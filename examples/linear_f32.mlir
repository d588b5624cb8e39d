// C += A x W^T, f32 4096 x 4096 (nn.Linear's x W^T, no bias, C
// accumulating): W is held as (out_features, in_features) = (n, k), as
// torch's Linear holds its weight and front ends read it (a linalg.matmul
// whose B map is (m, n, k) -> (n, k)). On tensor cores in tf32 (torch:
// C.addmm_(A, W.t()) under torch.set_float32_matmul_precision("high")).
func.func @linear_f32(%A: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                      %W: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "W"},
                      %C: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<4096x4096xf32>, memref<4096x4096xf32>)
                outs(%C : memref<4096x4096xf32>)
  return
}
