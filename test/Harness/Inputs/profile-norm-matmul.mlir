// A small payload as a front end emits it: RMSNorm (a reduction started by
// a fill, then an elementwise op), then a matmul (started by a fill). Three
// kernels for `tirx profile`.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @normmm(%x: tensor<256x256xf32>, %w: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 3.906250e-03 : f32
  %e0 = tensor.empty() : tensor<256xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256xf32>) -> tensor<256xf32>
  %ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x256xf32>) outs(%z0 : tensor<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %e1 = tensor.empty() : tensor<256x256xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : tensor<256x256xf32>, tensor<256xf32>) outs(%e1 : tensor<256x256xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.mulf %s, %inv : f32
    %q = math.rsqrt %m : f32
    %y = arith.mulf %a, %q : f32
    linalg.yield %y : f32
  } -> tensor<256x256xf32>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %mm = linalg.matmul ins(%n, %w : tensor<256x256xf32>, tensor<256x128xf32>) outs(%z2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %mm : tensor<256x128xf32>
}
