// saxpy as a front end emits it (torch-mlir, StableHLO -> linalg): linalg on
// tensors, the result returned. The bufferize action turns it into
// saxpy(x, y, out) on buffers; the reference bufferizes it the same way.
#id = affine_map<(i) -> (i)>
func.func @saxpy(%x: tensor<16777216xf32>, %y: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %a = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<16777216xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<16777216xf32>, tensor<16777216xf32>) outs(%e : tensor<16777216xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    %s = arith.addf %m, %yi : f32
    linalg.yield %s : f32
  } -> tensor<16777216xf32>
  return %r : tensor<16777216xf32>
}
