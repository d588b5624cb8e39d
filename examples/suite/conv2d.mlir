// torch: F.conv2d(x, w) (no padding, stride 1), f32 x [32, 64, 58, 58],
// w [64, 64, 3, 3] -> [32, 64, 56, 56] (a ResNet layer on a padded input).
func.func @forward(%x: tensor<32x64x58x58xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<32x64x56x56xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64x56x56xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64x56x56xf32>) -> tensor<32x64x56x56xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<32x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%c : tensor<32x64x56x56xf32>) -> tensor<32x64x56x56xf32>
  return %y : tensor<32x64x56x56xf32>
}
