// torch: x.t().contiguous(), f32 [8192, 8192] (linalg.transpose).
func.func @forward(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %e = tensor.empty() : tensor<8192x8192xf32>
  %t = linalg.transpose ins(%x : tensor<8192x8192xf32>) outs(%e : tensor<8192x8192xf32>) permutation = [1, 0]
  return %t : tensor<8192x8192xf32>
}
