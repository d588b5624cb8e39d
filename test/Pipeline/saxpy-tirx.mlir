// The checked transforms on saxpy: tile to blocks, to threads, vectorize 4
// with alignment 16 proven, then the upstream GPU mapping and the lowering
// to ld.global.v4.b32.
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-tirx.transform.mlir --transform-interpreter | FileCheck %s
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-tirx.transform.mlir --transform-interpreter | tirx-opt --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @saxpy
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c65536{{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK: %[[I:.+]] = affine.apply #{{.*}}(%block_id_x, %thread_id_x)
// CHECK: vector.load %{{.*}}[%[[I]]] {alignment = 16 : i64} : memref<67108864xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<67108864xf32>, vector<4xf32>
// CHECK-NOT: linalg.generic

// PTX-COUNT-2: ld.global.v4.b32
// PTX-SAME: st.global.v4.b32
