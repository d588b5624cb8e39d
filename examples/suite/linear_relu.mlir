// torch: F.relu(x @ w + b) (nn.Linear + ReLU), f32 [4096, 4096] x
// [4096, 4096] + [4096].
#x = affine_map<(i, j) -> (i, j)>
#c = affine_map<(i, j) -> (j)>
func.func @forward(%x: tensor<4096x4096xf32>, %w: tensor<4096x4096xf32>, %b: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096x4096xf32>
  %c0 = linalg.fill ins(%zero : f32) outs(%e : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c0 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %e2 = tensor.empty() : tensor<4096x4096xf32>
  %y = linalg.generic {indexing_maps = [#x, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%e2 : tensor<4096x4096xf32>) {
  ^bb0(%v: f32, %bj: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %s = arith.addf %v, %bj : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  return %y : tensor<4096x4096xf32>
}
