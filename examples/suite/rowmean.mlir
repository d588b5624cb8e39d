// torch: x.mean(dim=1), f32 [8192, 8192]: a sum (linalg.generic) then a
// division by the row length.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#v = affine_map<(i) -> (i)>
func.func @forward(%x: tensor<8192x8192xf32>) -> tensor<8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x8192xf32>) outs(%init : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  %e2 = tensor.empty() : tensor<8192xf32>
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%sum : tensor<8192xf32>) outs(%e2 : tensor<8192xf32>) {
  ^bb0(%s: f32, %o: f32):
    %n = arith.constant 8192.0 : f32
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<8192xf32>
  return %mean : tensor<8192xf32>
}
