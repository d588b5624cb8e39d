// A block's copy between barriers is split among its threads: thread t of
// T copies elements t, t + T, ... Copies that are not provably uniform and
// fenced stay whole.
// RUN: tirx-opt %s -split-input-file --tirx-distribute-copies | FileCheck %s
// Every access of the split copies is proven in bounds.
// RUN: tirx-opt %s -split-input-file --tirx-distribute-copies --tirx-check-bounds > /dev/null

// 512 elements, 128 threads, rows of 32 contiguous floats: 4-wide vectors,
// one round; thread t copies floats 4t to 4t + 3, i.e. row t / 8, columns
// from 4 (t mod 8).
// CHECK-LABEL: func.func @staged
//       CHECK:   gpu.barrier
//       CHECK:   %[[ZY:.*]] = arith.addi %[[TY:.*]], %{{.*}} : index
//       CHECK:   %[[ZYX:.*]] = arith.muli %[[ZY]], %c32
//       CHECK:   %[[T:.*]] = arith.addi %[[TX:.*]], %[[ZYX]] : index
//       CHECK:   scf.for %[[R:.*]] = %c0 to %c1{{.*}} step %c1{{.*}} {
//       CHECK:     %[[RT:.*]] = arith.muli %[[R]], %c128
//       CHECK:     %[[I:.*]] = arith.addi %[[RT]], %[[T]] : index
//       CHECK:     %[[ROW:.*]] = arith.divui %[[I]], %c8
//       CHECK:     %[[SLOT:.*]] = arith.remui %[[I]], %c8
//       CHECK:     %[[COL:.*]] = arith.muli %[[SLOT]], %c4
//       CHECK:     %[[V:.*]] = vector.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<16x32xf32, strided<[256, 1], offset: ?>>, vector<4xf32>
//       CHECK:     vector.store %[[V]], %{{.*}}[%[[ROW]], %[[COL]]] : memref<16x32xf32, #gpu.address_space<workgroup>>, vector<4xf32>
//       CHECK:   gpu.barrier
//   CHECK-NOT:   linalg.copy
func.func @staged(%m: memref<256x256xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c8, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c32, %b = %c4, %c = %c1) {
    %s = memref.alloc() : memref<16x32xf32, #gpu.address_space<workgroup>>
    %off = arith.muli %bx, %c8 : index
    %tile = memref.subview %m[%off, 0] [16, 32] [1, 1] : memref<256x256xf32> to memref<16x32xf32, strided<[256, 1], offset: ?>>
    gpu.barrier
    linalg.copy ins(%tile : memref<16x32xf32, strided<[256, 1], offset: ?>>) outs(%s : memref<16x32xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    %v = memref.load %s[%ty, %tx] : memref<16x32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %m[%ty, %tx] : memref<256x256xf32>
    gpu.terminator
  }
  return
}

// -----

