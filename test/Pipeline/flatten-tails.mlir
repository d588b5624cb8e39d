// Rows no vector width divides (4097 f32) and rows of run-time length:
// `flatten` reads each buffer as one loop, so the full tiles of 1024 start
// at multiples of 1024 (16-byte aligned: `vectorize` 4 proves it through
// the collapsed view) and only the last tile is partial. The lowering keeps
// the accesses on the collapsed views (tirx-fold-views): the main part is
// ld.global.v4 / st.global.v4, the tails scalar and guarded; the bounds
// check proves the run-time tail against s0 * s1.
// RUN: tirx-opt %s --transform-interpreter | FileCheck %s
// RUN: tirx-opt %s --transform-interpreter | tirx-opt --tirx-check-bounds -o /dev/null
// Memref descriptors as the bundles pass them (a run-time size needs one):
// RUN: tirx-opt %s --transform-interpreter | tirx-opt --tirx-lower-to-nvvm="cubin-format=isa kernel-bare-ptr-calling-convention=false" | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @relu_4097
//       CHECK:   vector.load %{{.*}} {alignment = 16 : i64} : memref<16785409xf32>, vector<4xf32>
//       CHECK:   vector.store %{{.*}} {alignment = 16 : i64} : memref<16785409xf32>, vector<4xf32>
// CHECK-LABEL: func.func @add_dynamic
//       CHECK:   vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:   vector.load %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:   vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>

// Each kernel: its 4-wide main part, then the scalar tail; 256 threads.
// PTX-LABEL: .entry relu_4097_kernel
//       PTX:   .maxntid 256, 1, 1
//       PTX:   ld.global.v4.b32
//       PTX:   st.global.v4.b32
//       PTX:   ld.global.b32
//       PTX:   st.global.b32
// PTX-LABEL: .entry add_dynamic_kernel
//       PTX:   .maxntid 256, 1, 1
//       PTX:   ld.global.v4.b32
//       PTX:   ld.global.v4.b32
//       PTX:   st.global.v4.b32
//       PTX:   ld.global.b32
//       PTX:   st.global.b32
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_4097(%x: memref<4097x4097xf32>, %y: memref<4097x4097xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4097x4097xf32>) outs(%y : memref<4097x4097xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  }
  return
}
func.func @add_dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %z: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : memref<?x?xf32>, memref<?x?xf32>) outs(%z : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %f = transform.tirx.flatten %g : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %f tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %e width = 4 : !transform.any_op
    // The tails (marked tirx.tail): 4 elements a thread, scalar.
    %tails = transform.structured.match ops{["linalg.generic"]} attributes {tirx.tail} in %root : (!transform.any_op) -> !transform.any_op
    %te, %tt = transform.tirx.tile_to_threads %tails elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %funcs : !transform.any_op
    transform.yield
  }
}
