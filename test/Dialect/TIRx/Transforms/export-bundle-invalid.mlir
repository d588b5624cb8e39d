// What a bundle cannot hold is refused, naming the value.
// RUN: tirx-opt %s -split-input-file -verify-diagnostics --tirx-export-bundle="dir=%t ptxas=none"
// RUN: not tirx-opt %s -split-input-file --tirx-export-bundle=ptxas=none 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: error: tirx-export-bundle: the option dir= is required

// expected-error @below {{parameter #0 (arg0) of @f of type 'i16' is neither a buffer nor a scalar the runner can pass (f32, f64, f16, bf16, i8, i32, i64, index)}}
func.func @f(%a: i16, %m: memref<4xi16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    memref.store %a, %m[%tx] : memref<4xi16>
    gpu.terminator
  }
  return
}

// -----

// A run-time size the payload does not name (tirx.dims): the manifest could
// not declare it.
// expected-error @below {{dynamic_shape: dimension 0 of parameter #0 (arg0) of @f ('memref<?xf32>') has a run-time size no tirx.dims names}}
func.func @f(%m: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<?xf32>
    memref.store %v, %m[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @f(%m: memref<4xf32>, %n: index {tirx.value = 4 : index}) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{grid x of gpu.launch_func @f_kernel::@f_kernel is not a static positive size}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %n, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// More blocks along y than CUDA launches (65535): tirx-run would refuse
// the manifest.
func.func @f(%m: memref<131072xf32>) {
  %c1 = arith.constant 1 : index
  %c131072 = arith.constant 131072 : index
  // expected-error @below {{tirx-export-bundle: grid y of gpu.launch_func @f_kernel::@f_kernel is 131072 blocks; CUDA launches at most 65535 along y and z, 2147483647 along x: map the loop with the most blocks to x (map_to_gpu does where one loop only has more than 65535) or tile it larger (tile_to_blocks)}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c131072, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%by] : memref<131072xf32>
    memref.store %v, %m[%by] : memref<131072xf32>
    gpu.terminator
  }
  return
}

// -----

// A version not mapped to the GPU yet: the refusal says so.
// expected-error @below {{expected exactly one function that launches kernels, found 0: the payload is not mapped to the GPU yet (tile_to_blocks and tile_to_threads, then map_to_gpu make its kernels; tirx auto chooses them)}}
module {
  func.func @f(%m: memref<4xf32>) {
    return
  }
}

// -----

// A front end's payload on tensors: bufferize first.
// expected-error @below {{tirx-export-bundle: the payload works on tensors (argument #0 of @on_tensors is 'tensor<4xf32>'): a kernel reads and writes buffers; apply bufferize first}}
func.func @on_tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// An input's domain (tirx.domain) must be one the runner knows, on a float
// buffer.
// expected-error @below {{tirx-export-bundle: parameter #0 (src) of @f: its tirx.domain is "positive"; expected "signed_unit" or "nonnegative"}}
func.func @f(%m: memref<4xf32> {tirx.domain = "positive", tirx.name = "src"}, %o: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// expected-error @below {{tirx-export-bundle: parameter #1 (arg1) of @f: tirx.domain is for buffers (a tensor or memref of floats); this argument is the scalar 'f32'}}
func.func @f(%o: memref<4xf32>, %s: f32 {tirx.domain = "nonnegative"}) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    memref.store %s, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// expected-error @below {{tirx-export-bundle: parameter #0 (arg0) of @f: tirx.domain is for buffers of floats; this argument is 'memref<4xi32>'}}
func.func @f(%m: memref<4xi32> {tirx.domain = "nonnegative"}) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xi32>
    memref.store %v, %m[%tx] : memref<4xi32>
    gpu.terminator
  }
  return
}

// -----

