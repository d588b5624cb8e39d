// examples/rmsnorm.mlir at 64 rows, scheduled by
// examples/recipes/rmsnorm-block.json, with one bug planted by hand: the
// first step of the warp butterfly adds the lane's partial sum to itself
// instead of the partner lane's (marked PLANTED).
#map = affine_map<(d0)[s0] -> (d0 + s0)>
#map1 = affine_map<()[s0, s1] -> (s0 + s1)>
#map2 = affine_map<(d0) -> (d0 * 4)>
module {
  func.func @rmsnorm(%arg0: memref<64x1024xf32> {llvm.align = 16 : i64, tirx.name = "x"}, %arg1: memref<64x1024xf32> {llvm.align = 16 : i64, tirx.name = "y"}) {
    %cst = arith.constant dense<9.99999997E-7> : vector<4xf32>
    %cst_0 = arith.constant dense<9.765625E-4> : vector<4xf32>
    %cst_1 = arith.constant dense<0.000000e+00> : vector<4xf32>
    %c8 = arith.constant 8 : index
    %c1_i32 = arith.constant 1 : i32
    %c2_i32 = arith.constant 2 : i32
    %c4_i32 = arith.constant 4 : i32
    %c8_i32 = arith.constant 8 : i32
    %c32_i32 = arith.constant 32 : i32
    %c16_i32 = arith.constant 16 : i32
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %cst_2 = arith.constant 0.000000e+00 : f32
    %c1_3 = arith.constant 1 : index
    %c1_4 = arith.constant 1 : index
    %c1_5 = arith.constant 1 : index
    %c256_6 = arith.constant 256 : index
    %c64 = arith.constant 64 : index
    %c1_7 = arith.constant 1 : index
    %c1_8 = arith.constant 1 : index
    %c0_9 = arith.constant 0 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c64, %arg9 = %c1_7, %arg10 = %c1_8) threads(%arg5, %arg6, %arg7) in (%arg11 = %c256_6, %arg12 = %c1_5, %arg13 = %c1_4) {
      %c0_10 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %alloc = memref.alloc() : memref<1xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      linalg.fill ins(%cst_2 : f32) outs(%alloc : memref<1xf32, #gpu.address_space<workgroup>>)
      %alloc_11 = memref.alloc() : memref<1x8xf32, #gpu.address_space<workgroup>>
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %thread_id_z = gpu.thread_id  z
      %0 = arith.remui %thread_id_x, %c32 : index
      %1 = arith.divui %thread_id_x, %c32 : index
      scf.for %arg14 = %c0 to %c1 step %c1 {
        %14 = scf.for %arg15 = %thread_id_x to %c256 step %c256 iter_args(%arg16 = %cst_1) -> (vector<4xf32>) {
          %22 = arith.muli %arg15, %c4 : index
          %23 = affine.apply #map(%arg14)[%block_id_x]
          %24 = vector.load %arg0[%23, %22] {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
          %25 = arith.mulf %24, %24 : vector<4xf32>
          %26 = arith.addf %arg16, %25 : vector<4xf32>
          scf.yield %26 : vector<4xf32>
        }
        %15 = vector.reduction <add>, %14 : vector<4xf32> into f32
        %shuffleResult, %valid = gpu.shuffle  xor %15, %c16_i32, %c32_i32 : f32
        %16 = arith.addf %15, %15 : f32  // PLANTED: the partial sum added to itself, not the other lane's
        %shuffleResult_19, %valid_20 = gpu.shuffle  xor %16, %c8_i32, %c32_i32 : f32
        %17 = arith.addf %16, %shuffleResult_19 : f32
        %shuffleResult_21, %valid_22 = gpu.shuffle  xor %17, %c4_i32, %c32_i32 : f32
        %18 = arith.addf %17, %shuffleResult_21 : f32
        %shuffleResult_23, %valid_24 = gpu.shuffle  xor %18, %c2_i32, %c32_i32 : f32
        %19 = arith.addf %18, %shuffleResult_23 : f32
        %shuffleResult_25, %valid_26 = gpu.shuffle  xor %19, %c1_i32, %c32_i32 : f32
        %20 = arith.addf %19, %shuffleResult_25 : f32
        %21 = arith.cmpi eq, %0, %c0 : index
        scf.if %21 {
          memref.store %20, %alloc_11[%arg14, %1] : memref<1x8xf32, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_12 = gpu.thread_id  x
      %thread_id_y_13 = gpu.thread_id  y
      %thread_id_z_14 = gpu.thread_id  z
      %c32_15 = arith.constant 32 : index
      %2 = arith.cmpi ult, %thread_id_x_12, %c32_15 : index
      scf.if %2 {
        scf.for %arg14 = %c0 to %c1 step %c1 {
          %14 = arith.cmpi ult, %thread_id_x_12, %c8 : index
          %15 = scf.if %14 -> (f32) {
            %22 = memref.load %alloc_11[%arg14, %thread_id_x_12] : memref<1x8xf32, #gpu.address_space<workgroup>>
            scf.yield %22 : f32
          } else {
            scf.yield %cst_2 : f32
          }
          %shuffleResult, %valid = gpu.shuffle  xor %15, %c16_i32, %c32_i32 : f32
          %16 = arith.addf %15, %shuffleResult : f32
          %shuffleResult_19, %valid_20 = gpu.shuffle  xor %16, %c8_i32, %c32_i32 : f32
          %17 = arith.addf %16, %shuffleResult_19 : f32
          %shuffleResult_21, %valid_22 = gpu.shuffle  xor %17, %c4_i32, %c32_i32 : f32
          %18 = arith.addf %17, %shuffleResult_21 : f32
          %shuffleResult_23, %valid_24 = gpu.shuffle  xor %18, %c2_i32, %c32_i32 : f32
          %19 = arith.addf %18, %shuffleResult_23 : f32
          %shuffleResult_25, %valid_26 = gpu.shuffle  xor %19, %c1_i32, %c32_i32 : f32
          %20 = arith.addf %19, %shuffleResult_25 : f32
          %21 = arith.cmpi eq, %thread_id_x_12, %c0 : index
          scf.if %21 {
            %22 = memref.load %alloc[%arg14] : memref<1xf32, #gpu.address_space<workgroup>>
            %23 = arith.addf %22, %20 : f32
            memref.store %23, %alloc[%arg14] : memref<1xf32, #gpu.address_space<workgroup>>
          }
        }
      }
      gpu.barrier
      %thread_id_x_16 = gpu.thread_id  x
      %thread_id_y_17 = gpu.thread_id  y
      %thread_id_z_18 = gpu.thread_id  z
      %3 = affine.apply #map1()[%block_id_x, %c0_9]
      %4 = affine.apply #map2(%thread_id_x_16)
      %5 = vector.load %arg0[%3, %4] {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
      %6 = memref.load %alloc[%c0_9] : memref<1xf32, #gpu.address_space<workgroup>>
      %7 = vector.broadcast %6 : f32 to vector<4xf32>
      %8 = arith.mulf %7, %cst_0 : vector<4xf32>
      %9 = arith.addf %8, %cst : vector<4xf32>
      %10 = math.rsqrt %9 : vector<4xf32>
      %11 = arith.mulf %5, %10 : vector<4xf32>
      %12 = affine.apply #map1()[%block_id_x, %c0_9]
      %13 = affine.apply #map2(%thread_id_x_16)
      vector.store %11, %arg1[%12, %13] {alignment = 16 : i64} : memref<64x1024xf32>, vector<4xf32>
      gpu.terminator
    }
    return
  }
}
