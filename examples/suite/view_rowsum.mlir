// torch: x.view(-1, 4096).sum(dim=1), f32 [16, 512, 4096]: a reshape
// (tensor.collapse_shape, as torch-mlir emits view/reshape) before the
// row sums. Once bufferized and mapped, the loads index the 3-D buffer
// through affine.delinearize_index (the bounds check proves them).
func.func @forward(%x: tensor<16x512x4096xf32>) -> tensor<8192xf32> {
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<16x512x4096xf32> into tensor<8192x4096xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8192xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8192xf32>) -> tensor<8192xf32>
  %r = linalg.reduce ins(%rows : tensor<8192x4096xf32>) outs(%init : tensor<8192xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<8192xf32>
}
