// A 2-D transpose: the load is coalesced, the store is not.
// RUN: tirx-opt %S/Inputs/transpose.mlir --tirx-view=what=access_pattern -o /dev/null | FileCheck %s
// RUN: tirx-opt %S/Inputs/transpose.mlir --tirx-view=what=summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// CHECK: "buffer": "in",
// CHECK-NEXT: "coalesced": true,
// CHECK: "index": "32*bid.x + 1024*bid.y + tid.x",
// CHECK: "pattern": "contiguous",
// CHECK: "stride_x": 1,
// CHECK: "buffer": "out",
// CHECK-NEXT: "coalesced": false,
// CHECK: "index": "32768*bid.x + bid.y + 1024*tid.x",
// CHECK-NEXT: "kind": "store",
// CHECK: "pattern": "strided",
// CHECK: "stride_x": 1024,
// SUMMARY: store out: 4 B, strided, align 4
