// An f32 linear (C += A W^T, W held as (n, k)) on Hopper's wgmma in tf32,
// lowered to PTX for sm_90a: use_wgmma on 128x128 block tiles, 3 stages of
// TMA loads (A and W in 128 x 32 boxes: one 128-byte swizzled row of 32
// f32 along K each), completed on mbarriers; both operands K-major, so
// wgmma.mma_async m64n128k8 .tf32 reads them without a transpose (PTX has
// none for 32-bit types); 4 K steps of 8 per tile for each of the block's
// two 64-row groups; one group of wgmma left in flight; the accumulators
// through shared memory (pairs of f32) into C with 16-byte accesses.
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// RUN: not tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm="cubin-chip=sm_80 cubin-format=isa" 2>&1 | FileCheck %s --check-prefix=SM80

// MAPPED: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x32xf32
// MAPPED: nvgpu.tma.create.descriptor {{.*}} -> <tensor = memref<128x32xf32
// MAPPED: gpu.launch
// MAPPED: nvgpu.tma.async.load
// MAPPED: nvvm.wgmma.mma_async {{.*}} A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]

// CHECK: gpu.binary @linear_kernel
// CHECK-SAME: .version 8.3
// CHECK-SAME: .target sm_90a
// CHECK-SAME: mbarrier.init.shared.b64
// CHECK-SAME: fence.proxy.tensormap::generic.acquire.sys
// CHECK-SAME: mbarrier.arrive.expect_tx.shared.b64
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: mbarrier.try_wait.parity.shared.b64
// CHECK-SAME: wgmma.fence.sync.aligned;
// The 32-bit form takes no imm-trans-a/b operands: scale-d, then
// imm-scale-a and imm-scale-b only.
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{[^;]*}}, p, 1, 1;
// CHECK-SAME: wgmma.commit_group.sync.aligned;
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}1;
// CHECK-SAME: mbarrier.arrive.shared.b64
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}0;
// CHECK-SAME: st.shared.v2.b32
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32

// SM80: error: tirx-lower-to-nvvm: 'nvgpu.tma.async.load' (use_wgmma) needs sm_90a (wgmma and TMA), but the chip is sm_80
func.func @linear(%A: memref<256x512xf32> {llvm.align = 16 : i64},
                  %W: memref<256x512xf32> {llvm.align = 16 : i64},
                  %C: memref<256x256xf32> {llvm.align = 16 : i64}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x512xf32>, memref<256x512xf32>)
                outs(%C : memref<256x256xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 3 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
