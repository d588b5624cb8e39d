// torch: F.silu(x), f16 [8192, 8192]: computed in f32 and rounded back, as
// torch-mlir emits it (extf, x * sigmoid(x), truncf).
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %e = tensor.empty() : tensor<8192x8192xf16>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8192x8192xf16>) outs(%e : tensor<8192x8192xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f32
    %f = arith.extf %a : f16 to f32
    %n = arith.negf %f : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %sg = arith.divf %f, %d : f32
    %t = arith.truncf %sg : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8192x8192xf16>
  return %r : tensor<8192x8192xf16>
}
