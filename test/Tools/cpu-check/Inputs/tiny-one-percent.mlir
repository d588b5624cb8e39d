// Inputs/tiny.mlir scheduled by examples/recipes/saxpy-scalar.json, every
// output 1% too large (marked PLANTED): within atol element by element.
#map = affine_map<(d0) -> (d0 * 256)>
#map1 = affine_map<(d0) -> (d0)>
module {
  func.func @tiny(%arg0: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg1: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
    %c65536_i64 = arith.constant 65536 : i64
    %c256_i64 = arith.constant 256 : i64
    %c256_i64_0 = arith.constant 256 : i64
    %c1 = arith.constant 1 : index
    %c1_1 = arith.constant 1 : index
    %c1_2 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c256_3 = arith.constant 256 : index
    %c1_4 = arith.constant 1 : index
    %c1_5 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c256_3, %arg9 = %c1_4, %arg10 = %c1_5) threads(%arg5, %arg6, %arg7) in (%arg11 = %c256, %arg12 = %c1_2, %arg13 = %c1_1) {
      %c0_6 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %c0_7 = arith.constant 0 : index
      %c256_8 = arith.constant 256 : index
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg0[%0] [256] [1] : memref<65536xf32> to memref<256xf32, strided<[1], offset: ?>>
      %subview_9 = memref.subview %arg1[%0] [256] [1] : memref<65536xf32> to memref<256xf32, strided<[1], offset: ?>>
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %thread_id_z = gpu.thread_id  z
      %subview_10 = memref.subview %subview[%thread_id_x] [1] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      %subview_11 = memref.subview %subview_9[%thread_id_x] [1] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%subview_10 : memref<1xf32, strided<[1], offset: ?>>) outs(%subview_11 : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %cst = arith.constant 1.010000e-06 : f32  // PLANTED: 1% too large
        %1 = arith.mulf %in, %cst : f32
        linalg.yield %1 : f32
      }
      gpu.terminator
    }
    return
  }
}
