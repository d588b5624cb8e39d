// Two ops through an intermediate buffer, the producer fused into the
// consumer's block loop: one kernel, the intermediate tile in shared memory
// between barriers, no global round trip and no host-side buffer left.
// RUN: tirx-opt %tirx_src/examples/exp-scale.mlir \
// RUN:   --transform-preload-library=transform-library-paths=%tirx_src/examples/exp-scale-fused.transform.mlir \
// RUN:   --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s

// MAPPED-LABEL: func.func @exp_scale
//   MAPPED-NOT: memref.alloc() : memref<1048576xf32>
//       MAPPED: gpu.launch
//       MAPPED:   memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
//       MAPPED:   gpu.barrier
//       MAPPED:   vector.{{.*}}vector<4xf32>
//       MAPPED:   math.exp {{.*}} : vector<4xf32>
//       MAPPED:   gpu.barrier
//       MAPPED:   arith.mulf {{.*}} : vector<4xf32>
//   MAPPED-NOT: memref.dealloc
//   MAPPED-NOT: gpu.launch

// One kernel; exp's result is stored to and loaded from shared memory, every
// access 16 bytes wide.
// CHECK: gpu.binary @exp_scale_kernel
// CHECK-SAME: .shared .align {{[0-9]+}} .b8 {{.*}}[4096]
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.global.v4.b32
// CHECK-SAME: ex2.approx
// CHECK-SAME: st.shared.v4.b32
// CHECK-SAME: bar.sync
// CHECK-SAME: ld.shared.v4.b32
// CHECK-SAME: st.global.v4.b32
// CHECK-NOT: gpu.binary
