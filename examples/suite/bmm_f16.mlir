// torch: torch.bmm(q, k), f16 [64, 2048, 128] x [64, 128, 2048] (attention
// scores of 64 heads).
func.func @forward(%q: tensor<64x2048x128xf16>, %k: tensor<64x128x2048xf16>) -> tensor<64x2048x2048xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x2048x2048xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<64x2048x2048xf16>) -> tensor<64x2048x2048xf16>
  %r = linalg.batch_matmul ins(%q, %k : tensor<64x2048x128xf16>, tensor<64x128x2048xf16>) outs(%c : tensor<64x2048x2048xf16>) -> tensor<64x2048x2048xf16>
  return %r : tensor<64x2048x2048xf16>
}
