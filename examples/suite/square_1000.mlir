// torch: torch.addcmul(1, x, x, out=y) = x * x + 1, f32 [1000, 1000]: no
// power of two above 8 divides 1000.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @square_1000(%x: memref<1000x1000xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                       %y: memref<1000x1000xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<1000x1000xf32>) outs(%y : memref<1000x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %a, %a : f32
    %t = arith.addf %s, %one : f32
    linalg.yield %t : f32
  }
  return
}
