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

// -----

// Upstream's min-bounded tail: a block of min(1024, 1000003 - b * 1024)
// elements, a thread walking it by 256. Intervals see i up to 977 * 1024
// (the size's range is unknown); under the constraints k < size <=
// 1000003 - b * 1024 it is proven.
#tail = affine_map<(d0) -> (-d0 * 1024 + 1000003, 1024)>
func.func @min_bounded(%x: memref<1000003xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c977 = arith.constant 977 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c977, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %size = affine.min #tail(%bx)
    %base = arith.muli %bx, %c1024 : index
    scf.for %k = %tx to %size step %c256 {
      %i = arith.addi %base, %k : index
      %v = memref.load %x[%i] : memref<1000003xf32>
      memref.store %v, %x[%i] : memref<1000003xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// The same with one element too many: min(1025, ...) is not proven. (The
// interval of the index overflowed int64 here, and once passed for small.)
#tail = affine_map<(d0) -> (-d0 * 1024 + 1000004, 1025)>
func.func @min_bounded_wrong(%x: memref<1000003xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c977 = arith.constant 977 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c977, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %size = affine.min #tail(%bx)
    %base = arith.muli %bx, %c1024 : index
    scf.for %k = %tx to %size step %c256 {
      %i = arith.addi %base, %k : index
      // expected-error @below {{unsafe_bounds: load of func @min_bounded_wrong / gpu.launch#0 / scf.for#0 / memref.load#0: index 0 has no known range}}
      %v = memref.load %x[%i] : memref<1000003xf32>
      // expected-error @below {{unsafe_bounds: store to func @min_bounded_wrong / gpu.launch#0 / scf.for#0 / memref.store#0: index 0 has no known range}}
      memref.store %v, %x[%i] : memref<1000003xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A guarded tail: full 4-wide vectors in blocks below 976, the last
// block's 579 elements as 144 vectors and one of 3 (in the else branches:
// b >= 976, t >= 144). Intervals see the then-branch bound only.
func.func @guarded_tail(%x: memref<1000003xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c144 = arith.constant 144 : index
  %c145 = arith.constant 145 : index
  %c256 = arith.constant 256 : index
  %c976 = arith.constant 976 : index
  %c977 = arith.constant 977 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c977, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c1024 : index
    %t = arith.muli %tx, %c4 : index
    %i = arith.addi %b, %t : index
    %full = arith.cmpi ult, %bx, %c976 : index
    scf.if %full {
      %v = vector.load %x[%i] : memref<1000003xf32>, vector<4xf32>
      vector.store %v, %x[%i] : memref<1000003xf32>, vector<4xf32>
    } else {
      %in = arith.cmpi ult, %tx, %c145 : index
      scf.if %in {
        %whole = arith.cmpi ult, %tx, %c144 : index
        scf.if %whole {
          %v = vector.load %x[%i] : memref<1000003xf32>, vector<4xf32>
          vector.store %v, %x[%i] : memref<1000003xf32>, vector<4xf32>
        } else {
          %v = vector.load %x[%i] : memref<1000003xf32>, vector<3xf32>
          vector.store %v, %x[%i] : memref<1000003xf32>, vector<3xf32>
        }
      }
    }
    gpu.terminator
  }
  return
}

// -----

// The same with the tail read 4-wide: one element past the end.
func.func @guarded_tail_wrong(%x: memref<1000003xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c145 = arith.constant 145 : index
  %c256 = arith.constant 256 : index
  %c976 = arith.constant 976 : index
  %c977 = arith.constant 977 : index
  %c1024 = arith.constant 1024 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c977, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %c1024 : index
    %t = arith.muli %tx, %c4 : index
    %i = arith.addi %b, %t : index
    %full = arith.cmpi ult, %bx, %c976 : index
    scf.if %full {
    } else {
      %in = arith.cmpi ult, %tx, %c145 : index
      scf.if %in {
        // expected-error @below {{unsafe_bounds: load of func @guarded_tail_wrong / gpu.launch#0 / scf.if#0 / scf.if#0 / vector.load#0: index 0 lies in [0, 1000003], outside dimension 0 of size 1000003}}
        %v = vector.load %x[%i] : memref<1000003xf32>, vector<4xf32>
        // expected-error @below {{unsafe_bounds: store to func @guarded_tail_wrong / gpu.launch#0 / scf.if#0 / scf.if#0 / vector.store#0: index 0 lies in [0, 1000003], outside dimension 0 of size 1000003}}
        vector.store %v, %x[%i] : memref<1000003xf32>, vector<4xf32>
      }
    }
    gpu.terminator
  }
  return
}

// -----

// ldmatrix: each lane reads 8 elements of a row from its column; a column
// of 8 (tid / 16) * 8 + 24 reaches 8 past the 32 of the row.
func.func @ldmatrix_past(%x: memref<32x32xbf16>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %s = memref.alloc() : memref<32x32xbf16, #gpu.address_space<workgroup>>
    %row = arith.remui %tx, %c16 : index
    %half = arith.divui %tx, %c16 : index
    %col = arith.muli %half, %c8 : index
    %ok = nvgpu.ldmatrix %s[%row, %col] {numTiles = 4 : i32, transpose = false} : memref<32x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %far = arith.addi %col, %c24 : index
    // expected-error @below {{unsafe_bounds: load of func @ldmatrix_past / gpu.launch#0 / nvgpu.ldmatrix#1: index 1 lies in [24, 39], outside dimension 1 of size 32}}
    %bad = nvgpu.ldmatrix %s[%row, %far] {numTiles = 4 : i32, transpose = false} : memref<32x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %e = vector.extract %ok[0, 0] : bf16 from vector<4x2xbf16>
    %f = vector.extract %bad[0, 0] : bf16 from vector<4x2xbf16>
    memref.store %e, %x[%row, %tx] : memref<32x32xbf16>
    memref.store %f, %x[%row, %tx] : memref<32x32xbf16>
    gpu.terminator
  }
  return
}

// -----

// cp.async (16 bytes, aligned on both sides: it stays one): its source
// read and its destination write are both checked.
func.func @async_copy_past(%x: memref<32x32xbf16> {llvm.align = 16 : i64}) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %s = memref.alloc() {alignment = 16 : i64} : memref<32x16xbf16, #gpu.address_space<workgroup>>
    %slot = arith.remui %tx, %c4 : index
    %col = arith.muli %slot, %c8 : index
    // expected-error @below {{unsafe_bounds: store to func @async_copy_past / gpu.launch#0 / nvgpu.device_async_copy#0: index 1 lies in [0, 31], outside dimension 1 of size 16}}
    %t = nvgpu.device_async_copy %x[%tx, %col], %s[%tx, %col], 8 : memref<32x32xbf16> to memref<32x16xbf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A reshape (collapse_shape of 32x64 rows into 2048): the folded load
// indexes the 3-D buffer through affine.delinearize_index. Block b reads
// row (b floordiv 64, b mod 64): [0, 31] and [0, 63], proven.
func.func @collapsed_rows(%x: memref<32x64x256xf32>, %y: memref<2048xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  %rows = memref.collapse_shape %x [[0, 1], [2]] : memref<32x64x256xf32> into memref<2048x256xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2048, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %v = memref.load %rows[%bx, %tx] : memref<2048x256xf32>
    memref.store %v, %y[%bx] : memref<2048xf32>
    gpu.terminator
  }
  return
}

