// torch: torch.softmax(x, dim=1), f32 [4096, 4096], as the named op
// linalg.softmax (IREE's input form; torch-mlir writes it out as generics,
// see softmax.mlir). The bufferize action decomposes it into a max, exp,
// sum and divide first.
func.func @forward(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %e = tensor.empty() : tensor<4096x4096xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4096x4096xf32>) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
