// RUN: tirx-opt %s --tirx-prove-vector-alignment -split-input-file | FileCheck %s

// Base aligned to 16 by the argument attribute, index a multiple of 4 f32:
// 16 bytes proven.
// CHECK-LABEL: func.func @aligned
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
#times4 = affine_map<()[s0, s1] -> (s0 * 4 + s1 * 256)>
func.func @aligned(%m: memref<1024xf32> {llvm.align = 16 : i64}) {
  %tid = gpu.thread_id x
  %bid = gpu.block_id x
  %i = affine.apply #times4()[%tid, %bid]
  %v = vector.load %m[%i] : memref<1024xf32>, vector<4xf32>
  vector.store %v, %m[%i] : memref<1024xf32>, vector<4xf32>
  return
}

// -----

// Nothing known of the base: nothing set.
// CHECK-LABEL: func.func @unknown_base
// CHECK: vector.load %{{.*}} : memref<1024xf32>, vector<4xf32>
// CHECK-NOT: alignment
func.func @unknown_base(%m: memref<1024xf32>) {
  %tid = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %i = arith.muli %tid, %c4 : index
  %v = vector.load %m[%i] : memref<1024xf32>, vector<4xf32>
  return
}

// -----

// Index tid * 2: only 8 bytes proven.
// CHECK-LABEL: func.func @half
// CHECK: vector.load %{{.*}} {alignment = 8 : i64}
func.func @half(%m: memref<1024xf32> {llvm.align = 256 : i64}) {
  %tid = gpu.thread_id x
  %c2 = arith.constant 2 : index
  %i = arith.muli %tid, %c2 : index
  %v = vector.load %m[%i] : memref<1024xf32>, vector<4xf32>
  return
}

// -----

// Index tid + 1: element alignment only, nothing set.
// CHECK-LABEL: func.func @odd
// CHECK-NOT: alignment
func.func @odd(%m: memref<1024xf32> {llvm.align = 256 : i64}) {
  %tid = gpu.thread_id x
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %t = arith.muli %tid, %c4 : index
  %i = arith.addi %t, %c1 : index
  %v = vector.load %m[%i] : memref<1024xf32>, vector<4xf32>
  return
}

// -----

// 2-D: row stride 1026 (2 mod 4) spoils the row term.
// CHECK-LABEL: func.func @rows
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<8x1026xf32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<8x1024xf32>
func.func @rows(%m: memref<8x1026xf32> {llvm.align = 64 : i64},
                %n: memref<8x1024xf32> {llvm.align = 64 : i64}, %r: index) {
  %c8 = arith.constant 8 : index
  %v = vector.load %m[%r, %c8] : memref<8x1026xf32>, vector<4xf32>
  %w = vector.load %n[%r, %c8] : memref<8x1024xf32>, vector<4xf32>
  return
}

// -----

// assume_alignment and loop induction variables with a step of 4.
// CHECK-LABEL: func.func @assumed
// CHECK: vector.load %{{.*}} {alignment = 16 : i64}
func.func @assumed(%m: memref<1024xf32>) {
  %a = memref.assume_alignment %m, 32 : memref<1024xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c1024 step %c4 {
    %v = vector.load %a[%i] : memref<1024xf32>, vector<4xf32>
  }
  return
}

// -----

// An author's alignment is never changed.
// CHECK-LABEL: func.func @kept
// CHECK: vector.load %{{.*}} {alignment = 4 : i64}
func.func @kept(%m: memref<1024xf32> {llvm.align = 16 : i64}) {
  %c0 = arith.constant 0 : index
  %v = vector.load %m[%c0] {alignment = 4 : i64} : memref<1024xf32>, vector<4xf32>
  return
}

// -----

// cp.async of 16 bytes between a 16-byte aligned argument and a 16-byte
// aligned shared buffer, at offsets that are multiples of 8 bf16: kept.
// CHECK-LABEL: func.func @async_aligned
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: vector.load
func.func @async_aligned(%m: memref<64x64xbf16> {llvm.align = 16 : i64}, %i: index) {
  %s = memref.alloc() {alignment = 16 : i64} : memref<32x40xbf16, #gpu.address_space<workgroup>>
  %c8 = arith.constant 8 : index
  %j = arith.muli %i, %c8 : index
  %t = nvgpu.device_async_copy %m[%i, %j], %s[%i, %j], 8 {bypassL1} : memref<64x64xbf16> to memref<32x40xbf16, #gpu.address_space<workgroup>>
  nvvm.cp.async.commit.group
  return
}

// -----

// The same with a column not known to be a multiple of 8 (and a shared
// buffer of no known alignment): the copy is done now, by a vector load and
// store, and leaves the group that named it.
// CHECK-LABEL: func.func @async_unproven
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<64x64xbf16>, vector<8xbf16>
// CHECK: vector.store %[[V]], %{{.*}} : memref<32x40xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: nvgpu.device_async_create_group{{ *$}}
func.func @async_unproven(%m: memref<64x64xbf16> {llvm.align = 16 : i64}, %i: index) {
  %s = memref.alloc() : memref<32x40xbf16, #gpu.address_space<workgroup>>
  %t = nvgpu.device_async_copy %m[%i, %i], %s[%i, %i], 8 : memref<64x64xbf16> to memref<32x40xbf16, #gpu.address_space<workgroup>>
  %g = nvgpu.device_async_create_group %t
  nvgpu.device_async_wait %g
  return
}
