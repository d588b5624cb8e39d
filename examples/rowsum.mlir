// s[i] += sum_j x[i, j]: 1024 rows of 16384 f32, one linalg.generic. Few
// outputs, long rows: a reduction that needs split_reduction to fill a GPU.
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (i)>
func.func @rowsum(%x: memref<1024x16384xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                  %s: memref<1024xf32> {llvm.align = 16 : i64, tirx.name = "s"}) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x16384xf32>) outs(%s : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