// 100 elements in rows of 10: 2-wide vectors (4 does not divide 10), 50
// slots for 64 threads: one round, which 14 threads skip.
// CHECK-LABEL: func.func @ragged
//       CHECK:   scf.for %[[R:.*]] = %c0 to %c1{{.*}} step %c1{{.*}} {
//       CHECK:     %[[I:.*]] = arith.addi
//       CHECK:     %[[IN:.*]] = arith.cmpi ult, %[[I]], %c50
//       CHECK:     scf.if %[[IN]] {
//       CHECK:       arith.minui %[[I]], %c49
//       CHECK:       vector.load {{.*}} vector<2xf32>
//       CHECK:       vector.store {{.*}} vector<2xf32>
//   CHECK-NOT:   linalg.copy
func.func @ragged(%m: memref<10x10xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<10x10xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    linalg.copy ins(%m : memref<10x10xf32>) outs(%s : memref<10x10xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// Odd rows (9 floats): no vector divides them; scalars, two rounds.
// CHECK-LABEL: func.func @odd
//       CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1{{.*}} {
//       CHECK:     scf.if
//       CHECK:       memref.load
//       CHECK:       memref.store
func.func @odd(%m: memref<9x9xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<9x9xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    linalg.copy ins(%m : memref<9x9xf32>) outs(%s : memref<9x9xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// Not fenced by a barrier after it: other threads could read elements not
// yet copied. Stays whole.
// CHECK-LABEL: func.func @unfenced
//       CHECK:   linalg.copy
func.func @unfenced(%m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %tile = memref.subview %m[0] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1]>>
    gpu.barrier
    linalg.copy ins(%tile : memref<64xf32, strided<[1]>>) outs(%s : memref<64xf32, #gpu.address_space<workgroup>>)
    %v = memref.load %s[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// Each thread copies its own tile (the offset depends on the thread id):
// splitting it would copy other threads' tiles. Stays whole.
// CHECK-LABEL: func.func @per_thread
//       CHECK:   linalg.copy
func.func @per_thread(%m: memref<4096xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<64x64xf32, #gpu.address_space<workgroup>>
    %row = memref.subview %s[%tx, 0] [1, 64] [1, 1] : memref<64x64xf32, #gpu.address_space<workgroup>> to memref<64xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
    %off = arith.muli %tx, %c64 : index
    %tile = memref.subview %m[%off] [64] [1] : memref<4096xf32> to memref<64xf32, strided<[1], offset: ?>>
    gpu.barrier
    linalg.copy ins(%tile : memref<64xf32, strided<[1], offset: ?>>) outs(%row : memref<64xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>)
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// Into a thread's private buffer: every thread needs all of it. Stays whole.
// CHECK-LABEL: func.func @private
//       CHECK:   linalg.copy
func.func @private(%m: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c64, %b = %c1, %c = %c1) {
    %p = memref.alloca() : memref<64xf32>
    gpu.barrier
    linalg.copy ins(%m : memref<64xf32>) outs(%p : memref<64xf32>)
    gpu.barrier
    %v = memref.load %p[%tx] : memref<64xf32>
    memref.store %v, %m[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A block size known only at run time. Stays whole.
// CHECK-LABEL: func.func @dynamic_block
//       CHECK:   linalg.copy
func.func @dynamic_block(%m: memref<64xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %n, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    linalg.copy ins(%m : memref<64xf32>) outs(%s : memref<64xf32, #gpu.address_space<workgroup>>)
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// An asynchronous copy (pipeline's): no barriers around it, under a guard
// every thread takes alike; bf16 rows of 32: 8-wide, 16 bytes a thread, as
// cp.async skipping L1 (bypassL1).
// CHECK-LABEL: func.func @async
//       CHECK:   scf.if
//       CHECK:     scf.for
//       CHECK:       nvgpu.device_async_copy %{{.*}}[%[[ROW:.*]], %[[COL:.*]]], %{{.*}}[%[[ROW]], %[[COL]]], 8 {bypassL1} : memref<16x32xbf16, strided<[256, 1], offset: ?>> to memref<16x32xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:   linalg.copy
//       CHECK:   nvvm.cp.async.commit.group
func.func @async(%m: memref<256x256xbf16>, %n: index) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c8, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c32, %b = %c4, %c = %c1) {
    %s = memref.alloc() : memref<16x32xbf16, #gpu.address_space<workgroup>>
    %off = arith.muli %bx, %c8 : index
    %go = arith.cmpi ult, %off, %n : index
    scf.if %go {
      %tile = memref.subview %m[%off, 0] [16, 32] [1, 1] : memref<256x256xbf16> to memref<16x32xbf16, strided<[256, 1], offset: ?>>
      linalg.copy {tirx.async_copy} ins(%tile : memref<16x32xbf16, strided<[256, 1], offset: ?>>) outs(%s : memref<16x32xbf16, #gpu.address_space<workgroup>>)
    }
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %v = memref.load %s[%ty, %tx] : memref<16x32xbf16, #gpu.address_space<workgroup>>
    memref.store %v, %m[%ty, %tx] : memref<256x256xbf16>
    gpu.terminator
  }
  return
}

// -----

// The same copy under a guard that differs between threads stays whole.
// CHECK-LABEL: func.func @async_divergent
//       CHECK:   scf.if
//       CHECK:     linalg.copy {tirx.async_copy}
func.func @async_divergent(%m: memref<256x256xbf16>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c8, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c32, %b = %c4, %c = %c1) {
    %s = memref.alloc() : memref<16x32xbf16, #gpu.address_space<workgroup>>
    %go = arith.cmpi ult, %tx, %c8 : index
    scf.if %go {
      %tile = memref.subview %m[0, 0] [16, 32] [1, 1] : memref<256x256xbf16> to memref<16x32xbf16, strided<[256, 1]>>
      linalg.copy {tirx.async_copy} ins(%tile : memref<16x32xbf16, strided<[256, 1]>>) outs(%s : memref<16x32xbf16, #gpu.address_space<workgroup>>)
    }
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %v = memref.load %s[%ty, %tx] : memref<16x32xbf16, #gpu.address_space<workgroup>>
    memref.store %v, %m[%ty, %tx] : memref<256x256xbf16>
    gpu.terminator
  }
  return
}
