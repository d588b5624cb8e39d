// A matmul on wgmma (use_wgmma): its A and W tiles come by TMA, through
// tensor maps made on the host, and count as reads of the buffers the maps
// describe: A (256 KiB), W (512 KiB) and C (512 KiB, C += the sums) read,
// C written. (Before: C's bytes alone, "bytes_read": 524288, a 4096^3 f32
// linear's summary 64 MiB of the 192 it moves.)
// RUN: tirx-opt %s --transform-interpreter --tirx-view=what=memory_footprint -o /dev/null | FileCheck %s

// CHECK: "bytes_read": 1310720,
// CHECK-NEXT: "bytes_written": 524288,
func.func @linear_f32(%A: memref<256x256xf32>, %W: memref<512x256xf32>, %C: memref<256x512xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
                ins(%A, %W : memref<256x256xf32>, memref<512x256xf32>)
                outs(%C : memref<256x512xf32>)
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
