// Every workgroup buffer of a kernel gets a 16-byte alignment (ldmatrix
// and cp.async need 16-byte aligned rows); an alignment already given is
// kept.
// RUN: tirx-opt %s --tirx-align-workgroup-buffers | FileCheck %s

// CHECK-LABEL: gpu.func @k
// CHECK-SAME: workgroup(%{{.*}} : memref<32x40xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64})
gpu.module @m {
  gpu.func @k() workgroup(%s : memref<32x40xbf16, #gpu.address_space<workgroup>>, %t : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64}) kernel {
    gpu.return
  }
}
