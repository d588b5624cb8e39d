// Every shared buffer of a kernel aligned to at least 16 bytes: a row staged
// in shared memory after a 4-byte scalar and read 4-wide faulted with
// CUDA_ERROR_MISALIGNED_ADDRESS on the H200 (the softmax-block recipe).
// RUN: tirx-opt %s --tirx-align-workgroup-buffers | FileCheck %s

// CHECK-LABEL: gpu.func @k
// CHECK-SAME: workgroup(%{{.*}} : memref<1xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
// CHECK-SAME: %{{.*}} : memref<8192xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
// CHECK-SAME: %{{.*}} : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
gpu.module @m {
  gpu.func @k(%out: memref<8192xf32>)
      workgroup(%s : memref<1xf32, #gpu.address_space<workgroup>>,
                %row : memref<8192xf32, #gpu.address_space<workgroup>>,
                %tile : memref<64xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
      kernel {
    gpu.return
  }
}
