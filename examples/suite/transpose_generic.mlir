// torch: torch.transpose(x, 0, 1, out=y), f32 [8192, 4096] -> [4096, 8192],
// a linalg.generic with a permuted input map (buffers).
#in = affine_map<(i, j) -> (j, i)>
#out = affine_map<(i, j) -> (i, j)>
func.func @transpose_generic(%x: memref<8192x4096xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                             %y: memref<4096x8192xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8192x4096xf32>) outs(%y : memref<4096x8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return
}
