// RMSNorm without the weight: y[i, j] = x[i, j] / sqrt(mean_j x[i, j]^2 + eps),
// examples/rmsnorm.mlir at 8192 rows of 8192 f32 (a hidden size of large
// models), as two linalg.generics through an intermediate row buffer (a
// reduction, then an elementwise op reading it).
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @rmsnorm(%x: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                   %y: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %ss = memref.alloc() : memref<8192xf32>
  linalg.fill ins(%zero : f32) outs(%ss : memref<8192xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8192x8192xf32>) outs(%ss : memref<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : memref<8192x8192xf32>, memref<8192xf32>) outs(%y : memref<8192x8192xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %n = arith.constant 1.220703125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    %mean = arith.mulf %s, %n : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %out = arith.mulf %a, %inv : f32
    linalg.yield %out : f32
  }
  memref.dealloc %ss : memref<8192xf32>
  return
}
