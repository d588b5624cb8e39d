// Accesses to buffers of run-time size (tirx.dims): proven for every value
// the sizes may take, from the guards and the launch's grid; a dimension
// named by the same size in two buffers is one value; what no guard bounds
// is refused, naming the size.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-check-bounds -o /dev/null

// ceil(N / 256) blocks of 256 threads, guarded by i < N; y's rows are the
// same size s0 as x's: proven.
#ceil = affine_map<()[s0] -> (s0 ceildiv 256)>
func.func @guarded(%x: memref<?xf32> {tirx.dims = ["s0"]}, %y: memref<?xf32> {tirx.dims = ["s0"]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = affine.apply #ceil()[%n]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c256 : index
    %i = arith.addi %b, %tx : index
    %in = arith.cmpi slt, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Full tiles of 4 while the block is below N / 1024 (no guard per element):
// the block index alone bounds them.
#ceil = affine_map<()[s0] -> (s0 ceildiv 1024)>
#floor = affine_map<()[s0] -> (s0 floordiv 1024)>
func.func @full_tiles(%x: memref<?xf32> {tirx.dims = ["s0"]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %c1024 = arith.constant 1024 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = affine.apply #ceil()[%n]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %full = affine.apply #floor()[%n]
    %is = arith.cmpi slt, %bx, %full : index
    scf.if %is {
      %b = arith.muli %bx, %c1024 : index
      %t = arith.muli %tx, %c4 : index
      %i = arith.addi %b, %t : index
      %v = vector.load %x[%i] : memref<?xf32>, vector<4xf32>
      vector.store %v, %x[%i] : memref<?xf32>, vector<4xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// The last block reads past N where no guard stops it.
#ceil = affine_map<()[s0] -> (s0 ceildiv 256)>
func.func @unguarded(%x: memref<?xf32> {tirx.dims = ["s0"]}, %out: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = affine.apply #ceil()[%n]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c256 : index
    %i = arith.addi %b, %tx : index
    // expected-error @below {{unsafe_bounds: load of func @unguarded / gpu.launch#0 / memref.load#0: index 0 is not proven below the run-time size s0 (dimension 0)}}
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// Guarded by x's size, writing y of another size s1: refused.
#ceil = affine_map<()[s0] -> (s0 ceildiv 256)>
func.func @other_size(%x: memref<?xf32> {tirx.dims = ["s0"]}, %y: memref<?xf32> {tirx.dims = ["s1"]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %blocks = affine.apply #ceil()[%n]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c256 : index
    %i = arith.addi %b, %tx : index
    %in = arith.cmpi slt, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32>
      // expected-error @below {{unsafe_bounds: store to func @other_size / gpu.launch#0 / scf.if#0 / memref.store#0: index 0 is not proven below the run-time size s1 (dimension 0)}}
      memref.store %v, %y[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A run-time size no tirx.dims names: nothing to prove against.
func.func @unnamed(%x: memref<?xf32>, %out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    // expected-error @below {{unsafe_bounds: load of func @unnamed / gpu.launch#0 / memref.load#0: dimension 0 has a run-time size no tirx.dims names}}
    %v = memref.load %x[%tx] : memref<?xf32>
    memref.store %v, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}

// -----

// A buffer the function allocates between its kernels, sized by x's run-time
// rows (bufferize's intermediate of a softmax of a run-time batch): its
// size is x's s0, and the guard by x's size proves it. (Before: "dimension
// 0 has a run-time size no tirx.dims names".)
#ceil = affine_map<()[s0] -> (s0 ceildiv 256)>
func.func @scratch(%x: memref<?xf32> {tirx.dims = ["s0"]}, %y: memref<?xf32> {tirx.dims = ["s0"]}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %t = memref.alloc(%n) : memref<?xf32>
  %blocks = affine.apply #ceil()[%n]
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c256 : index
    %i = arith.addi %b, %tx : index
    %in = arith.cmpi slt, %i, %n : index
    scf.if %in {
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %t[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %blocks, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c256 : index
    %i = arith.addi %b, %tx : index
    %in = arith.cmpi slt, %i, %n : index
    scf.if %in {
      %v = memref.load %t[%i] : memref<?xf32>
      memref.store %v, %y[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  return
}
