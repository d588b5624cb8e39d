// x.amax(dim=0) over 64 rows of 1000 columns: a column reduction whose one
// block of outputs is a tail (1000 of 1024).
func.func @forward(%x: tensor<64x1000xf32>) -> tensor<1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1000xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %r = linalg.reduce ins(%x : tensor<64x1000xf32>) outs(%init : tensor<1000xf32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<1000xf32>
}
