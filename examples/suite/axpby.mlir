// torch: y = a * x + b * y (in place), f32 2^26, scalars a = 2, b = 0.5.
#map = affine_map<(d0) -> (d0)>
func.func @axpby(%a: f32 {tirx.name = "a", tirx.value = 2.0 : f32},
                 %b: f32 {tirx.name = "b", tirx.value = 0.5 : f32},
                 %x: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<67108864xf32>) outs(%y : memref<67108864xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %p = arith.mulf %a, %xi : f32
    %q = arith.mulf %b, %yi : f32
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  }
  return
}
