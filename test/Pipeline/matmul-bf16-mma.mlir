// A bf16 matmul (f32 sums) on tensor cores, lowered to PTX: the A and B
// tiles staged in padded shared memory by cp.async in 3 stages
// (pipeline), fragments loaded with ldmatrix (x4; x4.trans for B),
// mma.sync m16n8k16 on bf16, the accumulators kept in registers across
// the K loop.
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// The bundle counts the products (nvvm.mma.sync after tirx-lower-bf16-mma):
// 2 x 128 x 128 x 256 flops.
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ptxas=none" > /dev/null
// RUN: FileCheck %s --check-prefix=FLOPS --input-file=%t.bundle/manifest.json
// FLOPS: "flops": 8388608,

// MAPPED: gpu.launch
// MAPPED: nvvm.cp.async.commit.group
// MAPPED: nvvm.cp.async.wait.group 1
// MAPPED: nvgpu.ldmatrix
// MAPPED: nvgpu.mma.sync

// The shared buffers are 16-byte aligned (3 stages of 64x40 and 32x72
// bf16); 16-byte cp.async copies skipping L1, one group per tile, waits
// that leave one group in flight; no synchronous global load of A or B.
// CHECK: gpu.binary @matmul_kernel
// CHECK-SAME: .shared .align 16 .b8 __wg_matmul_kernel_0[15360]
// CHECK-SAME: .shared .align 16 .b8 __wg_matmul_kernel_1[13824]
// CHECK-SAME: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// CHECK-SAME: cp.async.commit_group;
// CHECK-SAME: cp.async.wait_group {{\\09}}1;
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-SAME: cp.async.wait_group {{\\09}}0;
// CHECK-NOT: ld.global.v4
func.func @matmul(%A: memref<128x256xbf16> {llvm.align = 16 : i64},
                  %B: memref<256x128xbf16> {llvm.align = 16 : i64},
                  %C: memref<128x128xf32> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<128x256xbf16>, memref<256x128xbf16>)
                outs(%C : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_mma %p warps [2, 2] : (!transform.any_op) -> !transform.any_op
    transform.tirx.pipeline %l stages = 3 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
