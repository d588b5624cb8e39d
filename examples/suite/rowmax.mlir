// torch: x.amax(dim=1), f32 [8192, 8192] (the init is -inf).
func.func @forward(%x: tensor<8192x8192xf32>) -> tensor<8192xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  %r = linalg.reduce ins(%x : tensor<8192x8192xf32>) outs(%init : tensor<8192xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8192xf32>
}
