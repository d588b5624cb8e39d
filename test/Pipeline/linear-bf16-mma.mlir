// nn.Linear's y = x W^T in bf16 (f32 sums) on tensor cores, lowered to
// PTX: B is the weight, held as (n, k) (linalg.matmul with its own
// indexing maps), which is mma.sync's native "col" B. Its 64 x 32 tiles
// are staged in padded shared memory (rows of 40 bf16, k contiguous) by
// cp.async in 3 stages and loaded with ldmatrix x4 without .trans (the
// (k, n) B of matmul-bf16-mma.mlir takes .trans); A as there. A second
// kernel takes A as (k, m): its ldmatrix is x4.trans.
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s

// MAPPED: gpu.launch
// MAPPED-NOT: linalg.matmul
// MAPPED: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xbf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
// MAPPED: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xbf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>
// MAPPED: nvgpu.mma.sync
// MAPPED: gpu.launch
// MAPPED: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x64xbf16, strided<[72, 1], offset: ?>, #gpu.address_space<workgroup>>
// MAPPED: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<64x32xbf16, strided<[40, 1], offset: ?>, #gpu.address_space<workgroup>>

// CHECK: gpu.binary @linear_kernel
// CHECK-SAME: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
// CHECK-SAME: cp.async.wait_group {{\\09}}1;
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-NOT: ldmatrix.sync.aligned.m8n8.x4.trans
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: ld.global.v4
// CHECK: gpu.binary @linear_ta_kernel
// CHECK-SAME: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
func.func @linear(%X: memref<128x256xbf16> {llvm.align = 16 : i64},
                  %W: memref<128x256xbf16> {llvm.align = 16 : i64},
                  %Y: memref<128x128xf32> {llvm.align = 16 : i64}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%X, %W : memref<128x256xbf16>, memref<128x256xbf16>)
                outs(%Y : memref<128x128xf32>)
  return
}
func.func @linear_ta(%XT: memref<256x128xbf16> {llvm.align = 16 : i64},
                     %W: memref<128x256xbf16> {llvm.align = 16 : i64},
                     %Y: memref<128x128xf32> {llvm.align = 16 : i64}) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%XT, %W : memref<256x128xbf16>, memref<128x256xbf16>)
                outs(%Y : memref<128x128xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ms = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %ms : !transform.any_op {
    ^bb0(%m: !transform.any_op):
      %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [64, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %r, %l = transform.tirx.tile_reduction %t tile_sizes [0, 0, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %p = transform.tirx.promote_to_shared %r operands [0, 1] {padding = 8} : (!transform.any_op) -> !transform.any_op
      %w = transform.tirx.use_mma %p warps [2, 2] : (!transform.any_op) -> !transform.any_op
      transform.tirx.pipeline %l stages = 3 : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%func: !transform.any_op):
      transform.tirx.map_to_gpu %func : !transform.any_op
    }
    transform.yield
  }
}
