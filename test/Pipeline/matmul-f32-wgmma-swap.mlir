// REQUIRES: ptxas
// An f32 matmul with B held as (k, n) (torch.mm's) on Hopper's wgmma in
// tf32, lowered to PTX for sm_90a: use_wgmma on 128x256 block tiles, 4
// stages, two warpgroups computes C^T = B^T A^T. B is staged by TMA in 32 x
// 32 boxes and loaded into registers (ld.shared.b32, its swizzle undone in
// the address) as wgmma's A fragments; A's K-major tile is wgmma's B (a
// descriptor, N = 128). Each K step's wgmma is one group; before a step
// reloads its fragments, all but the last 3 groups are complete. The
// accumulators go into shared memory transposed (st.shared.b32), then into
// C with 16-byte accesses. ptxas takes it without serializing the wgmma
// (no "wgmma.mma_async instructions are serialized" in its log).
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ir-version=swap" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.bundle/manifest.json
// RUN: FileCheck %s --check-prefix=MATH < %t.bundle/manifest.json
// RUN: not grep -i serialized %t.bundle/matmul_f32_kernel.ptxas.log

// CHECK: gpu.binary @matmul_f32_kernel
// CHECK-SAME: .target sm_90a
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: mbarrier.try_wait.parity.shared.b64
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}3;
// CHECK-SAME: ld.shared.b32
// CHECK-SAME: wgmma.fence.sync.aligned;
// The register form: four b32 registers of A, then B's descriptor.
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{[{]}}{{[^}]*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK-SAME: wgmma.commit_group.sync.aligned;
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}0;
// CHECK-SAME: st.shared.b32
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: st.global.v4.b32

// The bundle: math tf32 (the check's tolerance follows it); A in 128 x 32
// boxes, B in 32 x 32 ones; wgmma's flops counted from its inline PTX
// (2 x 256 x 512 x 512 = 134217728, plus C's 131072 adds).
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 32
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "box": [
// MANIFEST-NEXT: 32,
// MANIFEST-NEXT: 32
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "flops": 134348800,
// MATH: "chip": "sm_90a",
// MATH: "math": "tf32",

func.func @matmul_f32(%A: memref<256x512xf32> {llvm.align = 16 : i64},
                      %B: memref<512x512xf32> {llvm.align = 16 : i64},
                      %C: memref<256x512xf32> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<256x512xf32>, memref<512x512xf32>)
                outs(%C : memref<256x512xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %w = transform.tirx.use_wgmma %t stages 4 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
