// bf16 x bf16 -> f32 with A a strided view (rows 512 apart): no TMA tensor
// map for it (use_wgmma: not_a_tile).
func.func @strided(%A: memref<256x256xbf16, strided<[512, 1]>> {tirx.name = "A"},
                   %B: memref<256x256xbf16> {llvm.align = 16 : i64, tirx.name = "B"},
                   %C: memref<256x256xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
  linalg.matmul ins(%A, %B : memref<256x256xbf16, strided<[512, 1]>>, memref<256x256xbf16>)
                outs(%C : memref<256x256xf32>)
  return
}
