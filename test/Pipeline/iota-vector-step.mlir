// An arange (linalg.index to i32) vectorized 4 wide, through the whole
// pipeline: vectorize makes the lanes' offsets a vector.step, which the
// lowering turns into its constant (the translation to LLVM IR has none for
// it). Each thread stores its 4 positions, base + 0 to base + 3, in one
// 16-byte store; the bundle exports.
// RUN: tirx-opt %s --transform-interpreter -o %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=BUNDLE < %t.bundle/iota_kernel.ptx

// MAPPED-LABEL: func.func @iota
//       MAPPED:   gpu.launch
//       MAPPED:     vector.step : vector<4xindex>
//       MAPPED:     arith.index_cast %{{.*}} : vector<4xindex> to vector<4xi32>
//       MAPPED:     vector.store %{{.*}} : memref<4096xi32>, vector<4xi32>

// CHECK: gpu.binary @iota_kernel
// CHECK-SAME: or.b32 {{[^;]*}}, 3;
// CHECK-SAME: or.b32 {{[^;]*}}, 2;
// CHECK-SAME: or.b32 {{[^;]*}}, 1;
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: gpu.binary

// BUNDLE: .entry iota_kernel(
// BUNDLE: st.global.v4.b32
func.func @iota(%o: memref<4096xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%o : memref<4096xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  }
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %g tile_sizes [1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
