// torch: torch.max(x, dim=1) (values and indices), f32 [4096, 1024]: one
// linalg.generic with two outputs (the running max and its i64 index, the
// first of equal maxima), as torch-mlir writes aten.max.dim.
func.func @forward(%x: tensor<4096x1024xf32>) -> (tensor<4096xf32>, tensor<4096xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4096xf32>
  %ei = tensor.empty() : tensor<4096xi64>
  %fv = linalg.fill ins(%ninf : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %fi = linalg.fill ins(%c0 : i64) outs(%ei : tensor<4096xi64>) -> tensor<4096xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4096x1024xf32>) outs(%fv, %fi : tensor<4096xf32>, tensor<4096xi64>) {
  ^bb0(%a: f32, %m: f32, %i: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %m : f32
    %nm = arith.select %gt, %a, %m : f32
    %ni = arith.select %gt, %ji, %i : i64
    linalg.yield %nm, %ni : f32, i64
  } -> (tensor<4096xf32>, tensor<4096xi64>)
  return %r#0, %r#1 : tensor<4096xf32>, tensor<4096xi64>
}
