// torch: RMSNorm in bf16 with f32 statistics (x.float() ... .to(bf16)),
// x [8192, 8192] bf16, w [8192] bf16, buffers; the row statistic lives in
// a buffer the function allocates.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @rmsnorm_bf16(%x: memref<8192x8192xbf16> {llvm.align = 16 : i64, tirx.name = "x"},
                        %w: memref<8192xbf16> {llvm.align = 16 : i64, tirx.name = "w"},
                        %y: memref<8192x8192xbf16> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %zero = arith.constant 0.0 : f32
  %ss = memref.alloc() : memref<8192xf32>
  linalg.fill ins(%zero : f32) outs(%ss : memref<8192xf32>)
  linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8192x8192xbf16>) outs(%ss : memref<8192xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %f = arith.extf %a : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : memref<8192x8192xbf16>, memref<8192xf32>, memref<8192xbf16>) outs(%y : memref<8192x8192xbf16>) {
  ^bb0(%a: bf16, %s: f32, %wj: bf16, %o: bf16):
    %n = arith.constant 1.220703125e-04 : f32
    %eps = arith.constant 1.0e-06 : f32
    %f = arith.extf %a : bf16 to f32
    %wf = arith.extf %wj : bf16 to f32
    %mean = arith.mulf %s, %n : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %v = arith.mulf %f, %inv : f32
    %out = arith.mulf %v, %wf : f32
    %t = arith.truncf %out : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %ss : memref<8192xf32>
  return
}
