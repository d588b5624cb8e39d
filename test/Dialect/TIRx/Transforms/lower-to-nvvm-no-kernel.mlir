// An unmapped payload: nothing to put on the GPU.
// RUN: tirx-opt %s -verify-diagnostics --tirx-lower-to-nvvm
// RUN: not tirx-opt %s --tirx-lower-to-nvvm 2>&1 | FileCheck %s
// CHECK: error: tirx-lower-to-nvvm: the module has no gpu.launch or gpu.module

// expected-error @below {{the module has no gpu.launch or gpu.module: map the payload to blocks and threads first}}
module {
  func.func @f(%m: memref<4xf32>) {
    return
  }
}
