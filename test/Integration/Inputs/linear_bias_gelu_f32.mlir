// Y = GELU(A x W^T + bias), f32 A and W 4096 x 4096 (W held as (n, k), an
// nn.Linear's weight), bias f32 4096 (one per column), Y f32: the linear
// layer + GELU of examples/matmul_bias_gelu_bf16.mlir in f32, its products
// on tensor cores in tf32 (use_wgmma with a K-major W) and the bias and the
// exact GELU in the register epilogue, one kernel, by the same recipe
// (examples/recipes/matmul_bias_gelu_bf16-wgmma.json).
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @linear_bias_gelu_f32(
    %A: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "A"},
    %W: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "W"},
    %bias: memref<4096xf32> {llvm.align = 16 : i64, tirx.name = "bias"},
    %Y: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "Y"}) {
  %zero = arith.constant 0.0 : f32
  %sums = memref.alloc() : memref<4096x4096xf32>
  linalg.fill ins(%zero : f32) outs(%sums : memref<4096x4096xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<4096x4096xf32>, memref<4096x4096xf32>)
                outs(%sums : memref<4096x4096xf32>)
  linalg.generic {indexing_maps = [#mn, #n, #mn],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sums, %bias : memref<4096x4096xf32>, memref<4096xf32>)
      outs(%Y : memref<4096x4096xf32>) {
  ^bb0(%s: f32, %b: f32, %y: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106781186547524 : f32
    %x = arith.addf %s, %b : f32
    %u = arith.mulf %x, %rsqrt2 : f32
    %e = math.erf %u : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %x, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  }
  memref.dealloc %sums : memref<4096x4096xf32>
  return
}
