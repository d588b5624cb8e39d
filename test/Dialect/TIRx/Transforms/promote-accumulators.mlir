// A loop's accumulator in memory becomes a value the loop carries: loaded
// once before, stored once after. Only where nothing else in the loop may
// touch the buffer.
// RUN: tirx-opt %s -split-input-file --tirx-promote-accumulators | FileCheck %s

// CHECK-LABEL: func.func @row_sum
//       CHECK:   %[[INIT:.*]] = memref.load %[[S:.*]][%[[I:.*]]] : memref<8xf32>
//       CHECK:   %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
//       CHECK:     %[[X:.*]] = memref.load
//       CHECK:     %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]]
//       CHECK:     scf.yield %[[NEXT]]
//       CHECK:   memref.store %[[SUM]], %[[S]][%[[I]]] : memref<8xf32>
func.func @row_sum(%x: memref<8x64xf32>, %s: memref<8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %x[%i, %j] : memref<8x64xf32>
    %acc = memref.load %s[%i] : memref<8xf32>
    %r = arith.addf %acc, %a : f32
    memref.store %r, %s[%i] : memref<8xf32>
  }
  return
}

// -----

// Nested: the inner loop's pair is promoted first; the outer loop then
// carries it too (C of a thread's matmul tile across all of K).
// CHECK-LABEL: func.func @nested
//       CHECK:   memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x4xf32>
//       CHECK:   scf.for {{.*}} iter_args({{.*}}) -> (f32) {
//       CHECK:     scf.for {{.*}} iter_args({{.*}}) -> (f32) {
//   CHECK-NOT:       memref.store
//       CHECK:   memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x4xf32>
func.func @nested(%a: memref<4x64xf32>, %c: memref<4x4xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %k0 = %c0 to %c64 step %c8 {
    scf.for %k = %k0 to %c8 step %c1 {
      %v = memref.load %a[%i, %k] : memref<4x64xf32>
      %acc = memref.load %c[%i, %j] : memref<4x4xf32>
      %r = arith.addf %acc, %v : f32
      memref.store %r, %c[%i, %j] : memref<4x4xf32>
    }
  }
  return
}

// -----

// The loop also reads another element of the buffer: it may be the same
// one. Not promoted.
// CHECK-LABEL: func.func @other_access
//       CHECK:   scf.for
//       CHECK:     memref.load %{{.*}}[%{{.*}}] : memref<8xf32>
//       CHECK:     memref.store
//   CHECK-NOT:   iter_args
func.func @other_access(%x: memref<8x64xf32>, %s: memref<8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %s[%c7] : memref<8xf32>
    %acc = memref.load %s[%i] : memref<8xf32>
    %r = arith.addf %acc, %a : f32
    memref.store %r, %s[%i] : memref<8xf32>
  }
  return
}

// -----

// The element changes with the loop: not an accumulator.
// CHECK-LABEL: func.func @variant
//   CHECK-NOT:   iter_args
func.func @variant(%s: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %acc = memref.load %s[%j] : memref<64xf32>
    %r = arith.addf %acc, %acc : f32
    memref.store %r, %s[%j] : memref<64xf32>
  }
  return
}

// -----

