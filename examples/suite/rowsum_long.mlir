// torch: s += x.sum(dim=1), f32 [256, 1048576]: few, very long rows into a
// caller-initialized output (buffers).
#x = affine_map<(i, j) -> (i, j)>
#s = affine_map<(i, j) -> (i)>
func.func @rowsum_long(%x: memref<256x1048576xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                       %s: memref<256xf32> {llvm.align = 16 : i64, tirx.name = "s"}) {
  linalg.generic {indexing_maps = [#x, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x1048576xf32>) outs(%s : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
