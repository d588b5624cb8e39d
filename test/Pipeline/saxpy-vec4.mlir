// The demo path: the example payload, its 4-wide schedule, the lowering.
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir \
// RUN:   --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-vec4.transform.mlir \
// RUN:   --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s 

// MAPPED-LABEL: func.func @saxpy
// MAPPED: gpu.launch blocks({{.*}}) in ({{.*}} = %c65536{{.*}}) threads({{.*}}) in ({{.*}} = %c256
// MAPPED-COUNT-2: vector.transfer_read {{.*}} vector<4xf32>
// MAPPED: vector.transfer_write {{.*}} vector<4xf32>
// MAPPED-NOT: gpu.barrier

// The default chip and the lowest PTX that supports it; 16-byte vector
// accesses, no scalar global access left.
// CHECK: gpu.binary @saxpy_kernel
// CHECK-SAME: #nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">
// CHECK-SAME: .version 7.8
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry saxpy_kernel(
// PTX-COUNT-2: ld.global.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: ld.global.b32
