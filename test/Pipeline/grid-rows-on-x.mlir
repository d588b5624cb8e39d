// An elementwise add of 131072 x 1024, a row a block (what tirx auto
// chooses): 131072 blocks, more than y takes (65535), so map_to_gpu puts
// the rows on x. The bundle exports with a grid tirx-run accepts
// (compile only: no PTX assembler needed).
// RUN: tirx-opt %s --transform-interpreter -o %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: rm -rf %t.bundle && tirx-opt %t.mapped.mlir --tirx-export-bundle="dir=%t.bundle ptxas=none" -o /dev/null
// RUN: FileCheck %s < %t.bundle/manifest.json

// MAPPED-LABEL: func.func @add
//       MAPPED:   gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c131072{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}})
//       MAPPED:     %[[BX:.*]] = gpu.block_id  x
//       MAPPED:     %[[ROW:.*]] = affine.apply #{{.*}}()[%[[BX]], %{{.*}}]
//       MAPPED:     vector.load %{{.*}}[%[[ROW]], %{{.*}}] {{.*}} : memref<131072x1024xf32>, vector<4xf32>

// CHECK: "grid": [
// CHECK-NEXT: 131072,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK-NEXT: ],
func.func @add(%x: memref<131072x1024xf32>, %y: memref<131072x1024xf32>, %z: memref<131072x1024xf32>) {
  linalg.add ins(%x, %y : memref<131072x1024xf32>, memref<131072x1024xf32>)
             outs(%z : memref<131072x1024xf32>)
  return
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %add = transform.structured.match ops{["linalg.add"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %f = transform.tirx.tile_to_blocks %add tile_sizes [1, 1024] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %u, %h = transform.tirx.tile_to_threads %t elements_per_thread [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.tirx.vectorize %u width = 4 : !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.tirx.map_to_gpu %func : !transform.any_op
    transform.yield
  }
}
