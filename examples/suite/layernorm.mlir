// torch: F.layer_norm(x, [8192], w, b, eps=1e-5), f32 [8192, 8192]: the
// mean, the variance of x - mean, then (x - mean) * rsqrt(var + eps) * w + b.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @forward(%x: tensor<8192x8192xf32>, %w: tensor<8192xf32>, %b: tensor<8192xf32>) -> tensor<8192x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8192xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8192xf32>) -> tensor<8192xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x8192xf32>) outs(%z1 : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  %e2 = tensor.empty() : tensor<8192xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8192xf32>) -> tensor<8192xf32>
  %sq = linalg.generic {indexing_maps = [#x, #r, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<8192x8192xf32>, tensor<8192xf32>) outs(%z2 : tensor<8192xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %mean = arith.mulf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %t = arith.addf %d2, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8192xf32>
  %e3 = tensor.empty() : tensor<8192x8192xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #r, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq, %w, %b : tensor<8192x8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>)
      outs(%e3 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %s: f32, %v: f32, %wj: f32, %bj: f32, %o: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %eps = arith.constant 1.0e-05 : f32
    %mean = arith.mulf %s, %n : f32
    %var = arith.mulf %v, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %nrm = arith.mulf %d, %inv : f32
    %sc = arith.mulf %nrm, %wj : f32
    %out = arith.addf %sc, %bj : f32
    linalg.yield %out : f32
  } -> tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
