// torch: F.gelu(x + b, approximate="sigmoid" form x * sigmoid(1.702 x)),
// x f32 [4096, 8192], b [8192] broadcast over rows by linalg.broadcast.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<4096x8192xf32>, %b: tensor<8192xf32>) -> tensor<4096x8192xf32> {
  %e0 = tensor.empty() : tensor<4096x8192xf32>
  %bb = linalg.broadcast ins(%b : tensor<8192xf32>) outs(%e0 : tensor<4096x8192xf32>) dimensions = [0]
  %e = tensor.empty() : tensor<4096x8192xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bb : tensor<4096x8192xf32>, tensor<4096x8192xf32>) outs(%e : tensor<4096x8192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %k = arith.constant -1.702 : f32
    %v = arith.addf %a, %c : f32
    %n = arith.mulf %v, %k : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %g = arith.divf %v, %d : f32
    linalg.yield %g : f32
  } -> tensor<4096x8192xf32>
  return %r : tensor<4096x8192xf32>
}
