// torch: x.sum(dim=1), f32 [8192, 8192] into a fresh output (linalg.fill +
// linalg.reduce, as torch-mlir emits it).
func.func @forward(%x: tensor<8192x8192xf32>) -> tensor<8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  %r = linalg.reduce ins(%x : tensor<8192x8192xf32>) outs(%init : tensor<8192xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8192xf32>
}
