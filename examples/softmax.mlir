// Softmax over rows: y[i, j] = exp(x[i, j] - max_j x[i, j]) / sum_j exp(...),
// 8192 rows of 8192 f32 (an attention row's length in a long-context
// model), as four linalg ops through three intermediate buffers: the row
// maxima, the exponentials (read twice: by the sum and by the division)
// and the row sums. Each reduction is started by a fill right before it.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @softmax(%x: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                   %y: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<8192xf32>
  %e = memref.alloc() : memref<8192x8192xf32>
  %s = memref.alloc() : memref<8192xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<8192xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8192x8192xf32>) outs(%m : memref<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %mx = arith.maximumf %acc, %a : f32
    linalg.yield %mx : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<8192x8192xf32>, memref<8192xf32>) outs(%e : memref<8192x8192xf32>) {
  ^bb0(%a: f32, %mx: f32, %o: f32):
    %d = arith.subf %a, %mx : f32
    %ex = math.exp %d : f32
    linalg.yield %ex : f32
  }
  linalg.fill ins(%zero : f32) outs(%s : memref<8192xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<8192x8192xf32>) outs(%s : memref<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sum = arith.addf %acc, %a : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%e, %s : memref<8192x8192xf32>, memref<8192xf32>) outs(%y : memref<8192x8192xf32>) {
  ^bb0(%a: f32, %sum: f32, %o: f32):
    %q = arith.divf %a, %sum : f32
    linalg.yield %q : f32
  }
  memref.dealloc %m : memref<8192xf32>
  memref.dealloc %e : memref<8192x8192xf32>
  memref.dealloc %s : memref<8192xf32>
  return
}
