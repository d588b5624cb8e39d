// A tensor seed's reference: bufferized as the bufferize action does it
// (inputs, then the result as an out-parameter), then mapped plainly; its
// bundle has the parameters and roles of a bufferized candidate's.
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-map-reference | FileCheck %s
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLES < %t/manifest.json
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-bufferize | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @saxpy
// CHECK-SAME: (%{{.*}}: memref<16777216xf32>, %{{.*}}: memref<16777216xf32>, %{{.*}}: memref<16777216xf32>)
// CHECK: gpu.launch

// ROLES: "name": "arg0"
// ROLES: "role": "in"
// ROLES: "name": "arg1"
// ROLES: "role": "in"
// ROLES: "name": "arg2"
// ROLES: "role": "out"

// BUF-LABEL: func.func @saxpy
// BUF-SAME: (%[[X:.+]]: memref<16777216xf32>, %[[Y:.+]]: memref<16777216xf32>, %[[O:.+]]: memref<16777216xf32>)
// BUF: linalg.generic
// BUF-SAME: outs(%[[O]] : memref<16777216xf32>)

// The reference keeps a broadcast that the candidates' bufferize folds into
// its consumer (bias_gelu_f32: x + b over rows): two kernels, the first
// writing the broadcast bias into a buffer of the function's own, so the
// fold is checked against a reference that does not share it. The
// parameters are the candidate's all the same (x, b in; the result out).
// RUN: tirx-opt %tirx_src/examples/suite/bias_gelu_f32.mlir --tirx-map-reference | FileCheck %s --check-prefix=BCAST
// BCAST-LABEL: func.func @forward
// BCAST-SAME: (%{{.*}}: memref<4096x8192xf32>, %{{.*}}: memref<8192xf32>, %{{.*}}: memref<4096x8192xf32>)
// BCAST: memref.alloc() {{.*}} : memref<4096x8192xf32>
// BCAST-COUNT-2: gpu.launch
