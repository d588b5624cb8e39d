// examples/layernorm.mlir at 4 rows (tirx-cpu-check runs it on the CPU).
// Layer norm over rows: y[i, j] = (x[i, j] - mean_i) * rsqrt(var_i + eps)
// * w[j] + b[j], with mean_i = sum_j x[i, j] / n and var_i = sum_j
// (x[i, j] - mean_i)^2 / n (two passes, as torch computes it), 8192 rows of
// 8192 f32 (a hidden size of large models), as three linalg ops through
// two intermediate row buffers: the row sums (read twice: by the variance
// and by the normalization) and the sums of squared deviations. Each
// reduction is started by a fill right before it.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @layernorm(%x: memref<4x8192xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                     %w: memref<8192xf32> {llvm.align = 16 : i64, tirx.name = "weight"},
                     %b: memref<8192xf32> {llvm.align = 16 : i64, tirx.name = "bias"},
                     %y: memref<4x8192xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() : memref<4xf32>
  %v = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8192xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %acc, %a : f32
    linalg.yield %sum : f32
  }
  linalg.fill ins(%zero : f32) outs(%v : memref<4xf32>)
  linalg.generic {indexing_maps = [#x, #r, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x, %s : memref<4x8192xf32>, memref<4xf32>) outs(%v : memref<4xf32>) {
  ^bb0(%a: f32, %sum: f32, %acc: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %mean = arith.mulf %sum, %n : f32
    %d = arith.subf %a, %mean : f32
    %sq = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #r, #c, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %v, %w, %b : memref<4x8192xf32>, memref<4xf32>, memref<4xf32>, memref<8192xf32>, memref<8192xf32>)
      outs(%y : memref<4x8192xf32>) {
  ^bb0(%a: f32, %sum: f32, %sq: f32, %wj: f32, %bj: f32, %o: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %eps = arith.constant 1.0e-05 : f32
    %mean = arith.mulf %sum, %n : f32
    %var = arith.mulf %sq, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %nd = arith.mulf %d, %inv : f32
    %sc = arith.mulf %nd, %wj : f32
    %out = arith.addf %sc, %bj : f32
    linalg.yield %out : f32
  }
  memref.dealloc %s : memref<4xf32>
  memref.dealloc %v : memref<4xf32>
  return
}
