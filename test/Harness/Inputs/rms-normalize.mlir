// The RMSNorm's normalize step of examples/transformer-block.mlir as the
// kernel `tirx profile` splits off (k02): the row sums of squares, which
// in the block are nonnegative, are an input here, and reach math.rsqrt
// through a positive scale and a positive epsilon.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @block_k02(%x: tensor<128x1024xf32>, %ss: tensor<128xf32>, %g: tensor<1024xf32>) -> tensor<128x1024xf32> {
  %inv_d = arith.constant 9.7656250000e-04 : f32
  %eps = arith.constant 1.0e-06 : f32
  %e = tensor.empty() : tensor<128x1024xf32>
  %n = linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %g : tensor<128x1024xf32>, tensor<128xf32>, tensor<1024xf32>) outs(%e : tensor<128x1024xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %mean = arith.mulf %s, %inv_d : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %n0 = arith.mulf %a, %inv : f32
    %y = arith.mulf %n0, %w : f32
    linalg.yield %y : f32
  } -> tensor<128x1024xf32>
  return %n : tensor<128x1024xf32>
}
