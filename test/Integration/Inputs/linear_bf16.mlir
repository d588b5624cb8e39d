// C += A x W^T, bf16 A and W 4096 x 4096, W held as (n, k) (nn.Linear's
// weight), f32 C: on use_wgmma's K-major path (both operands staged along
// K, wgmma.mma_async m64nNk16 .bf16 without a transpose, as the tf32 linear
// of examples/linear_f32.mlir), by the recipe of matmul_bf16
// (examples/recipes/matmul_bf16-wgmma.json).
func.func @linear_bf16(%A: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
                       %W: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "W"},
                       %C: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<4096x4096xbf16>, memref<4096x4096xbf16>)
                outs(%C : memref<4096x4096xf32>)
  return
}
