// A row sum into a fresh output whose zeros are also copied out before the
// reduction: the fill is not the reduction's alone (auto.test).
func.func @rowsum_fill_read(%x: memref<1024x1024xf32>, %s: memref<1024xf32>,
                            %c: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<1024xf32>)
  memref.copy %s, %c : memref<1024xf32> to memref<1024xf32>
  linalg.reduce ins(%x : memref<1024x1024xf32>) outs(%s : memref<1024xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return
}
