// The reference of colsum_acc: the same sum with the parallel loop first
// (tirx-map-reference maps parallel loops, not a leading reduction).
#x = affine_map<(j, i) -> (i, j)>
#s = affine_map<(j, i) -> (j)>
func.func @colsum_acc(%x: memref<8192x8192xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                      %s: memref<8192xf32> {llvm.align = 16 : i64, tirx.name = "s"}) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8192x8192xf32>) outs(%s : memref<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
