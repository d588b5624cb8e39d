// map_to_gpu: each forall mapped to blocks becomes its own gpu.launch.
// RUN: tirx-opt %s -split-input-file --transform-interpreter -verify-diagnostics | FileCheck %s

// Two ops, two kernels, in program order: a fill of 64 blocks x 256
// threads, then a generic of 16 blocks x 64 threads (guarded: 256 threads
// run the block, 64 work).
// CHECK-LABEL: func.func @two_kernels
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
//       CHECK:     gpu.block_id  x
//       CHECK:     gpu.thread_id  x
//       CHECK:     linalg.fill
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
//       CHECK:     scf.if
//       CHECK:       linalg.generic
//   CHECK-NOT:   scf.forall
func.func @two_kernels(%a: memref<16384xf32>, %b: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<16384xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%b : memref<1024xf32>) {
  ^bb0(%x: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1, %b1 = transform.tirx.tile_to_blocks %fill tile_sizes [256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f2, %t1 = transform.tirx.tile_to_threads %f1 elements_per_thread [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %g1, %b2 = transform.tirx.tile_to_blocks %g tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %g2, %t2 = transform.tirx.tile_to_threads %g1 elements_per_thread [1] {max_threads = 1024} : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    transform.yield
  }
}

// -----

// Without block_dims each kernel gets the threads its forall needs: 64x4
// for the 2-D fill, 64 for the generic (no guard).
// CHECK-LABEL: func.func @own_blocks
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c4{{.*}}, %{{.*}} = %c1{{.*}})
//       CHECK:     linalg.fill
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c16{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
//   CHECK-NOT:     scf.if
//       CHECK:     linalg.generic
func.func @own_blocks(%a: memref<32x1024xf32>, %b: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<32x1024xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%b : memref<1024xf32>) {
  ^bb0(%x: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1, %b1 = transform.tirx.tile_to_blocks %fill tile_sizes [4, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f2, %t1 = transform.tirx.tile_to_threads %f1 elements_per_thread [1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %g1, %b2 = transform.tirx.tile_to_blocks %g tile_sizes [64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %g2, %t2 = transform.tirx.tile_to_threads %g1 elements_per_thread [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: nothing mapped to blocks yet.
// expected-note @below {{payload op: func @untiled}}
func.func @untiled(%b: memref<1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%b : memref<1024xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{bad_order: no scf.forall mapped to blocks in the target}}
    // expected-note @below {{hint: apply tile_to_blocks first}}
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    transform.yield
  }
}

// -----

// Refused before anything changes: 16x16 threads do not fit 8x16.
func.func @small(%c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note @below {{payload op: func @small / scf.forall#0 (block y, block x)}}
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1, %b1 = transform.tirx.tile_to_blocks %fill tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %f2, %t1 = transform.tirx.tile_to_threads %f1 elements_per_thread [2, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{block_too_small: func @small / scf.forall#0 (block y, block x) / scf.forall#0 (thread y, thread x) needs 16x16x1 threads; block_dims give 8x16x1}}
    // expected-note @below {{hint: try block_dims [16, 16, 1]}}
    transform.tirx.map_to_gpu %func block_dims [8, 16] : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: use_mma's 4 warps need 128 threads.
func.func @warps(%A: memref<64x16xf32>, %B: memref<16x64xf32>, %C: memref<64x64xf32>) {
  // expected-note @below {{payload op: func @warps / scf.forall#0 (block y, block x)}}
  linalg.matmul ins(%A, %B : memref<64x16xf32>, memref<16x64xf32>)
                outs(%C : memref<64x64xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 2] : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{block_too_small: func @warps / scf.forall#0 (block y, block x) / scf.forall#0 (warp linear_dim_1, warp linear_dim_0) has 4 warps: 128 threads, the block 64}}
    // expected-note @below {{hint: try block_dims [128]}}
    transform.tirx.map_to_gpu %func block_dims [64] : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: a row sum fused into the block (fuse_into) but left to every
// thread of the block: they would all add into the same shared element.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @race(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<64xf32>)
  // expected-note @below {{payload op: func @race / scf.forall#0 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x128xf32>) outs(%t : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<64x128xf32>, memref<64xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %producer, %consumer = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %tiled, %forall = transform.tirx.tile_to_blocks %consumer tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fused = transform.tirx.fuse_into %producer : (!transform.any_op) -> !transform.any_op
    %threads, %tf = transform.tirx.tile_to_threads %tiled elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{shared_race: func @race / scf.forall#0 (block x) / linalg.generic#0 reads and writes its output outside a forall mapped to threads}}
    // expected-note @below {{hint: tile it with tile_to_threads (a thread per output element)}}
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    // expected-error @below {{invalid_parameter: block_dims must be 1 to 3 sizes in [1, 1024], at most 1024 threads in all}}
    transform.tirx.map_to_gpu %root block_dims [64, 64] : !transform.any_op
    transform.yield
  }
}

// -----

// In global memory too: an op left outside the thread forall that updates
// its output in place (s[i] += t[i]) would be run by every thread of the
// block at once, each adding t[i] again.
#v = affine_map<(d0) -> (d0)>
#r2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @global_race(%x: memref<64x128xf32>, %y: memref<64x128xf32>, %s: memref<64xf32>, %t: memref<64xf32>) {
  linalg.generic {indexing_maps = [#r2, #r2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  // expected-note @below {{payload op: func @global_race / scf.forall#1 (block x) / linalg.generic#0}}
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%t : memref<64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %o, %a : f32
    linalg.yield %q : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %rows, %inplace = transform.split_handle %g : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t1, %f1 = transform.tirx.tile_to_blocks %rows tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u1, %h1 = transform.tirx.tile_to_threads %t1 elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %t2, %f2 = transform.tirx.tile_to_blocks %inplace tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{shared_race: func @global_race / scf.forall#1 (block x) / linalg.generic#0 reads and writes its output outside a forall mapped to threads}}
    // expected-note @below {{hint: tile it with tile_to_threads (a thread per output element)}}
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

// 131072 rows, a block each: y takes at most 65535 blocks, so the rows go
// to x and the one tile of columns to y (tile_to_blocks put them the other
// way round). Which block id a loop reads changes, not what a block
// computes.
// CHECK-LABEL: func.func @rows_on_x
//       CHECK:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c131072{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
//       CHECK:     %[[BX:.*]] = gpu.block_id  x
//       CHECK:     %[[BY:.*]] = gpu.block_id  y
//       CHECK:     %[[COL:.*]] = affine.apply #{{.*}}(%[[BY]])
//       CHECK:     memref.subview %{{.*}}[%[[BX]], %[[COL]]] [1, 1024] [1, 1] : memref<131072x1024xf32>
func.func @rows_on_x(%x: memref<131072x1024xf32>, %y: memref<131072x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<131072x1024xf32>) outs(%y : memref<131072x1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1, 1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

// Refused before anything changes: 131072 x 131072 blocks, and only x
// takes more than 65535.
func.func @square_grid(%c: memref<131072x131072xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note @below {{payload op: func @square_grid / scf.forall#0 (block y, block x)}}
  linalg.fill ins(%zero : f32) outs(%c : memref<131072x131072xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1, %b1 = transform.tirx.tile_to_blocks %fill tile_sizes [1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{too_many_blocks: func @square_grid / scf.forall#0 (block y, block x) has 131072 blocks along its loop 0 (block y) and 131072 along its loop 1 (block x): CUDA launches at most 65535 blocks along y and z, 2147483647 along x, and one loop only can go to x}}
    // expected-note @below {{hint: use larger tiles along one of those loops (tile_to_blocks)}}
    transform.tirx.map_to_gpu %func block_dims [32] : !transform.any_op
    transform.yield
  }
}

// -----

// Refused: 2^32 blocks are more than x takes.
func.func @huge_grid(%c: memref<4294967296xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-note @below {{payload op: func @huge_grid / scf.forall#0 (block x)}}
  linalg.fill ins(%zero : f32) outs(%c : memref<4294967296xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root : (!transform.any_op) -> !transform.any_op
    %f1, %b1 = transform.tirx.tile_to_blocks %fill tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    // expected-error @below {{too_many_blocks: func @huge_grid / scf.forall#0 (block x) has 4294967296 blocks along its loop 0 (block x): CUDA launches at most 65535 blocks along y and z, 2147483647 along x}}
    // expected-note @below {{hint: use larger tiles along that loop (tile_to_blocks)}}
    transform.tirx.map_to_gpu %func block_dims [32] : !transform.any_op
    transform.yield
  }
}
