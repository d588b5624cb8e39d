// Views of saxpy, 1-wide and 4-wide.
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-scalar.transform.mlir --transform-interpreter -o %t.v1.mlir
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir --transform-preload-library=transform-library-paths=%tirx_src/examples/saxpy-vec4.transform.mlir --transform-interpreter -o %t.v4.mlir
// RUN: tirx-opt %t.v1.mlir --tirx-view=what=access_pattern -o /dev/null | FileCheck %s --check-prefix=ACC1
// RUN: tirx-opt %t.v4.mlir --tirx-view=what=access_pattern -o /dev/null | FileCheck %s 
// RUN: tirx-opt %t.v4.mlir --tirx-view=what=thread_binding -o /dev/null | FileCheck %s --check-prefix=BIND
// RUN: tirx-opt %t.v4.mlir --tirx-view=what=roofline -o /dev/null | FileCheck %s --check-prefix=ROOF
// RUN: tirx-opt %t.v4.mlir --tirx-view=what=loop_structure -o /dev/null | FileCheck %s --check-prefix=LOOPS
// RUN: tirx-opt %tirx_src/examples/saxpy.mlir --tirx-view=what=loop_structure -o /dev/null | FileCheck %s --check-prefix=SEED
// RUN: tirx-opt %t.v4.mlir --tirx-view=what=summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY

// 1-wide: scalar loads, contiguous along thread x, width 1.
// ACC1: "alignment": 4,
// ACC1-NEXT: "bank_conflict_risk": "n/a",
// ACC1-NEXT: "buffer": "x",
// ACC1-NEXT: "coalesced": true,
// ACC1-NEXT: "element_bytes": 4,
// ACC1-NEXT: "index": "256*bid.x + tid.x",
// ACC1-NEXT: "kind": "load",
// ACC1-NEXT: "loc": "{{.*}}:{{[0-9]+}}:{{[0-9]+}}",
// ACC1-NEXT: "op": "memref.load",
// ACC1-NEXT: "path": "func @saxpy / gpu.launch#0 / memref.load#0",
// ACC1-NEXT: "pattern": "contiguous",
// ACC1-NEXT: "space": "global",
// ACC1-NEXT: "stride_x": 1,
// ACC1-NEXT: "vector_width": 1

// 4-wide: 16-byte vectors, alignment 16 proven.
// CHECK: "alignment": 16,
// CHECK-NEXT: "bank_conflict_risk": "n/a",
// CHECK-NEXT: "buffer": "x",
// CHECK-NEXT: "coalesced": true,
// CHECK-NEXT: "element_bytes": 4,
// CHECK-NEXT: "index": "1024*bid.x + 4*tid.x",
// CHECK: "op": "vector.load",
// CHECK: "pattern": "contiguous",
// CHECK: "stride_x": 4,
// CHECK-NEXT: "vector_width": 4
// CHECK: "buffer": "y",
// CHECK: "kind": "store",
// CHECK: "op": "vector.store",

// BIND: "blocks": 65536,
// BIND: "elements_per_thread": 4,
// BIND: "ids_used": [
// BIND-NEXT: "bid.x",
// BIND-NEXT: "tid.x"
// BIND: "sm_count": 132,
// BIND-NEXT: "threads_per_block": 256,
// BIND-NEXT: "total_threads": 16777216

// ROOF: "arithmetic_intensity": 0.16666
// ROOF: "bound": "memory",
// ROOF: "bytes": 805306368,
// ROOF: "source": "datasheet"
// ROOF: "flops": 134217728,
// ROOF: "memory_floor_us": 167.77

// LOOPS: "extent": 65536,
// LOOPS-NEXT: "iterator": "parallel",
// LOOPS-NEXT: "lower": 0,
// LOOPS-NEXT: "mapping": "block x",
// LOOPS-NEXT: "name": "bid.x",
// LOOPS: "extent": 256,
// LOOPS-NEXT: "iterator": "parallel",
// LOOPS-NEXT: "lower": 0,
// LOOPS-NEXT: "mapping": "thread x",
// LOOPS-NEXT: "name": "tid.x",
// LOOPS: "kind": "gpu.launch",
// LOOPS-NEXT: "loc": {{.*}}
// LOOPS-NEXT: "path": "func @saxpy / gpu.launch#0"

// Before mapping: the linalg op's iterators.
// SEED: "extent": 67108864,
// SEED-NEXT: "iterator": "parallel",
// SEED: "kind": "linalg.generic",

// SUMMARY: "text": "func @saxpy / gpu.launch#0: grid 65536x1x1, block 256x1x1 (16777216 threads, 496 blocks per SM).\n  load x: 16 B, contiguous, align 16\n  load y: 16 B, contiguous, align 16\n  store y: 16 B, contiguous, align 16\nshared 0 B/block, 0 barriers; 805306368 bytes, 134217728 flops, intensity 0.167 flop/B; floor 168 us, memory-bound (NVIDIA H200 SXM (datasheet)).\n",
