// The reference for examples/exp-scale.mlir: the same y = 2 * exp(x) as one
// linalg.generic (the reference mapping runs one op per kernel and cannot
// keep the two-op payload's host-side intermediate buffer).
#map = affine_map<(d0) -> (d0)>
func.func @exp_scale(%x: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                     %y: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<1048576xf32>) outs(%y : memref<1048576xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %e = math.exp %xi : f32
    %two = arith.constant 2.0 : f32
    %s = arith.mulf %e, %two : f32
    linalg.yield %s : f32
  }
  return
}
