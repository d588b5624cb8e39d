// torch: c.addmm_(a, b) (C += A @ B), f32 4096^3 into a caller-initialized
// output (buffers).
func.func @matmul_acc(%a: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "A"},
                      %b: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "B"},
                      %c: memref<4096x4096xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%a, %b : memref<4096x4096xf32>, memref<4096x4096xf32>) outs(%c : memref<4096x4096xf32>)
  return
}
