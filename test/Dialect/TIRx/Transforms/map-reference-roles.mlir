// The reference marks a fresh output: a buffer argument whose first use is
// a linalg.fill of all of it gets tirx.role = "out" (the seed never reads
// what the caller put there), and its bundle says out although its kernels
// read the buffer back after the fill. A candidate that starts the output
// itself (reduce_in_block taking the fill over) only writes it: the same
// role. Anything else keeps the roles the memory effects give.
// RUN: tirx-opt %s -split-input-file --tirx-map-reference | FileCheck %s
// RUN: tirx-opt %s -split-input-file --tirx-map-reference | FileCheck %s --check-prefix=NOROLE
// RUN: tirx-opt %tirx_src/examples/suite/rowsum.mlir --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLES < %t/manifest.json

// CHECK-LABEL: func.func @fresh
//  CHECK-SAME:   %{{.*}}: memref<8x256xf32>, %{{.*}}: memref<8xf32> {tirx.role = "out"})
func.func @fresh(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// Read (copied out) before its fill: the caller's contents matter.
// NOROLE-LABEL: func.func @read_first
//   NOROLE-NOT:   tirx.role
//       NOROLE:   return
func.func @read_first(%x: memref<8x256xf32>, %s: memref<8xf32>, %c: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  memref.copy %s, %c : memref<8xf32> to memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<8xf32>)
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// A fill of half of it (a view): the other half is the caller's.
// NOROLE-LABEL: func.func @half
//   NOROLE-NOT:   tirx.role
//       NOROLE:   return
func.func @half(%s: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %h = memref.subview %s[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  linalg.fill ins(%zero : f32) outs(%h : memref<4xf32, strided<[1]>>)
  return
}

// -----

// Accumulated into (s += ...): inout.
// NOROLE-LABEL: func.func @accumulate
//   NOROLE-NOT:   tirx.role
//       NOROLE:   return
func.func @accumulate(%x: memref<8x256xf32>, %s: memref<8xf32>) {
  linalg.reduce ins(%x : memref<8x256xf32>) outs(%s : memref<8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// The suite's rowsum (a tensor seed: fill + reduce into the result), its
// reference bundle: the result's out-parameter is out.
// ROLES: "name": "arg0"
// ROLES: "role": "in"
// ROLES: "name": "arg1"
// ROLES: "role": "out"
