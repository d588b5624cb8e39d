// torch: x.permute(0, 2, 1, 3).contiguous(), f16 [32, 2048, 32, 128]
// (attention heads: batch, sequence, heads, head dim -> batch, heads, ...).
func.func @forward(%x: tensor<32x2048x32x128xf16>) -> tensor<32x32x2048x128xf16> {
  %e = tensor.empty() : tensor<32x32x2048x128xf16>
  %t = linalg.transpose ins(%x : tensor<32x2048x32x128xf16>) outs(%e : tensor<32x32x2048x128xf16>) permutation = [0, 2, 1, 3]
  return %t : tensor<32x32x2048x128xf16>
}
