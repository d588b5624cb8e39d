// An elementwise add whose rows, a block each, are more than a grid's y
// takes (test/Harness/auto-grid-rows.test).
func.func @forward(%x: tensor<131072x1024xf32>, %y: tensor<131072x1024xf32>) -> tensor<131072x1024xf32> {
  %e = tensor.empty() : tensor<131072x1024xf32>
  %r = linalg.add ins(%x, %y : tensor<131072x1024xf32>, tensor<131072x1024xf32>) outs(%e : tensor<131072x1024xf32>) -> tensor<131072x1024xf32>
  return %r : tensor<131072x1024xf32>
}
