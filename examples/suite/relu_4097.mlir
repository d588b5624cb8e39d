// torch: torch.relu(x), f32 [4097, 4097] (4097 = 17 * 241).
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<4097x4097xf32>) -> tensor<4097x4097xf32> {
  %e = tensor.empty() : tensor<4097x4097xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4097x4097xf32>) outs(%e : tensor<4097x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4097x4097xf32>
  return %r : tensor<4097x4097xf32>
}
