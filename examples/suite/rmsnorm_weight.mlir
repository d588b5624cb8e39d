// torch: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
// f32 [8192, 8192], w [8192] (LLaMA's RMSNorm).
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @forward(%x: tensor<8192x8192xf32>, %w: tensor<8192xf32>) -> tensor<8192x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8192xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8192xf32>) -> tensor<8192xf32>
  %ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x8192xf32>) outs(%z : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  %e2 = tensor.empty() : tensor<8192x8192xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<8192x8192xf32>, tensor<8192xf32>, tensor<8192xf32>) outs(%e2 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %s: f32, %wj: f32, %o: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    %mean = arith.mulf %s, %n : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %v = arith.mulf %a, %inv : f32
    %out = arith.mulf %v, %wj : f32
    linalg.yield %out : f32
  } -> tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
