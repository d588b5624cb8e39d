// use_wgmma with tails in M, N and K: M = 320 and N = 200 (128 x 128
// tiles: a 64-row and a 72-column tail), K = 200 (three tiles of 64 and
// one of 8). Every block runs the full tile's schedule: TMA fills A's rows
// past M, B's columns past N and both past K with zeros; the stores of C
// are guarded (bounds proven by tirx-check-bounds); one kernel on 3 x 2
// blocks, which ptxas accepts for sm_90a.
// REQUIRES: ptxas
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-check-bounds -o /dev/null
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ir-version=tails" -o /dev/null
// RUN: FileCheck %s < %t.bundle/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t.bundle/matmul_kernel.ptx

// CHECK: "grid": [
// CHECK-NEXT: 2,
// CHECK-NEXT: 3,

// PTX: cp.async.bulk.tensor.2d
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// The guards: a row past 319, a column past 199.
// PTX-DAG: setp.gt.u64 {{.*}}, 319;
// PTX-DAG: setp.gt.u64 {{.*}}, 199;
// PTX: st.global.v4
func.func @matmul(%A: memref<320x200xbf16> {llvm.align = 16 : i64},
                  %B: memref<200x200xbf16> {llvm.align = 16 : i64},
                  %C: memref<320x200xf32> {llvm.align = 16 : i64}) {
  linalg.matmul ins(%A, %B : memref<320x200xbf16>, memref<200x200xbf16>)
                outs(%C : memref<320x200xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %m tile_sizes [128, 128] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %all = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %all stages 3 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