// tirx.role declares only "out" (a buffer written before it is read).
// expected-error @below {{parameter #0 (arg0) of @f has tirx.role = "inout"; the only role a payload declares is "out"}}
func.func @f(%m: memref<4xf32> {tirx.role = "inout"}) {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z2 = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    memref.store %z, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// An output nothing writes cannot be out.
// expected-error @below {{parameter #0 (arg0) of @f has tirx.role = "out" but nothing writes it}}
func.func @f(%m: memref<4xf32> {tirx.role = "out"}, %o: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A mutable global: a constant one read in a launch is copied into the
// kernel's module (export-bundle-constants.mlir), this one cannot be; the
// refusal names it (before: "is computed on the host, not a payload
// parameter or a constant").
memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @f(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %g = memref.get_global @state : memref<4xf32>
  // expected-error @below {{kernel argument #0 of gpu.launch_func @f_kernel::@f_kernel is the global @state read on the host: a bundle passes no global buffer}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c4, %q = %c1, %r = %c1) {
    %v = memref.load %g[%tx] : memref<4xf32>
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A kernel module named as a path: its PTX, cubin and ptxas log were
// written four directories above the bundle.
module attributes {gpu.container_module} {
  // expected-error @below {{tirx-export-bundle: the name @"../../../../OUTSIDE_kernel" is not a PTX identifier (a letter or '_', then letters, digits, '_' or '$'): kernels and their files are named after it; rename it}}
  gpu.module @"../../../../OUTSIDE_kernel" {
    gpu.func @k(%x: memref<256xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%x: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @"../../../../OUTSIDE_kernel"::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<256xf32>)
    return
  }
}

// -----

// A function named with '/' and '.': LLVM's PTX printer aborted the process
// ("Symbol name with unsupported characters").
// expected-error @below {{tirx-export-bundle: the name @"a/b.c" is not a PTX identifier}}
func.func @"a/b.c"(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// An empty buffer (torch's x[:0]): refused when bundled, naming it (before:
// a manifest that tirx-run refused, "params[0].shape[0]: must lie in [1, ...]").
// expected-error @below {{tirx-export-bundle: parameter #0 (arg0) of @f ('memref<0x4xf32>') has a dimension of size 0: the runner takes no empty buffer, and a payload over one has nothing to compute; give the dimension a nonzero size}}
func.func @f(%m: memref<0x4xf32>) {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %w = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    memref.store %z, %m[%tx, %tx] : memref<0x4xf32>
    gpu.terminator
  }
  return
}

// -----

// torch's bool mask as a parameter: i1, which the runner cannot fill; the
// refusal says what to pass instead.
// expected-error @below {{parameter #1 (arg1) of @f has element type 'i1', which the runner cannot fill (a mask of i1, torch's bool: pass it as i8, a byte an element as torch stores it, and test it with arith.cmpi ne 0 where it is read)}}
func.func @f(%x: memref<4xf32>, %mk: memref<4xi1>, %o: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%p = %c4, %q = %c1, %r = %c1) {
    %m = memref.load %mk[%tx] : memref<4xi1>
    %v = memref.load %x[%tx] : memref<4xf32>
    %z = arith.constant 0.0 : f32
    %s = arith.select %m, %v, %z : f32
    memref.store %s, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// torch.where(x > 0, ...) as torch-mlir writes it: the compare's i1 result
// an intermediate buffer between two kernels. The refusal names its element
// type (before: "a scratch buffer needs a shape of sizes, the identity
// layout, global memory and a manifest element type", all four at once).
func.func @f(%x: memref<4xf32>, %o: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xi1>
  // expected-error @below {{kernel argument #1 of gpu.launch_func @f_kernel::@f_kernel is an allocation of 'memref<4xi1>': its element type is none a manifest holds (f32, f64, f16, bf16, i8, i32, i64): a mask of i1 that one kernel writes and another reads; make it i8 in the payload (arith.extui where it is made, arith.cmpi ne 0 where it is read)}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%p = %c4, %q = %c1, %r = %c1) {
    %v = memref.load %x[%tx] : memref<4xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.cmpf ogt, %v, %z : f32
    memref.store %m, %a[%tx] : memref<4xi1>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%p = %c4, %q = %c1, %r = %c1) {
    %m = memref.load %a[%tx] : memref<4xi1>
    %v = memref.load %x[%tx] : memref<4xf32>
    %z = arith.constant 0.0 : f32
    %s = arith.select %m, %v, %z : f32
    memref.store %s, %o[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// A parameter named so that the runner's --dump-io files would land in
// another directory: refused at the payload (the runner refuses it too).
// expected-error @below {{parameter #0 (../x) of @f: tirx.name must be a plain name (no '/', not '.' or '..'): the runner writes files named after it}}
func.func @f(%m: memref<4xf32> {tirx.name = "../x"}) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    %v = memref.load %m[%tx] : memref<4xf32>
    memref.store %v, %m[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