// -----

// The same rows through floordiv and mod, and arith.divui / remui, by hand.
func.func @divided_rows(%x: memref<32x64x256xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %c2048 = arith.constant 2048 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2048, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %hi = affine.apply affine_map<(d0) -> (d0 floordiv 64)>(%bx)
    %lo = affine.apply affine_map<(d0) -> (d0 mod 64)>(%bx)
    %v = memref.load %x[%hi, %lo, %tx] : memref<32x64x256xf32>
    %q = arith.divui %bx, %c64 : index
    %r = arith.remui %bx, %c64 : index
    memref.store %v, %x[%q, %r, %tx] : memref<32x64x256xf32>
    gpu.terminator
  }
  return
}

// -----

// 2049 rows of a 2048-row reshape: the last block's row is 2048. (The
// access stays on the collapsed view, tirx-fold-views: its rows are
// checked against the view's 2048, the same elements as the buffer's.)
func.func @collapsed_rows_past_end(%x: memref<32x64x256xf32>, %y: memref<2049xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c2049 = arith.constant 2049 : index
  %rows = memref.collapse_shape %x [[0, 1], [2]] : memref<32x64x256xf32> into memref<2048x256xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2049, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    // expected-error @below {{unsafe_bounds: load of func @collapsed_rows_past_end / gpu.launch#0 / memref.load#0: index 0 lies in [0, 2048], outside dimension 0 of size 2048}}
    %v = memref.load %rows[%bx, %tx] : memref<2048x256xf32>
    memref.store %v, %y[%bx] : memref<2049xf32>
    gpu.terminator
  }
  return
}

// -----

// A gather (an embedding lookup): the row index is read from memory, which
// no range analysis bounds; the refusal says so (its hint: clamp or guard).
func.func @gather(%w: memref<32000x1024xf32>, %ids: memref<4096xi32>, %y: memref<4096x1024xf32>) {
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4096, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
    %id = memref.load %ids[%bx] : memref<4096xi32>
    %row = arith.index_cast %id : i32 to index
    // expected-error @below {{unsafe_bounds: load of func @gather / gpu.launch#0 / memref.load#1: index 0 lies in [-2147483648, 2147483647], outside dimension 0 of size 32000 (the index is read from memory: a gather)}}
    %v = memref.load %w[%row, %tx] : memref<32000x1024xf32>
    memref.store %v, %y[%bx, %tx] : memref<4096x1024xf32>
    gpu.terminator
  }
  return
}

// -----

// The same gather with its index clamped to [0, 31999]: proven.
func.func @gather_clamped(%w: memref<32000x1024xf32>, %ids: memref<4096xi32>, %y: memref<4096x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %c31999 = arith.constant 31999 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4096, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1024, %sy = %c1, %sz = %c1) {
    %id = memref.load %ids[%bx] : memref<4096xi32>
    %raw = arith.index_cast %id : i32 to index
    %low = arith.maxsi %raw, %c0 : index
    %row = arith.minsi %low, %c31999 : index
    %v = memref.load %w[%row, %tx] : memref<32000x1024xf32>
    memref.store %v, %y[%bx, %tx] : memref<4096x1024xf32>
    gpu.terminator
  }
  return
}
