// One pre-norm transformer block (single head, f32), as front ends emit it
// (torch-mlir / StableHLO -> linalg on tensors): RMSNorm, the Q/K/V
// projections, attention scores, a row softmax (max, exp, sum, divide), the
// attention-weighted values, the output projection and residual, RMSNorm,
// an MLP with SiLU, the second residual. 2048 tokens, model width 1024, MLP
// width 4096. Each fill starts the reduction or matmul that follows it.
// `tirx profile` splits it into one kernel per op (a fill goes with its
// consumer), schedules each with `tirx auto` and times each on the GPU.
#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
#c = affine_map<(i, j) -> (j)>
func.func @block(%x: tensor<2048x1024xf32>, %g1: tensor<1024xf32>, %g2: tensor<1024xf32>,
                 %wq: tensor<1024x1024xf32>, %wk: tensor<1024x1024xf32>, %wv: tensor<1024x1024xf32>, %wo: tensor<1024x1024xf32>,
                 %w1: tensor<1024x4096xf32>, %w2: tensor<4096x1024xf32>) -> tensor<2048x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inv_d = arith.constant 9.7656250000e-04 : f32
  %eps = arith.constant 1.0e-06 : f32
  %scale = arith.constant 3.1250000000e-02 : f32
  %one = arith.constant 1.0 : f32
  // RMSNorm: n1 = x / sqrt(mean(x^2) + eps) * g1
  %n1_e0 = tensor.empty() : tensor<2048xf32>
  %n1_z = linalg.fill ins(%zero : f32) outs(%n1_e0 : tensor<2048xf32>) -> tensor<2048xf32>
  %n1_ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2048x1024xf32>) outs(%n1_z : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<2048xf32>
  %n1_e1 = tensor.empty() : tensor<2048x1024xf32>
  %n1 = linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %n1_ss, %g1 : tensor<2048x1024xf32>, tensor<2048xf32>, tensor<1024xf32>) outs(%n1_e1 : tensor<2048x1024xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %mean = arith.mulf %s, %inv_d : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %n = arith.mulf %a, %inv : f32
    %y = arith.mulf %n, %w : f32
    linalg.yield %y : f32
  } -> tensor<2048x1024xf32>
  // Q, K, V projections
  %q_e = tensor.empty() : tensor<2048x1024xf32>
  %q_z = linalg.fill ins(%zero : f32) outs(%q_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %q = linalg.matmul ins(%n1, %wq : tensor<2048x1024xf32>, tensor<1024x1024xf32>) outs(%q_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %k_e = tensor.empty() : tensor<2048x1024xf32>
  %k_z = linalg.fill ins(%zero : f32) outs(%k_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %k = linalg.matmul ins(%n1, %wk : tensor<2048x1024xf32>, tensor<1024x1024xf32>) outs(%k_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %v_e = tensor.empty() : tensor<2048x1024xf32>
  %v_z = linalg.fill ins(%zero : f32) outs(%v_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %v = linalg.matmul ins(%n1, %wv : tensor<2048x1024xf32>, tensor<1024x1024xf32>) outs(%v_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  // scores = Q K^T
  %kt_e = tensor.empty() : tensor<1024x2048xf32>
  %kt = linalg.transpose ins(%k : tensor<2048x1024xf32>) outs(%kt_e : tensor<1024x2048xf32>) permutation = [1, 0]
  %sc_e = tensor.empty() : tensor<2048x2048xf32>
  %sc_z = linalg.fill ins(%zero : f32) outs(%sc_e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %sc = linalg.matmul ins(%q, %kt : tensor<2048x1024xf32>, tensor<1024x2048xf32>) outs(%sc_z : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  // softmax over rows of scores / sqrt(D)
  %mx_e = tensor.empty() : tensor<2048xf32>
  %mx_z = linalg.fill ins(%ninf : f32) outs(%mx_e : tensor<2048xf32>) -> tensor<2048xf32>
  %mx = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%sc : tensor<2048x2048xf32>) outs(%mx_z : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<2048xf32>
  %ex_e = tensor.empty() : tensor<2048x2048xf32>
  %ex = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%sc, %mx : tensor<2048x2048xf32>, tensor<2048xf32>) outs(%ex_e : tensor<2048x2048xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %s = arith.mulf %d, %scale : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  } -> tensor<2048x2048xf32>
  %sm_e = tensor.empty() : tensor<2048xf32>
  %sm_z = linalg.fill ins(%zero : f32) outs(%sm_e : tensor<2048xf32>) -> tensor<2048xf32>
  %sm = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<2048x2048xf32>) outs(%sm_z : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  %pr_e = tensor.empty() : tensor<2048x2048xf32>
  %pr = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sm : tensor<2048x2048xf32>, tensor<2048xf32>) outs(%pr_e : tensor<2048x2048xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %y = arith.divf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<2048x2048xf32>
  // attention output, projection, residual
  %att_e = tensor.empty() : tensor<2048x1024xf32>
  %att_z = linalg.fill ins(%zero : f32) outs(%att_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %att = linalg.matmul ins(%pr, %v : tensor<2048x2048xf32>, tensor<2048x1024xf32>) outs(%att_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %proj_e = tensor.empty() : tensor<2048x1024xf32>
  %proj_z = linalg.fill ins(%zero : f32) outs(%proj_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %proj = linalg.matmul ins(%att, %wo : tensor<2048x1024xf32>, tensor<1024x1024xf32>) outs(%proj_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %h_e = tensor.empty() : tensor<2048x1024xf32>
  %h = linalg.generic {indexing_maps = [#x, #x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%x, %proj : tensor<2048x1024xf32>, tensor<2048x1024xf32>) outs(%h_e : tensor<2048x1024xf32>) {
  ^bb0(%l: f32, %rr: f32, %o: f32):
    %s = arith.addf %l, %rr : f32
    linalg.yield %s : f32
  } -> tensor<2048x1024xf32>
  // RMSNorm: n2 = h / sqrt(mean(h^2) + eps) * g2
  %n2_e0 = tensor.empty() : tensor<2048xf32>
  %n2_z = linalg.fill ins(%zero : f32) outs(%n2_e0 : tensor<2048xf32>) -> tensor<2048xf32>
  %n2_ss = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%h : tensor<2048x1024xf32>) outs(%n2_z : tensor<2048xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<2048xf32>
  %n2_e1 = tensor.empty() : tensor<2048x1024xf32>
  %n2 = linalg.generic {indexing_maps = [#x, #r, #c, #x], iterator_types = ["parallel", "parallel"]}
      ins(%h, %n2_ss, %g2 : tensor<2048x1024xf32>, tensor<2048xf32>, tensor<1024xf32>) outs(%n2_e1 : tensor<2048x1024xf32>) {
  ^bb0(%a: f32, %s: f32, %w: f32, %o: f32):
    %mean = arith.mulf %s, %inv_d : f32
    %m = arith.addf %mean, %eps : f32
    %inv = math.rsqrt %m : f32
    %n = arith.mulf %a, %inv : f32
    %y = arith.mulf %n, %w : f32
    linalg.yield %y : f32
  } -> tensor<2048x1024xf32>
  // MLP: SiLU(n2 W1) W2, residual
  %up_e = tensor.empty() : tensor<2048x4096xf32>
  %up_z = linalg.fill ins(%zero : f32) outs(%up_e : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %up = linalg.matmul ins(%n2, %w1 : tensor<2048x1024xf32>, tensor<1024x4096xf32>) outs(%up_z : tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %act_e = tensor.empty() : tensor<2048x4096xf32>
  %act = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%up : tensor<2048x4096xf32>) outs(%act_e : tensor<2048x4096xf32>) {
  ^bb0(%u: f32, %o: f32):
    %nu = arith.negf %u : f32
    %en = math.exp %nu : f32
    %den = arith.addf %en, %one : f32
    %y = arith.divf %u, %den : f32
    linalg.yield %y : f32
  } -> tensor<2048x4096xf32>
  %down_e = tensor.empty() : tensor<2048x1024xf32>
  %down_z = linalg.fill ins(%zero : f32) outs(%down_e : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %down = linalg.matmul ins(%act, %w2 : tensor<2048x4096xf32>, tensor<4096x1024xf32>) outs(%down_z : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
  %out_e = tensor.empty() : tensor<2048x1024xf32>
  %out = linalg.generic {indexing_maps = [#x, #x, #x], iterator_types = ["parallel", "parallel"]}
      ins(%h, %down : tensor<2048x1024xf32>, tensor<2048x1024xf32>) outs(%out_e : tensor<2048x1024xf32>) {
  ^bb0(%l: f32, %rr: f32, %o: f32):
    %s = arith.addf %l, %rr : f32
    linalg.yield %s : f32
  } -> tensor<2048x1024xf32>
  return %out : tensor<2048x1024xf32>
}
