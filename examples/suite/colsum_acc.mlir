// torch: s += x.sum(dim=0), f32 [8192, 8192] into a caller-initialized
// output (buffers).
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (j)>
func.func @colsum_acc(%x: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                      %s: memref<8192xf32> {llvm.align = 16 : i64, tirx.name = "s"}) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8192x8192xf32>) outs(%s : memref<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
