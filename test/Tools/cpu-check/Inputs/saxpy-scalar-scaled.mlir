// examples/saxpy.mlir at 65536, scheduled by examples/recipes/saxpy-scalar.json,
// every output scaled by 1.0002 (marked PLANTED).
#map = affine_map<(d0) -> (d0 * 256)>
#map1 = affine_map<(d0) -> (d0)>
module {
  func.func @saxpy(%arg0: f32 {tirx.name = "a", tirx.value = 2.000000e+00 : f32}, %arg1: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg2: memref<65536xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
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
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c256_3, %arg10 = %c1_4, %arg11 = %c1_5) threads(%arg6, %arg7, %arg8) in (%arg12 = %c256, %arg13 = %c1_2, %arg14 = %c1_1) {
      %c0_6 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %c0_7 = arith.constant 0 : index
      %c256_8 = arith.constant 256 : index
      %0 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg1[%0] [256] [1] : memref<65536xf32> to memref<256xf32, strided<[1], offset: ?>>
      %subview_9 = memref.subview %arg2[%0] [256] [1] : memref<65536xf32> to memref<256xf32, strided<[1], offset: ?>>
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %thread_id_z = gpu.thread_id  z
      %subview_10 = memref.subview %subview[%thread_id_x] [1] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      %subview_11 = memref.subview %subview_9[%thread_id_x] [1] [1] : memref<256xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%subview_10 : memref<1xf32, strided<[1], offset: ?>>) outs(%subview_11 : memref<1xf32, strided<[1], offset: ?>>) {
      ^bb0(%in: f32, %out: f32):
        %1 = arith.mulf %arg0, %in : f32
        %2 = arith.addf %1, %out : f32
        %k = arith.constant 1.000200e+00 : f32
        %3 = arith.mulf %2, %k : f32  // PLANTED: every output 0.02% too large
        linalg.yield %3 : f32
      }
      gpu.terminator
    }
    return
  }
}
