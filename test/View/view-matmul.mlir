// A matmul with shared-memory tiles: shared bytes, barriers, bank conflicts.
// RUN: tirx-opt %S/Inputs/matmul-shared.mlir --tirx-view=what=memory_footprint -o /dev/null | FileCheck %s 
// RUN: tirx-opt %S/Inputs/matmul-shared.mlir --tirx-view=what=access_pattern -o /dev/null | FileCheck %s --check-prefix=ACC
// RUN: tirx-opt %S/Inputs/matmul-shared.mlir --tirx-view=what=roofline -o /dev/null | FileCheck %s --check-prefix=ROOF

// CHECK: "barriers": 2,
// CHECK: "bytes": 1024,
// CHECK-NEXT: "element_type": "f32",
// CHECK-NEXT: "kind": "allocation",
// CHECK: "space": "workgroup",
// CHECK: "bytes_read": 524288,
// CHECK-NEXT: "bytes_written": 262144,
// CHECK-NEXT: "compiled": "unknown",
// CHECK: "shared_bytes_per_block": 3072,

// The transposed staging store and load conflict 16 ways; the tile reads do not.
// ACC: "buffer": "A",
// ACC-NEXT: "coalesced": true,
// ACC: "index": "4096*bid.y + iv0 + tid.x + 256*tid.y",
// ACC: "bank_conflict_risk": "none",
// ACC-NEXT: "buffer": "func @matmul / gpu.launch#0 / memref.alloc#0",
// ACC-NEXT: "coalesced": "n/a",
// ACC: "index": "tid.x + 16*tid.y",
// ACC-NEXT: "kind": "store",
// ACC: "bank_conflict_risk": "high",
// ACC-NEXT: "buffer": "func @matmul / gpu.launch#0 / memref.alloc#2",
// ACC: "index": "16*tid.x + tid.y",
// ACC-NEXT: "kind": "store",
// ACC: "space": "workgroup",
// ACC-NEXT: "stride_x": 16,

// ROOF: "bound": "compute",
// ROOF: "flops": 34603008,
