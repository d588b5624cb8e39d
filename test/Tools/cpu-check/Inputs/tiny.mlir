// y[i] = 1e-6 x[i]: outputs far below atol / rtol, where only the global
// relative-L2 check can see a 1% error (tolerances.test).
#map = affine_map<(d0) -> (d0)>
func.func @tiny(%x: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                %y: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<65536xf32>) outs(%y : memref<65536xf32>) {
  ^bb0(%a: f32, %o: f32):
    %k = arith.constant 1.0e-06 : f32
    %r = arith.mulf %a, %k : f32
    linalg.yield %r : f32
  }
  return
}
