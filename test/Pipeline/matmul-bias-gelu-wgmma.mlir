// matmul + bias + GELU (erf form) in one kernel on Hopper's wgmma, lowered
// to PTX for sm_90a: the epilogue consumer tiled to 128x256 blocks, the
// matmul fused into them (fuse_into, its tile allowed 128 KiB), use_wgmma
// on two warpgroups (its register epilogue takes the bias and the GELU),
// map_to_gpu. One kernel: TMA loads, wgmma.mma_async m64n256k16, the sums
// through shared memory, the bias loaded 16 bytes at a time, erf from
// libdevice (inlined: fma and ex2, no call), Y stored 16 bytes at a time,
// and no global load of the sums (the intermediate is gone).
// RUN: tirx-opt %s --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa > %t.ptx.mlir
// RUN: FileCheck %s < %t.ptx.mlir
// RUN: FileCheck %s --check-prefix=ONE --implicit-check-not=call.uni --implicit-check-not=__nv_erff < %t.ptx.mlir

// MAPPED-COUNT-1: gpu.launch
// MAPPED-NOT: gpu.launch
// MAPPED-NOT: linalg.{{(fill|matmul|generic) }}
// MAPPED-NOT: memref.alloc() : memref<256x512xf32>

// CHECK: gpu.binary @matmul_bias_gelu_kernel
// CHECK-SAME: .target sm_90a
// CHECK-SAME: .entry matmul_bias_gelu_kernel(
// CHECK-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-SAME: wgmma.wait_group.sync.aligned {{\\09}}0;
// The epilogue loop, rotated by LLVM: its store first, then the next
// sums (shared), the bias (global) and erf.
// CHECK-SAME: st.global.v4.b32
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ex2.approx.ftz.f32
// CHECK-NOT: .entry

// ONE: gpu.binary @matmul_bias_gelu_kernel
#mn = affine_map<(m, n) -> (m, n)>
#n = affine_map<(m, n) -> (n)>
func.func @matmul_bias_gelu(%A: memref<256x1024xbf16> {llvm.align = 16 : i64},
                            %B: memref<1024x512xbf16> {llvm.align = 16 : i64},
                            %bias: memref<512xf32> {llvm.align = 16 : i64},
                            %Y: memref<256x512xf32> {llvm.align = 16 : i64}) {
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<256x512xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<256x512xf32>)
  linalg.matmul ins(%A, %B : memref<256x1024xbf16>, memref<1024x512xbf16>)
                outs(%acc : memref<256x512xf32>)
  linalg.generic {indexing_maps = [#mn, #n, #mn], iterator_types = ["parallel", "parallel"]}
      ins(%acc, %bias : memref<256x512xf32>, memref<512xf32>) outs(%Y : memref<256x512xf32>) {
  ^bb0(%s: f32, %b: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678118654752 : f32
    %x = arith.addf %s, %b : f32
    %u = arith.mulf %x, %rsqrt2 : f32
    %e = math.erf %u : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %x, %half : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  }
  memref.dealloc %acc : memref<256x512xf32>
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [128, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %m = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %fm = transform.tirx.fuse_into %m {max_shared_bytes = 131072} : (!transform.any_op) -> !transform.any_op
    %w = transform.tirx.use_wgmma %fm stages 4 warpgroups 2 : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
