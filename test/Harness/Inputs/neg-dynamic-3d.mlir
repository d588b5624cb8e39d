func.func @forward(%x: tensor<?x4x256xf32>) -> tensor<?x4x256xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4x256xf32>
  %e = tensor.empty(%n) : tensor<?x4x256xf32>
  %r = linalg.negf ins(%x : tensor<?x4x256xf32>) outs(%e : tensor<?x4x256xf32>) -> tensor<?x4x256xf32>
  return %r : tensor<?x4x256xf32>
}
