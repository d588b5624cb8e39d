// The bundle ABI's alignment: the payload states none (no llvm.align), yet
// f16 `vectorize 8` proves 16-byte accesses (the runner allocates every
// buffer 256-byte aligned), and the lowering gives ld.global.v4.b32 (8 x
// f16 each), not 16 scalar ld.global.b16.
// RUN: tirx-opt %s --transform-interpreter | FileCheck %s
// RUN: tirx-opt %s --transform-interpreter | tirx-opt --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s --check-prefix=PTX
// RUN: tirx-opt %s --tirx-assume-argument-alignment | FileCheck %s --check-prefix=ABI

// CHECK-LABEL: func.func @add_f16
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1048576xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<1048576xf16>, vector<8xf16>

// PTX-NOT: ld.global.b16
// PTX-COUNT-2: ld.global.v4.b32
// PTX-NOT: ld.global.b16
// PTX: st.global.v4.b32
// PTX-NOT: st.global.b16

// ABI: func.func @add_f16(%{{.*}}: memref<1048576xf16> {llvm.align = 256 : i64}, %{{.*}}: memref<1048576xf16> {llvm.align = 256 : i64}, %{{.*}}: memref<1048576xf16> {llvm.align = 256 : i64})
// ABI: func.func private @helper(%{{.*}}: memref<16xf16>)
#id = affine_map<(d0) -> (d0)>
func.func @add_f16(%x: memref<1048576xf16>, %y: memref<1048576xf16>, %z: memref<1048576xf16>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : memref<1048576xf16>, memref<1048576xf16>) outs(%z : memref<1048576xf16>) {
  ^bb0(%a: f16, %b: f16, %o: f16):
    %s = arith.addf %a, %b : f16
    linalg.yield %s : f16
  }
  return
}
// Not the payload function: a private one's buffers are not the runner's.
func.func private @helper(%m: memref<16xf16>) {
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %b = transform.tirx.tile_to_blocks %g tile_sizes [2048] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %e, %th = transform.tirx.tile_to_threads %t elements_per_thread [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %e width = 8 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} attributes {sym_name = "add_f16"} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
