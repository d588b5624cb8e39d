// examples/matmul.mlir at 64x64, scheduled by examples/recipes/matmul-mma.json
// (tirx show of the recipe's last version), with one bug planted by hand: the
// A fragment of mma.sync packed as (a0, a2, a1, a3), i.e. rows g + 8 and
// columns t + 4 exchanged; what a wrong A-fragment index in use_mma gives.
#map = affine_map<(d0) -> (d0 * 32)>
#map1 = affine_map<()[s0, s1, s2] -> (s0 + s1 * 128 + s2 * 128)>
#map2 = affine_map<()[s0, s1, s2] -> (s1 * 4 + s2 * 4 + s0 floordiv 32)>
#map3 = affine_map<()[s0] -> ((s0 floordiv 32) mod 2)>
#map4 = affine_map<()[s0, s1, s2] -> (s1 * 2 + s2 * 2 + (s0 floordiv 32) floordiv 2)>
module {
  func.func @matmul(%arg0: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "A"}, %arg1: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "B"}, %arg2: memref<64x64xf32> {llvm.align = 16 : i64, tirx.name = "C"}) {
    %c64_i64 = arith.constant 64 : i64
    %c32_i64 = arith.constant 32 : i64
    %c2_i64 = arith.constant 2 : i64
    %c64_i64_0 = arith.constant 64 : i64
    %c32_i64_1 = arith.constant 32 : i64
    %c2_i64_2 = arith.constant 2 : i64
    %c1 = arith.constant 1 : index
    %c1_3 = arith.constant 1 : index
    %c1_4 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c2 = arith.constant 2 : index
    %c2_5 = arith.constant 2 : index
    %c1_6 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    gpu.launch blocks(%arg3, %arg4, %arg5) in (%arg9 = %c2, %arg10 = %c2_5, %arg11 = %c1_6) threads(%arg6, %arg7, %arg8) in (%arg12 = %c128, %arg13 = %c1_4, %arg14 = %c1_3) {
      %c0_7 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %c0_8 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %0 = affine.apply #map(%block_id_y)
      %c0_9 = arith.constant 0 : index
      %c32_10 = arith.constant 32 : index
      %1 = affine.apply #map(%block_id_x)
      %subview = memref.subview %arg0[%0, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
      %subview_11 = memref.subview %arg1[0, %1] [64, 32] [1, 1] : memref<64x64xf32> to memref<64x32xf32, strided<[64, 1], offset: ?>>
      %subview_12 = memref.subview %arg2[%0, %1] [32, 32] [1, 1] : memref<64x64xf32> to memref<32x32xf32, strided<[64, 1], offset: ?>>
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %thread_id_z = gpu.thread_id  z
      %2 = affine.apply #map1()[%thread_id_x, %c0, %c0]
      %3 = affine.apply #map2()[%thread_id_x, %c0, %c0]
      %4 = affine.apply #map3()[%thread_id_x]
      %5 = affine.apply #map4()[%thread_id_x, %c0, %c0]
      %c0_13 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c9 = arith.constant 9 : index
      %c8 = arith.constant 8 : index
      %c1_14 = arith.constant 1 : index
      %c2_15 = arith.constant 2 : index
      %c16 = arith.constant 16 : index
      %c4 = arith.constant 4 : index
      %6 = gpu.lane_id upper_bound 32
      %7 = arith.divui %6, %c4 : index
      %8 = arith.remui %6, %c4 : index
      %9 = arith.muli %5, %c16 : index
      %10 = arith.addi %9, %7 : index
      %11 = arith.muli %4, %c16 : index
      %12 = arith.muli %8, %c2_15 : index
      %13 = arith.addi %11, %12 : index
      %14 = arith.addi %11, %7 : index
      %15 = memref.load %subview_12[%10, %13] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %16 = arith.addi %13, %c1_14 : index
      %17 = memref.load %subview_12[%10, %16] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %18 = arith.addi %10, %c8 : index
      %19 = memref.load %subview_12[%18, %13] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %20 = arith.addi %10, %c8 : index
      %21 = arith.addi %13, %c1_14 : index
      %22 = memref.load %subview_12[%20, %21] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %23 = vector.from_elements %15, %17, %19, %22 : vector<2x2xf32>
      %24 = arith.addi %13, %c8 : index
      %25 = memref.load %subview_12[%10, %24] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %26 = arith.addi %13, %c9 : index
      %27 = memref.load %subview_12[%10, %26] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %28 = arith.addi %10, %c8 : index
      %29 = arith.addi %13, %c8 : index
      %30 = memref.load %subview_12[%28, %29] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %31 = arith.addi %10, %c8 : index
      %32 = arith.addi %13, %c9 : index
      %33 = memref.load %subview_12[%31, %32] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %34 = vector.from_elements %25, %27, %30, %33 : vector<2x2xf32>
      %35:2 = scf.for %arg15 = %c0_13 to %c64 step %c8 iter_args(%arg16 = %23, %arg17 = %34) -> (vector<2x2xf32>, vector<2x2xf32>) {
        %54 = arith.addi %arg15, %8 : index
        %55 = arith.addi %10, %c8 : index
        %56 = arith.addi %54, %c4 : index
        %57 = memref.load %subview[%10, %54] : memref<32x64xf32, strided<[64, 1], offset: ?>>
        %58 = memref.load %subview[%55, %54] : memref<32x64xf32, strided<[64, 1], offset: ?>>
        %59 = memref.load %subview[%10, %56] : memref<32x64xf32, strided<[64, 1], offset: ?>>
        %60 = memref.load %subview[%55, %56] : memref<32x64xf32, strided<[64, 1], offset: ?>>
        %61 = vector.from_elements %57, %59, %58, %60 : vector<4x1xf32>  // PLANTED: a1 and a2 exchanged
        %62 = memref.load %subview_11[%54, %14] : memref<64x32xf32, strided<[64, 1], offset: ?>>
        %63 = arith.addi %54, %c4 : index
        %64 = memref.load %subview_11[%63, %14] : memref<64x32xf32, strided<[64, 1], offset: ?>>
        %65 = vector.from_elements %62, %64 : vector<2x1xf32>
        %66 = arith.addi %14, %c8 : index
        %67 = memref.load %subview_11[%54, %66] : memref<64x32xf32, strided<[64, 1], offset: ?>>
        %68 = arith.addi %54, %c4 : index
        %69 = memref.load %subview_11[%68, %66] : memref<64x32xf32, strided<[64, 1], offset: ?>>
        %70 = vector.from_elements %67, %69 : vector<2x1xf32>
        %71 = nvgpu.mma.sync(%61, %65, %arg16) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
        %72 = nvgpu.mma.sync(%61, %70, %arg17) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
        scf.yield %71, %72 : vector<2x2xf32>, vector<2x2xf32>
      }
      %36 = vector.extract %35#0[0, 0] : f32 from vector<2x2xf32>
      memref.store %36, %subview_12[%10, %13] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %37 = arith.addi %13, %c1_14 : index
      %38 = vector.extract %35#0[0, 1] : f32 from vector<2x2xf32>
      memref.store %38, %subview_12[%10, %37] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %39 = arith.addi %10, %c8 : index
      %40 = vector.extract %35#0[1, 0] : f32 from vector<2x2xf32>
      memref.store %40, %subview_12[%39, %13] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %41 = arith.addi %10, %c8 : index
      %42 = arith.addi %13, %c1_14 : index
      %43 = vector.extract %35#0[1, 1] : f32 from vector<2x2xf32>
      memref.store %43, %subview_12[%41, %42] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %44 = arith.addi %13, %c8 : index
      %45 = vector.extract %35#1[0, 0] : f32 from vector<2x2xf32>
      memref.store %45, %subview_12[%10, %44] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %46 = arith.addi %13, %c9 : index
      %47 = vector.extract %35#1[0, 1] : f32 from vector<2x2xf32>
      memref.store %47, %subview_12[%10, %46] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %48 = arith.addi %10, %c8 : index
      %49 = arith.addi %13, %c8 : index
      %50 = vector.extract %35#1[1, 0] : f32 from vector<2x2xf32>
      memref.store %50, %subview_12[%48, %49] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      %51 = arith.addi %10, %c8 : index
      %52 = arith.addi %13, %c9 : index
      %53 = vector.extract %35#1[1, 1] : f32 from vector<2x2xf32>
      memref.store %53, %subview_12[%51, %52] : memref<32x32xf32, strided<[64, 1], offset: ?>>
      gpu.terminator
    }
    return
  }
}
