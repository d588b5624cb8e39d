// s[i] += sum_j x[i, j] in f64: 4 rows of 1024. reduce_in_block combines
// f64 partials through a shared-memory tree (no warp shuffles for 64-bit).
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (i)>
func.func @rowsum(%x: memref<4x1024xf64> {llvm.align = 16 : i64, tirx.name = "x"},
                  %s: memref<4xf64> {llvm.align = 16 : i64, tirx.name = "s"}) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1024xf64>) outs(%s : memref<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  }
  return
}