// Shared memory is the block's: other threads may read it between
// barriers. Not promoted.
// CHECK-LABEL: func.func @shared
//   CHECK-NOT:   iter_args
func.func @shared(%x: memref<64xf32>, %s: memref<8xf32, #gpu.address_space<workgroup>>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %x[%j] : memref<64xf32>
    %acc = memref.load %s[%i] : memref<8xf32, #gpu.address_space<workgroup>>
    %r = arith.addf %acc, %a : f32
    memref.store %r, %s[%i] : memref<8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A call with unknown effects may touch anything. Not promoted.
// CHECK-LABEL: func.func @call
//   CHECK-NOT:   iter_args
func.func private @opaque()
func.func @call(%x: memref<64xf32>, %s: memref<8xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %j = %c0 to %c64 step %c1 {
    %a = memref.load %x[%j] : memref<64xf32>
    %acc = memref.load %s[%i] : memref<8xf32>
    func.call @opaque() : () -> ()
    %r = arith.addf %acc, %a : f32
    memref.store %r, %s[%i] : memref<8xf32>
  }
  return
}

// -----

// A thread's 1x2 tile of C: two pairs on the same buffer, provably different
// elements (j and j + 1): both carried.
// CHECK-LABEL: func.func @two_elements
//       CHECK:   scf.for {{.*}} iter_args({{.*}}, {{.*}}) -> (f32, f32) {
//   CHECK-NOT:     memref.store
//       CHECK:     scf.yield
//       CHECK-COUNT-2: memref.store %{{.*}} : memref<4x4xf32>
func.func @two_elements(%a: memref<64xf32>, %c: memref<4x4xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %j1 = arith.addi %j, %c1 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %a[%k] : memref<64xf32>
    %x = memref.load %c[%i, %j] : memref<4x4xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %c[%i, %j] : memref<4x4xf32>
    %z = memref.load %c[%i, %j1] : memref<4x4xf32>
    %w = arith.mulf %z, %v : f32
    memref.store %w, %c[%i, %j1] : memref<4x4xf32>
  }
  return
}

// -----

// Two pairs whose elements may be the same (i and k unknown): not carried.
// CHECK-LABEL: func.func @maybe_same
//   CHECK-NOT:   iter_args
func.func @maybe_same(%a: memref<64xf32>, %c: memref<4x4xf32>, %i: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %t = %c0 to %c64 step %c1 {
    %v = memref.load %a[%t] : memref<64xf32>
    %x = memref.load %c[%i, %c0] : memref<4x4xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %c[%i, %c0] : memref<4x4xf32>
    %z = memref.load %c[%k, %c0] : memref<4x4xf32>
    %w = arith.mulf %z, %v : f32
    memref.store %w, %c[%k, %c0] : memref<4x4xf32>
  }
  return
}

// -----

// The elements share a base no linear analysis sees through (a warp's row,
// from a thread id's division): w and w + 8 still differ by 8. Both carried.
// (A regression: the access analysis's linearize gives up on the division,
// and the staged use_mma schedule lost its C registers, 0.58 -> 1.18 ms.)
// CHECK-LABEL: func.func @opaque_base
//       CHECK:   scf.for {{.*}} iter_args({{.*}}, {{.*}}) -> (f32, f32) {
//   CHECK-NOT:     memref.store
//       CHECK:     scf.yield
//       CHECK-COUNT-2: memref.store %{{.*}} : memref<64x4xf32>
func.func @opaque_base(%a: memref<64xf32>, %c: memref<64x4xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %w = arith.divui %t, %c32 : index
  %w8 = arith.addi %w, %c8 : index
  scf.for %k = %c0 to %c64 step %c1 {
    %v = memref.load %a[%k] : memref<64xf32>
    %x = memref.load %c[%w, %c0] : memref<64x4xf32>
    %y = arith.addf %x, %v : f32
    memref.store %y, %c[%w, %c0] : memref<64x4xf32>
    %z = memref.load %c[%w8, %c0] : memref<64x4xf32>
    %u = arith.addf %z, %v : f32
    memref.store %u, %c[%w8, %c0] : memref<64x4xf32>
  }
  return
}

// -----

// A K loop of a bf16 matmul after pipeline: cp.async groups and waits, and
// ldmatrix reads of shared memory, touch nothing of C: its load/store pair
// becomes a value the loop carries.
// CHECK-LABEL: func.func @with_ldmatrix
//       CHECK:   %[[INIT:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x16xf32>
//       CHECK:   %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
//       CHECK:     nvvm.cp.async.wait.group 1
//       CHECK:     nvgpu.ldmatrix
//       CHECK:     nvvm.cp.async.commit.group
//       CHECK:   memref.store %[[SUM]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x16xf32>
func.func @with_ldmatrix(%c: memref<16x16xf32>, %s: memref<16x16xbf16, #gpu.address_space<workgroup>>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %f = nvgpu.ldmatrix %s[%i, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    nvvm.cp.async.commit.group
    %e = vector.extract %f[0, 0] : bf16 from vector<4x2xbf16>
    %x = arith.extf %e : bf16 to f32
    %v = memref.load %c[%i, %j] : memref<16x16xf32>
    %w = arith.addf %v, %x : f32
    memref.store %w, %c[%i, %j] : memref<16x16xf32>
  }
  return
}

