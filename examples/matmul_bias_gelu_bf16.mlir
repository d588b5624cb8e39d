// Y = GELU(A x B + bias), A and B bf16 4096 x 4096, bias f32 4096 (one per
// column), Y f32: the products on tensor cores with f32 sums, then the
// exact GELU, x/2 (1 + erf(x / sqrt 2)) (math.erf: libdevice's erff on the
// GPU). torch: F.gelu(torch.mm(A, B, out_dtype=torch.float32) + bias), up
// to the order of the sums. The sums go through an intermediate buffer the
// function allocates, so that fuse_into may move the matmul into the
// epilogue's blocks (examples/recipes/matmul_bias_gelu_bf16-wgmma.json).
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @matmul_bias_gelu_bf16(
    %A: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "A"},
    %B: memref<4096x4096xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
    %bias: memref<4096xf32> {llvm.align = 16 : i64, tirx.name = "bias"},
    %Y: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "Y"}) {
  %zero = arith.constant 0.0 : f32
  %sums = memref.alloc() : memref<4096x4096xf32>
  linalg.fill ins(%zero : f32) outs(%sums : memref<4096x4096xf32>)
  linalg.matmul ins(%A, %B : memref<4096x4096xbf16>, memref<4096x4096xbf16>)
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
