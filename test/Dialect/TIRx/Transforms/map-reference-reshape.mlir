// A seed that reshapes its input (tensor.collapse_shape, torch's view) maps
// to a reference whose kernel reads the payload's buffer through the view
// made inside the kernel: the bundle exports (before: "kernel argument #0
// ... is computed on the host").
// RUN: tirx-opt %tirx_src/examples/suite/view_rowsum.mlir --tirx-map-reference | FileCheck %s
// RUN: rm -rf %t && tirx-opt %tirx_src/examples/suite/view_rowsum.mlir --tirx-map-reference --tirx-export-bundle="dir=%t ptxas=none reference=true" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// CHECK-LABEL: func.func @forward
// CHECK: gpu.launch
// CHECK: memref.collapse_shape
// CHECK: gpu.terminator

// MANIFEST: "shape": [
// MANIFEST-NEXT: 16,
// MANIFEST-NEXT: 512,
// MANIFEST-NEXT: 4096
