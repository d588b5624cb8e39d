// torch: x + y, f32 [8192, 8192] (torch-mlir's linalg on tensors).
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<8192x8192xf32>, %y: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %e = tensor.empty() : tensor<8192x8192xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<8192x8192xf32>, tensor<8192x8192xf32>) outs(%e : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8192x8192xf32>
  return %r : tensor<8192x8192xf32>
}
