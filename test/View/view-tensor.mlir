// Views of a front end's payload on tensors: its tensors are the buffers a
// kernel reads and writes (as bufferize would make them), so bytes and
// flops are real; the summary counts its one linalg op once.
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-view=what=roofline -o /dev/null | FileCheck %s --check-prefix=ROOF
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-view=what=memory_footprint -o /dev/null | FileCheck %s --check-prefix=MEM
// RUN: tirx-opt %tirx_src/examples/saxpy-tensor.mlir --tirx-view=what=summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// 2 x 2^24 floats read, 2^24 written; a mul and an add per element.
// ROOF: "bound": "memory"
// ROOF: "bytes": 201326592
// ROOF: "flops": 33554432

// MEM: "bytes": 67108864
// MEM: "kind": "argument"
// MEM: "type": "tensor<16777216xf32>"
// MEM: "kind": "result"
// MEM: "name": "result0"
// MEM: "bytes_read": 134217728
// MEM: "bytes_written": 67108864

// SUMMARY: not mapped to the GPU yet (1 linalg ops, 0 loops)

// The CHECK lines of this test are named by the --check-prefix of each RUN line.
