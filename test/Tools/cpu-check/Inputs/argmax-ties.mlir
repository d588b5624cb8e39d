// An argmax over rows with many equal maxima: x (uniform in [-1, 1))
// rounded down first, so that a row of 256 holds its maximum, 0, about 128
// times and the first index must win, across a thread's elements and across
// the block's tree. m and i are accumulated into (inout: m's initial value
// decides whether the row's 0 replaces it).
#id = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
func.func @argmax_ties(%x: memref<64x256xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                       %m: memref<64xf32> {llvm.align = 16 : i64, tirx.name = "m"},
                       %i: memref<64xi64> {llvm.align = 16 : i64, tirx.name = "i"}) {
  %q = memref.alloc() : memref<64x256xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x256xf32>) outs(%q : memref<64x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %f = math.floor %a : f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%q : memref<64x256xf32>) outs(%m, %i : memref<64xf32>, memref<64xi64>) {
  ^bb0(%a: f32, %v: f32, %k: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %v : f32
    %nv = arith.select %gt, %a, %v : f32
    %ni = arith.select %gt, %ji, %k : i64
    linalg.yield %nv, %ni : f32, i64
  }
  memref.dealloc %q : memref<64x256xf32>
  return
}
