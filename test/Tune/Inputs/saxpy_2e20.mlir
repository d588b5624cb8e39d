// saxpy: y[i] = a * x[i] + y[i] over 2^20 f32 (test/Tune: another size of examples/saxpy.mlir) elements, as one linalg.generic.
// - Buffers are allocation bases (the runner allocates each with cuMemAlloc,
//   256-byte aligned); `llvm.align` states it, so alignment can be proven.
// - `tirx.value` gives the scalar the value the runner passes; `tirx.name`
//   names the parameters in bundles and feedback.
#map = affine_map<(d0) -> (d0)>
func.func @saxpy(%a: f32 {tirx.name = "a", tirx.value = 2.0 : f32},
                 %x: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "x"},
                 %y: memref<1048576xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : memref<1048576xf32>) outs(%y : memref<1048576xf32>) {
  ^bb0(%xi: f32, %yi: f32):
    %p = arith.mulf %a, %xi : f32
    %s = arith.addf %p, %yi : f32
    linalg.yield %s : f32
  }
  return
}
