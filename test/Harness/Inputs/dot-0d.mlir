// torch.dot(x, y) of 65536 f32 into a 0-d result: a full reduction to a
// scalar, no parallel loop. auto refuses it (auto.test) rather than split
// it and leave the combine of the parts with no loop to tile.
func.func @forward(%x: tensor<65536xf32>, %y: tensor<65536xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.dot ins(%x, %y : tensor<65536xf32>, tensor<65536xf32>) outs(%c : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
