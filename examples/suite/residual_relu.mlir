// torch: torch.relu(x + r, out=y), f32 2^26, buffers (the memref form a
// front end's bufferization gives).
#map = affine_map<(d0) -> (d0)>
func.func @residual_relu(%x: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                         %r: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "r"},
                         %y: memref<67108864xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%x, %r : memref<67108864xf32>, memref<67108864xf32>) outs(%y : memref<67108864xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }
  return
}
