// A fresh output of a few long rows (s = x.sum(1) + 0.5 over 4 rows of
// 2^18): split_reduction takes the rows apart from the fill of s, 4
// elements that stay a kernel of their own (auto.test).
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (i)>
func.func @long(%x: memref<4x262144xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                %s: memref<4xf32> {llvm.align = 16 : i64, tirx.name = "s"}) {
  %c = arith.constant 0.5 : f32
  linalg.fill ins(%c : f32) outs(%s : memref<4xf32>)
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x262144xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
