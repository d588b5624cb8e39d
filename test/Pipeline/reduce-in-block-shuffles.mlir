// reduce_in_block on 32-bit sums, through the whole pipeline: one kernel,
// each warp combined by shuffles (shfl.sync.bfly, 5 per stage, two
// stages), one barrier between them, 32 bytes of shared memory (a total per
// warp of 8), no shared-memory tree.
// RUN: tirx-opt %s --transform-interpreter -o %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s

// MAPPED-LABEL: func.func @row_sums
//       MAPPED:   gpu.launch
//       MAPPED:     memref.alloc() : memref<1x8xf32, #gpu.address_space<workgroup>>
// MAPPED-COUNT-5:   gpu.shuffle xor
//       MAPPED:     gpu.barrier
// MAPPED-COUNT-5:   gpu.shuffle xor
//   MAPPED-NOT:     gpu.barrier
//   MAPPED-NOT:   gpu.launch

// CHECK: gpu.binary @row_sums_kernel
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{.*}}[32]
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 16, 31, -1;
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 8, 31, -1;
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 4, 31, -1;
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 2, 31, -1;
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 1, 31, -1;
// CHECK-SAME: bar.sync
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 16, 31, -1;
// CHECK-SAME: shfl.sync.bfly.b32 {{[^;]*}}, 1, 31, -1;
// CHECK-NOT: gpu.binary
func.func @row_sums(%x: memref<1024x4096xf32> {llvm.align = 16 : i64}, %s: memref<1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<1024x4096xf32>) outs(%s : memref<1024xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r = transform.tirx.reduce_in_block %t threads = 256 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func block_dims [256] : !transform.any_op
    transform.yield
  }
}
