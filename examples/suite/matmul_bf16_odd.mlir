// torch: a @ b, bf16 [1000, 1000] x [1000, 1000] -> bf16: sizes no tile of
// 16 or more divides.
func.func @forward(%a: tensor<1000x1000xbf16>, %b: tensor<1000x1000xbf16>) -> tensor<1000x1000xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1000x1000xbf16>
  %c = linalg.fill ins(%zero : bf16) outs(%e : tensor<1000x1000xbf16>) -> tensor<1000x1000xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<1000x1000xbf16>, tensor<1000x1000xbf16>) outs(%c : tensor<1000x1000xbf16>) -> tensor<1000x1000xbf16>
  return %r : tensor<1000x1000xbf16>
}
