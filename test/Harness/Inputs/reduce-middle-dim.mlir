// x.amax(dim=1) of 16 x 1024 x 512: a reduction between parallel loops.
// Split by rows (parts first), its partial reduction has four loops (part,
// batch, row, column), the row's among the first three (auto.test).
func.func @forward(%x: tensor<16x1024x512xf32>) -> tensor<16x512xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<16x512xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  %r = linalg.reduce ins(%x : tensor<16x1024x512xf32>) outs(%i : tensor<16x512xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<16x512xf32>
}
