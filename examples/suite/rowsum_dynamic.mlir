// torch: x.sum(dim=1) with a dynamic batch (rows), f32 [?, 8192];
// benchmarked at [8192, 8192].
func.func @forward(%x: tensor<?x8192xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x8192xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.reduce ins(%x : tensor<?x8192xf32>) outs(%init : tensor<?xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<?xf32>
}
