// torch: torch.softmax(x, dim=1), f32 [8192, 8192], as torch-mlir
// decomposes it: the row max, exp(x - max), the row sum, the division.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @forward(%x: tensor<8192x8192xf32>) -> tensor<8192x8192xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8192xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8192xf32>) -> tensor<8192xf32>
  %max = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8192x8192xf32>) outs(%mi : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8192xf32>
  %e2 = tensor.empty() : tensor<8192x8192xf32>
  %ex = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<8192x8192xf32>, tensor<8192xf32>) outs(%e2 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = math.exp %d : f32
    linalg.yield %v : f32
  } -> tensor<8192x8192xf32>
  %e3 = tensor.empty() : tensor<8192xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8192xf32>) -> tensor<8192xf32>
  %sum = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<8192x8192xf32>) outs(%si : tensor<8192xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  %e4 = tensor.empty() : tensor<8192x8192xf32>
  %y = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<8192x8192xf32>, tensor<8192xf32>) outs(%e4 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %v = arith.divf %a, %s : f32
    linalg.yield %v : f32
  } -> tensor<8192x8192xf32>
  return %y : tensor<8192x8192xf32>
}
