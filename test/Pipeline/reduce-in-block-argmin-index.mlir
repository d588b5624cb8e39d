// reduce_in_block on an argmin whose positions are of type index, through
// the whole pipeline: the warps' positions wait for the last warp in a
// shared buffer of index, which takes 8 bytes an element (the kernels'
// index width): 8 warps, 32 bytes of values and 64 of positions. The
// bundle exports (the positions an i64 output).
// RUN: tirx-opt %s --transform-interpreter -o %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=BUNDLE < %t.bundle/manifest.json

// MAPPED-LABEL: func.func @argmin
//       MAPPED:   gpu.launch
//   MAPPED-DAG:     memref.alloc() : memref<1x8xf32, #gpu.address_space<workgroup>>
//   MAPPED-DAG:     memref.alloc() : memref<1x8xindex, #gpu.address_space<workgroup>>
//       MAPPED:     gpu.barrier

// CHECK: gpu.binary @argmin_kernel
// CHECK-SAME: .shared .align 16 .b8 __wg_argmin_kernel_0[32];
// CHECK-SAME: .shared .align 16 .b8 __wg_argmin_kernel_1[64];
// CHECK-SAME: st.shared.b64
// CHECK-SAME: bar.sync
// CHECK-NOT: gpu.binary

// BUNDLE: "name": "arg2",
// BUNDLE-NEXT: "role": "out",
// BUNDLE-NEXT: "shape": [
// BUNDLE-NEXT: 64
// BUNDLE-NEXT: ],
// BUNDLE-NEXT: "type": "i64"
func.func @argmin(%x: memref<64x1024xf32>, %m: memref<64xf32>, %i: memref<64xindex>) {
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%inf : f32) outs(%m : memref<64xf32>)
  linalg.fill ins(%c0 : index) outs(%i : memref<64xindex>)
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>, affine_map<(r, k) -> (r)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x1024xf32>) outs(%m, %i : memref<64xf32>, memref<64xindex>) {
  ^bb0(%a: f32, %v: f32, %p: index):
    %k = linalg.index 1 : index
    %lt = arith.cmpf olt, %a, %v : f32
    %nv = arith.select %lt, %a, %v : f32
    %np = arith.select %lt, %k, %p : index
    linalg.yield %nv, %np : f32, index
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
