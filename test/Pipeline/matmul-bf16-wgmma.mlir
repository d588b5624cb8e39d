// A bf16 matmul (f32 sums) on Hopper's wgmma, lowered to PTX for sm_90a:
// use_wgmma on 128x128 block tiles, 3 stages of TMA loads (A in 128x64
// boxes, B in two 64x64 boxes, 128-byte swizzle) completed on mbarriers,
// wgmma.mma_async m64n128k16 (two per 16-wide K step: 128 rows), one group
// of wgmma left in flight, then the sums through shared memory into C with
// 16-byte accesses. The default chip sm_90 becomes sm_90a (the "a"
// features are what wgmma needs) and PTX 8.3 (the fence that acquires the
// tensor maps the host wrote to global memory); another chip is refused.
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// RUN: not tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm="cubin-chip=sm_80 cubin-format=isa" 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm="cubin-features=+ptx80 cubin-format=isa" 2>&1 | FileCheck %s --check-prefix=PTX80

// MAPPED: nvgpu.tma.create.descriptor
// MAPPED: gpu.launch
// MAPPED: nvgpu.tma.async.load
// MAPPED: nvgpu.warpgroup.mma

// The tensor maps arrive as pointers (tirx-tensor-map-params).
// CHECK: gpu.binary @matmul_kernel
// CHECK-SAME: .version 8.3
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .entry matmul_kernel(
// CHECK-SAME: .param .u64 .ptr .align 1 matmul_kernel_param_0,
// CHECK-SAME: mbarrier.init.shared.b64
// CHECK-SAME: fence.mbarrier_init.release.cluster;
// CHECK-SAME: fence.proxy.async.shared::cta;
// CHECK-SAME: fence.proxy.tensormap::generic.acquire.sys [%rd{{[0-9]+}}], 128;
// CHECK-SAME: prefetch.tensormap
// CHECK-SAME: mbarrier.arrive.expect_tx.shared.b64
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: mbarrier.try_wait.parity.shared.b64
// CHECK-SAME: bar.warp.sync {{\\09}}-1;
// CHECK-SAME: wgmma.fence.sync.aligned;
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-SAME: wgmma.commit_group.sync.aligned;
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}1;
// CHECK-SAME: mbarrier.arrive.shared.b64
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}0;
// CHECK-SAME: st.shared.v2.b32
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32

// PTX80: error: tirx-lower-to-nvvm: 'nvgpu.tma.async.load' (use_wgmma) needs PTX 8.3 (+ptx83) or newer, got '+ptx80'
// SM80: error: tirx-lower-to-nvvm: 'nvgpu.tma.async.load' (use_wgmma) needs sm_90a (wgmma and TMA), but the chip is sm_80
func.func @matmul(%A: memref<256x1024xbf16> {llvm.align = 16 : i64},
                  %B: memref<1024x256xbf16> {llvm.align = 16 : i64},
                  %C: memref<256x256xf32> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<256x1024xbf16>, memref<1024x256xbf16>)
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
