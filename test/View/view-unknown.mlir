// Dynamic shapes and unknown ops still get a view: "unknown" where a figure
// cannot be derived, never an error.
// RUN: tirx-opt %s -allow-unregistered-dialect --tirx-view=what=all -o /dev/null | FileCheck %s
// RUN: not tirx-opt %s -allow-unregistered-dialect --tirx-view=what=everything -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: tirx-view: unknown view 'everything'; expected one of: loop_structure, thread_binding, memory_footprint, access_pattern, call_graph, roofline, summary, all

// CHECK-DAG: "bytes": "unknown",
// CHECK-DAG: "shape": [
// CHECK-DAG: "?"
// CHECK-DAG: "index": "unknown",
// CHECK-DAG: "pattern": "unknown",
// CHECK-DAG: "extent": "unknown",
// CHECK-DAG: "total_threads": "unknown"
// CHECK-DAG: "time_floor_us": "unknown",
// CHECK-DAG: "kind": "declaration",
// CHECK-DAG: "external": [
func.func private @helper(f32) -> f32
func.func @f(%m: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %n, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %c = %c1) {
    %i = "test.index"(%tx) : (index) -> index
    %v = memref.load %m[%i] : memref<?xf32>
    "test.use"(%v) : (f32) -> ()
    gpu.terminator
  }
  scf.for %k = %c1 to %n step %c1 {
    %w = memref.load %m[%k] : memref<?xf32>
    %r = func.call @helper(%w) : (f32) -> f32
    memref.store %r, %m[%k] : memref<?xf32>
  }
  return
}
