// Inputs/rowsum-f64.mlir scheduled by Inputs/rowsum-f64-tree.json (f64: the
// shared-memory tree, not shuffles), with one bug planted by hand: the first
// tree step adds a partial sum to itself instead of its partner's (marked
// PLANTED).
#map = affine_map<(d0, d1) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @rowsum(%arg0: memref<4x1024xf64> {llvm.align = 16 : i64, tirx.name = "x"}, %arg1: memref<4xf64> {llvm.align = 16 : i64, tirx.name = "s"}) {
    %c1 = arith.constant 1 : index
    %c1_0 = arith.constant 1 : index
    %c1_1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : index
    %c1_2 = arith.constant 1 : index
    %c1_3 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c4, %arg9 = %c1_2, %arg10 = %c1_3) threads(%arg5, %arg6, %arg7) in (%arg11 = %c256, %arg12 = %c1_1, %arg13 = %c1_0) {
      %c0_4 = arith.constant 0 : index
      %block_id_x = gpu.block_id  x
      %block_id_y = gpu.block_id  y
      %block_id_z = gpu.block_id  z
      %subview = memref.subview %arg0[%block_id_x, 0] [1, 1024] [1, 1] : memref<4x1024xf64> to memref<1x1024xf64, strided<[1024, 1], offset: ?>>
      %subview_5 = memref.subview %arg1[%block_id_x] [1] [1] : memref<4xf64> to memref<1xf64, strided<[1], offset: ?>>
      %alloc = memref.alloc() : memref<1x256xf64, #gpu.address_space<workgroup>>
      %thread_id_x = gpu.thread_id  x
      %thread_id_y = gpu.thread_id  y
      %thread_id_z = gpu.thread_id  z
      %c1_6 = arith.constant 1 : index
      %c1_7 = arith.constant 1 : index
      %c0_8 = arith.constant 0 : index
      scf.for %arg14 = %c0_8 to %c1_7 step %c1_6 {
        %cst = arith.constant 0.000000e+00 : f64
        %c256_39 = arith.constant 256 : index
        %c1024 = arith.constant 1024 : index
        %9 = scf.for %arg15 = %thread_id_x to %c1024 step %c256_39 iter_args(%arg16 = %cst) -> (f64) {
          %10 = affine.apply #map(%arg14, %arg15)
          %11 = affine.apply #map1(%arg14, %arg15)
          %12 = memref.load %subview[%10, %11] : memref<1x1024xf64, strided<[1024, 1], offset: ?>>
          %13 = arith.addf %arg16, %12 : f64
          scf.yield %13 : f64
        }
        memref.store %9, %alloc[%arg14, %thread_id_x] : memref<1x256xf64, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %thread_id_x_9 = gpu.thread_id  x
      %thread_id_y_10 = gpu.thread_id  y
      %thread_id_z_11 = gpu.thread_id  z
      %c128 = arith.constant 128 : index
      %0 = arith.cmpi ult, %thread_id_x_9, %c128 : index
      scf.if %0 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c128_42 = arith.constant 128 : index
          %9 = arith.addi %thread_id_x_9, %c128_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %10 : f64  // PLANTED: the partial sum added to itself
          memref.store %12, %alloc[%arg14, %thread_id_x_9] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_12 = gpu.thread_id  x
      %thread_id_y_13 = gpu.thread_id  y
      %thread_id_z_14 = gpu.thread_id  z
      %c64 = arith.constant 64 : index
      %1 = arith.cmpi ult, %thread_id_x_12, %c64 : index
      scf.if %1 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c64_42 = arith.constant 64 : index
          %9 = arith.addi %thread_id_x_12, %c64_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_12] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_12] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_15 = gpu.thread_id  x
      %thread_id_y_16 = gpu.thread_id  y
      %thread_id_z_17 = gpu.thread_id  z
      %c32 = arith.constant 32 : index
      %2 = arith.cmpi ult, %thread_id_x_15, %c32 : index
      scf.if %2 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c32_42 = arith.constant 32 : index
          %9 = arith.addi %thread_id_x_15, %c32_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_15] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_15] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_18 = gpu.thread_id  x
      %thread_id_y_19 = gpu.thread_id  y
      %thread_id_z_20 = gpu.thread_id  z
      %c16 = arith.constant 16 : index
      %3 = arith.cmpi ult, %thread_id_x_18, %c16 : index
      scf.if %3 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c16_42 = arith.constant 16 : index
          %9 = arith.addi %thread_id_x_18, %c16_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_18] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_18] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_21 = gpu.thread_id  x
      %thread_id_y_22 = gpu.thread_id  y
      %thread_id_z_23 = gpu.thread_id  z
      %c8 = arith.constant 8 : index
      %4 = arith.cmpi ult, %thread_id_x_21, %c8 : index
      scf.if %4 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c8_42 = arith.constant 8 : index
          %9 = arith.addi %thread_id_x_21, %c8_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_21] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_21] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_24 = gpu.thread_id  x
      %thread_id_y_25 = gpu.thread_id  y
      %thread_id_z_26 = gpu.thread_id  z
      %c4_27 = arith.constant 4 : index
      %5 = arith.cmpi ult, %thread_id_x_24, %c4_27 : index
      scf.if %5 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c4_42 = arith.constant 4 : index
          %9 = arith.addi %thread_id_x_24, %c4_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_24] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_24] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_28 = gpu.thread_id  x
      %thread_id_y_29 = gpu.thread_id  y
      %thread_id_z_30 = gpu.thread_id  z
      %c2 = arith.constant 2 : index
      %6 = arith.cmpi ult, %thread_id_x_28, %c2 : index
      scf.if %6 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c2_42 = arith.constant 2 : index
          %9 = arith.addi %thread_id_x_28, %c2_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_28] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_28] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_31 = gpu.thread_id  x
      %thread_id_y_32 = gpu.thread_id  y
      %thread_id_z_33 = gpu.thread_id  z
      %c1_34 = arith.constant 1 : index
      %7 = arith.cmpi ult, %thread_id_x_31, %c1_34 : index
      scf.if %7 {
        %c1_39 = arith.constant 1 : index
        %c1_40 = arith.constant 1 : index
        %c0_41 = arith.constant 0 : index
        scf.for %arg14 = %c0_41 to %c1_40 step %c1_39 {
          %c1_42 = arith.constant 1 : index
          %9 = arith.addi %thread_id_x_31, %c1_42 : index
          %10 = memref.load %alloc[%arg14, %thread_id_x_31] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %11 = memref.load %alloc[%arg14, %9] : memref<1x256xf64, #gpu.address_space<workgroup>>
          %12 = arith.addf %10, %11 : f64
          memref.store %12, %alloc[%arg14, %thread_id_x_31] : memref<1x256xf64, #gpu.address_space<workgroup>>
        }
      }
      gpu.barrier
      %thread_id_x_35 = gpu.thread_id  x
      %thread_id_y_36 = gpu.thread_id  y
      %thread_id_z_37 = gpu.thread_id  z
      %c1_38 = arith.constant 1 : index
      %8 = arith.cmpi ult, %thread_id_x_35, %c1_38 : index
      scf.if %8 {
        %c0_39 = arith.constant 0 : index
        %9 = memref.load %alloc[%thread_id_x_35, %c0_39] : memref<1x256xf64, #gpu.address_space<workgroup>>
        %c0_40 = arith.constant 0 : index
        %10 = affine.apply #map(%thread_id_x_35, %c0_40)
        %11 = memref.load %subview_5[%10] : memref<1xf64, strided<[1], offset: ?>>
        %12 = arith.addf %11, %9 : f64
        memref.store %12, %subview_5[%10] : memref<1xf64, strided<[1], offset: ?>>
      }
      gpu.terminator
    }
    return
  }
}
