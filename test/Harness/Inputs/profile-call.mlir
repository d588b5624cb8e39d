// Not a front end's payload: a call between two linalg ops.
func.func private @helper(tensor<64xf32>) -> tensor<64xf32>
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %c = func.call @helper(%z) : (tensor<64xf32>) -> tensor<64xf32>
  return %c : tensor<64xf32>
}
