// c = a * b on 0-d tensors (a scalar): no loop for tile_to_blocks; auto
// refuses it by name (auto.test; before, it crashed on the tail tile of
// no loops).
func.func @forward(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.mul ins(%x, %y : tensor<f32>, tensor<f32>) outs(%e : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
