// Each refusal: its code, its message, the payload op, a hint.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1000xf32>, %y: memref<1000xf32>) {
  // expected-note @below {{payload op: func @saxpy / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1000xf32>) outs(%y : memref<1000xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: tile size 256 does not divide the extent 1000 of loop 0}}
    // expected-note @below {{hint: try 40, 50, 100, 125, 200, 250, 500 or 1000}}
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @saxpy / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: vectorize only after thread mapping}}
    // expected-note @below {{hint: apply tile_to_threads first}}
    transform.tirx.vectorize %g width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @saxpy(%x: memref<1024xf16>, %y: memref<1024xf16>) {
  // expected-note @below {{payload op: func @saxpy / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf16>) outs(%y : memref<1024xf16>) {
  ^bb0(%a: f16, %b: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_divisible: width 8 does not divide the per-thread extent 4}}
    // expected-note @below {{hint: try 2 or 4}}
    transform.tirx.vectorize %e width = 8 : !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @wide(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @wide / scf.forall#0 (block x) / scf.forall#0 (thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [512] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{too_wide: width 8 of 4-byte elements is 32 bytes; a vector access is at most 16}}
    // expected-note @below {{hint: try width 4}}
    transform.tirx.vectorize %e width = 8 : !transform.any_op
    transform.yield
  }
}

// -----

#id = affine_map<(d0) -> (d0)>
func.func @threads(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  // expected-note @below {{payload op: func @threads / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{bad_block_size: 16 threads per block: a block needs a multiple of 32 threads and at most 1024}}
    // expected-note @below {{hint: elements per thread giving a legal block: 1, 2, 4, 8, 16, 32}}
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @transpose(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @transpose / scf.forall#0 (block y, block x) / scf.forall#0 (thread y, thread x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [8, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    // expected-error @below {{not_contiguous: the innermost loop is not the last index of operand #0}}
    // expected-note @below {{hint: interchange the loops so that the contiguous axis is innermost}}
    transform.tirx.vectorize %e width = 4 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @loop(%m: memref<10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  // expected-note @below {{payload op: func @loop / scf.for#0}}
  scf.for %i = %c0 to %c10 step %c1 {
    %v = memref.load %m[%i] : memref<10xf32>
    memref.store %v, %m[%i] : memref<10xf32>
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %l = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{not_divisible: factor 4 does not divide the trip count 10: a tail would be left}}
    // expected-note @below {{hint: try 1, 2, 5 or 10}}
    transform.tirx.unroll %l factor = 4 : !transform.any_op
    transform.yield
  }
}

// -----

func.func @shared(%m: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c256, %b = %c1, %c = %c1) {
    %s = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %v = memref.load %m[%tx] : memref<256xf32>
    memref.store %v, %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    // expected-note @below {{payload op: func @shared / gpu.launch#0 / gpu.barrier#0}}
    gpu.barrier
    %w = memref.load %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %m[%tx] : memref<256xf32>
    gpu.terminator
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %b = transform.structured.match ops{["gpu.barrier"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{barrier_needed: the kernel uses shared memory (func @shared / gpu.launch#0 / memref.alloc#0): the barrier may order its accesses}}
    transform.tirx.remove_barrier %b : !transform.any_op
    transform.yield
  }
}
