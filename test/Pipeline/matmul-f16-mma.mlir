// f16 matmuls on tensor cores, lowered to PTX through upstream's nvgpu
// lowering: f32 sums (fragments by ldmatrix from padded shared tiles, the
// B pair split by a leading-dimension vector.shuffle), and f16 sums.
// RUN: tirx-opt %s -split-input-file --transform-interpreter | tirx-opt -split-input-file --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s

// CHECK: gpu.binary @matmul_kernel
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
func.func @matmul(%A: memref<128x64xf16> {llvm.align = 16 : i64},
                  %B: memref<64x128xf16> {llvm.align = 16 : i64},
                  %C: memref<128x128xf32> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<128x64xf16>, memref<64x128xf16>)
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
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}

// -----

// CHECK: gpu.binary @matmul_acc16_kernel
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
func.func @matmul_acc16(%A: memref<64x64xf16> {llvm.align = 16 : i64},
                        %B: memref<64x64xf16> {llvm.align = 16 : i64},
                        %C: memref<64x64xf16> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<64x64xf16>, memref<64x64xf16>)
                outs(%C : memref<64x64xf16>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [32, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_mma %t warps [2, 2] : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
