// torch: a @ b, f16 [4096, 4096] x [4096, 4096] -> f16.
func.func @forward(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %c = linalg.fill ins(%zero : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
