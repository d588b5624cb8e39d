// A small multi-op payload on tensors, as front ends emit it: RMSNorm of
// x (a row sum of squares, then the scaling), a projection by w, a ReLU.
// `tirx profile` splits it into 4 kernels (a fill goes with its consumer).
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @block(%x: tensor<256x512xf32>, %w: tensor<512x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 1.953125e-03 : f32
  %eps = arith.constant 1.0e-06 : f32
  %e0 = tensor.empty() : tensor<256xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256xf32>) -> tensor<256xf32>
  %ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xf32>) outs(%z0 : tensor<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<256xf32>
  %e1 = tensor.empty() : tensor<256x512xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : tensor<256x512xf32>, tensor<256xf32>) outs(%e1 : tensor<256x512xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %mean = arith.mulf %s, %inv : f32
    %m = arith.addf %mean, %eps : f32
    %r = math.rsqrt %m : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<256x512xf32>
  %e2 = tensor.empty() : tensor<256x256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %p = linalg.matmul ins(%n, %w : tensor<256x512xf32>, tensor<512x256xf32>) outs(%z2 : tensor<256x256xf32>) -> tensor<256x256xf32>
  %e3 = tensor.empty() : tensor<256x256xf32>
  %o = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<256x256xf32>) outs(%e3 : tensor<256x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.maximumf %a, %zero : f32
    linalg.yield %c : f32
  } -> tensor<256x256xf32>
  return %o : tensor<256x256xf32>
}
