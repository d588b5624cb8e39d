// Shared-memory bank conflicts of vector accesses: a 16-byte access a lane
// is served a quarter-warp at a time (8 lanes, 32 words), so lanes 16
// bytes apart meet no bank twice; lanes 32 bytes apart (8 contiguous f32 a
// thread, two 4-wide vectors) meet 2 ways; scalars at word stride s meet
// gcd(s, 32) ways, as before.
// RUN: tirx-opt %s --tirx-view=what=access_pattern -o /dev/null | FileCheck %s

// CHECK: "bank_conflict_risk": "none",
// CHECK: "index": "4*tid.x",
// CHECK-NEXT: "kind": "load",
// CHECK: "vector_width": 4
// CHECK: "bank_conflict_risk": "low",
// CHECK: "index": "8*tid.x",
// CHECK-NEXT: "kind": "load",
// CHECK: "vector_width": 4
// CHECK: "bank_conflict_risk": "high",
// CHECK: "index": "32*tid.x",
// CHECK-NEXT: "kind": "load",
// CHECK: "vector_width": 4
// CHECK: "bank_conflict_risk": "none",
// CHECK: "index": "tid.x",
// CHECK-NEXT: "kind": "load",
// CHECK: "vector_width": 1
// CHECK: "bank_conflict_risk": "high",
// CHECK: "index": "4*tid.x",
// CHECK-NEXT: "kind": "load",
// CHECK: "vector_width": 1
func.func @banks(%out: memref<4096xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %row = memref.alloc() : memref<2048xf32, #gpu.address_space<workgroup>>
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32i = arith.constant 32 : index
    %i4 = arith.muli %tx, %c4 : index
    %i8 = arith.muli %tx, %c8 : index
    %i32 = arith.muli %tx, %c32i : index
    %a = vector.load %row[%i4] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %b = vector.load %row[%i8] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %c = vector.load %row[%i32] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<4xf32>
    %d = memref.load %row[%tx] : memref<2048xf32, #gpu.address_space<workgroup>>
    %e = memref.load %row[%i4] : memref<2048xf32, #gpu.address_space<workgroup>>
    %ab = arith.addf %a, %b : vector<4xf32>
    %abc = arith.addf %ab, %c : vector<4xf32>
    vector.store %abc, %out[%i4] : memref<4096xf32>, vector<4xf32>
    %de = arith.addf %d, %e : f32
    memref.store %de, %out[%tx] : memref<4096xf32>
    gpu.terminator
  }
  return
}