// -----

// A thread's run of a column reduction's outputs: a vector pair, promoted
// as a scalar one (the access keeps its alignment); the vector stored in
// front of the loop (the thread's fill) starts it, and that store goes.
// CHECK-LABEL: func.func @column_vectors
//   CHECK-NOT:   vector.store
//       CHECK:   %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO:.*]]) -> (vector<4xf32>) {
//       CHECK:     %[[X:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<64x8192xf32>, vector<4xf32>
//       CHECK:     %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]] : vector<4xf32>
//       CHECK:     scf.yield %[[NEXT]]
//       CHECK:   vector.store %[[SUM]], %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
//   CHECK-NOT:   vector.store
func.func @column_vectors(%x: memref<64x8192xf32>, %s: memref<8192xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  vector.store %zero, %s[%j] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %a = vector.load %x[%i, %j] {alignment = 16 : i64} : memref<64x8192xf32>, vector<4xf32>
    %acc = vector.load %s[%j] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
    %r = arith.addf %acc, %a : vector<4xf32>
    vector.store %r, %s[%j] {alignment = 16 : i64} : memref<8192xf32>, vector<4xf32>
  }
  return
}

// -----

// An unrolled reduction: each step's accumulator load takes the step
// before's stored value, the overwritten stores go, and the one pair left
// is promoted: no access to the accumulator in the loop.
// CHECK-LABEL: func.func @unrolled
//       CHECK:   %[[INIT:.*]] = vector.load %[[S:.*]][%{{.*}}] : memref<8192xf32>, vector<4xf32>
//       CHECK:   scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (vector<4xf32>) {
//   CHECK-NOT:     %[[S]]
//       CHECK:     arith.maximumf %[[ACC]]
//       CHECK:     arith.maximumf
//   CHECK-NOT:     %[[S]]
//       CHECK:     scf.yield
//       CHECK:   vector.store %{{.*}}, %[[S]]
func.func @unrolled(%x: memref<64x8192xf32>, %s: memref<8192xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c2 {
    %a = vector.load %x[%i, %j] : memref<64x8192xf32>, vector<4xf32>
    %acc = vector.load %s[%j] : memref<8192xf32>, vector<4xf32>
    %r = arith.maximumf %acc, %a : vector<4xf32>
    vector.store %r, %s[%j] : memref<8192xf32>, vector<4xf32>
    %i1 = arith.addi %i, %c1 : index
    %b = vector.load %x[%i1, %j] : memref<64x8192xf32>, vector<4xf32>
    %acc1 = vector.load %s[%j] : memref<8192xf32>, vector<4xf32>
    %r1 = arith.maximumf %acc1, %b : vector<4xf32>
    vector.store %r1, %s[%j] : memref<8192xf32>, vector<4xf32>
  }
  return
}

// -----

// Vectors of the same buffer that may overlap (4 wide, 2 apart): neither
// forwarded nor promoted.
// CHECK-LABEL: func.func @overlapping_vectors
//       CHECK:   scf.for
//       CHECK:     vector.load %{{.*}} : memref<8192xf32>, vector<4xf32>
//       CHECK:     vector.store
//       CHECK:     vector.load %{{.*}} : memref<8192xf32>, vector<4xf32>
//       CHECK:     vector.store
//   CHECK-NOT:   iter_args
func.func @overlapping_vectors(%x: memref<64x8192xf32>, %s: memref<8192xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %j2 = arith.addi %j, %c2 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %a = vector.load %x[%i, %j] : memref<64x8192xf32>, vector<4xf32>
    %acc = vector.load %s[%j] : memref<8192xf32>, vector<4xf32>
    %r = arith.addf %acc, %a : vector<4xf32>
    vector.store %r, %s[%j] : memref<8192xf32>, vector<4xf32>
    %acc2 = vector.load %s[%j2] : memref<8192xf32>, vector<4xf32>
    %r2 = arith.addf %acc2, %a : vector<4xf32>
    vector.store %r2, %s[%j2] : memref<8192xf32>, vector<4xf32>
  }
  return
}
