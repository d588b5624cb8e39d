// torch: x * alpha + beta with Python floats passed as scalars, bf16
// [8192, 8192] (StableHLO-style scalar arguments).
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<8192x8192xbf16>, %alpha: f32, %beta: f32) -> tensor<8192x8192xbf16> {
  %e = tensor.empty() : tensor<8192x8192xbf16>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8192x8192xbf16>) outs(%e : tensor<8192x8192xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %f = arith.extf %a : bf16 to f32
    %m = arith.mulf %f, %alpha : f32
    %s = arith.addf %m, %beta : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8192x8192xbf16>
  return %r : tensor<8192x8192xbf16>
}
