// The 1-wide schedule leaves a linalg.generic per thread; the pipeline lowers
// it (a plain gpu-lower-to-nvvm-pipeline would fail on it).
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir \
// RUN:   --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-scalar.transform.mlir \
// RUN:   --transform-interpreter > %t.mapped.mlir
// RUN: FileCheck %s --check-prefix=MAPPED < %t.mapped.mlir
// RUN: tirx-opt %t.mapped.mlir --tirx-lower-to-nvvm=cubin-format=isa | FileCheck %s 
// RUN: not %mlir_opt %t.mapped.mlir --pass-pipeline='builtin.module(gpu-lower-to-nvvm-pipeline{cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM

// MAPPED: gpu.launch
// MAPPED: linalg.generic

// CHECK: .entry saxpy_kernel(
// PTX-COUNT-2: ld.global.b32
// CHECK-SAME: st.global.b32
// CHECK-NOT: .v4

// UPSTREAM: error
