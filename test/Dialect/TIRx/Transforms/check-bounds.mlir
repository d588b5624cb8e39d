// Every access in a kernel proven in bounds, or named with its range.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-check-bounds -o /dev/null

// 4-wide saxpy: [0, 65535 * 1024 + 255 * 4 + 3] = [0, 67108863]: proven.
func.func @vec4(%x: memref<67108864xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %c65536 = arith.constant 65536 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c65536, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c1024 : index
    %t = arith.muli %tx, %c4 : index
    %i = arith.addi %b, %t : index
    %v = vector.load %x[%i] : memref<67108864xf32>, vector<4xf32>
    vector.store %v, %x[%i] : memref<67108864xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// tid + 1 reads one element past the end.
func.func @off_by_one(%x: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %i = arith.addi %tx, %c1 : index
    // expected-error @below {{unsafe_bounds: load of func @off_by_one / gpu.launch#0 / memref.load#0: index 0 lies in [1, 256], outside dimension 0 of size 256}}
    %v = memref.load %x[%i] : memref<256xf32>
    memref.store %v, %x[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// The same index under a guard i < 256: proven.
func.func @guarded(%x: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %i = arith.addi %tx, %c1 : index
    %ok = arith.cmpi ult, %i, %c256 : index
    scf.if %ok {
      %v = memref.load %x[%i] : memref<256xf32>
      memref.store %v, %x[%tx] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A 4-wide vector starting at 4 * tid + 2 runs past the end.
func.func @vector_tail(%x: memref<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %t = arith.muli %tx, %c4 : index
    %i = arith.addi %t, %c2 : index
    // expected-error @below {{unsafe_bounds: load of func @vector_tail / gpu.launch#0 / vector.load#0: index 0 lies in [2, 1025], outside dimension 0 of size 1024}}
    %v = vector.load %x[%i] : memref<1024xf32>, vector<4xf32>
    vector.store %v, %x[%t] : memref<1024xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop with step 16 reaches 240, not 255: the tile read stays inside.
func.func @stepped(%x: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    scf.for %k = %c0 to %c256 step %c16 {
      %i = arith.addi %k, %tx : index
      %v = memref.load %x[%i] : memref<256xf32>
      memref.store %v, %x[%i] : memref<256xf32>
    }
    gpu.terminator
  }
  return
}
