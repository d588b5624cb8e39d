// y[i] = 2 * exp(x[i]) over 2^20 f32 elements, as two linalg.generic ops
// through an intermediate buffer: the payload for fuse_into. Unfused, the
// intermediate is a round trip through global memory; fused, each block
// computes its tile of it in shared memory.
#map = affine_map<(d0) -> (d0)>
func.func @exp_scale(%x: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                     %y: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  %t = memref.alloc() : memref<1048576xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<1048576xf32>) outs(%t : memref<1048576xf32>) {
  ^bb0(%xi: f32, %ti: f32):
    %e = math.exp %xi : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%t : memref<1048576xf32>) outs(%y : memref<1048576xf32>) {
  ^bb0(%ti: f32, %yi: f32):
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %ti, %two : f32
    linalg.yield %s : f32
  }
  memref.dealloc %t : memref<1048576xf32>
  return
}
