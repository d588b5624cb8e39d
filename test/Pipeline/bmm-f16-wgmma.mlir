// torch.bmm on f16 (f16 C) on Hopper's wgmma, lowered to PTX for sm_90a:
// a batch of 4, one batch and a 128 x 256 tile a block (two warpgroups),
// the fill taken over. The tensor maps see A, B and C's buffers as 2-D
// (collapse_shape: (b * M, K), (b * K, N)); B's K rows start at b * K. The
// f32 sums are rounded to f16 once, stored 8 bytes (4 halves) at a time.
// The bundle's manifest gives the maps' shapes (bmm-f16-wgmma-bundle.test).
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s

// MAPPED-NOT: linalg.fill
// MAPPED-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<4x256x128xf16> into memref<1024x128xf16>
// MAPPED-DAG: memref.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : memref<4x128x512xf16> into memref<512x512xf16>
// MAPPED: nvgpu.tma.create.descriptor
// MAPPED: gpu.launch
// MAPPED: nvgpu.tma.async.load
// MAPPED: nvgpu.warpgroup.mma

// CHECK: gpu.binary @bmm_kernel
// CHECK-SAME: .target sm_90a
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}0;
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: cvt.rn.f16x2.f32
// CHECK-SAME: st.global.v2.b32
func.func @bmm(%A: memref<4x256x128xf16> {llvm.align = 16 : i64},
               %B: memref<4x128x512xf16> {llvm.align = 16 : i64},
               %C: memref<4x256x512xf16> {llvm.align = 16 : i64}) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%C : memref<4x256x512xf16>)
  linalg.batch_matmul ins(%A, %B : memref<4x256x128xf16>, memref<4x128x512xf16>)
                      outs(%C : memref<4x256x512xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [1, 128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 2 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
