// RUN: tirx-opt %s | FileCheck %s
// RUN: tirx-opt %s | tirx-opt | FileCheck %s
// RUN: tirx-opt %s -mlir-print-op-generic | tirx-opt | FileCheck %s

// Round trip of the harness attributes, as an agent would write them: keys in
// any order, integers where a figure is whole, absent fields omitted.

// CHECK: #[[$LOC:.+]] = loc("saxpy.mlir":12:5)
// CHECK-LABEL: func.func @full
// CHECK-SAME: tirx.feedback = #tirx.feedback<ir_version = "v3", compile_status = ok, launch_status = ok, duration_us = 189.2, duration_min_us = 187.5, duration_max_us = 195, sample_count = 30, bandwidth_utilization = 0.97, achieved_occupancy = 0.82, theoretical_occupancy = 1, registers_per_thread = 16, shared_mem_bytes = 0, spill_bytes = 0, bottleneck = memory_bound, bottleneck_location = "func @saxpy / forall (block x) / forall (thread x)", bottleneck_loc = #[[$LOC]], correctness = pass, correctness_inputs = 3, max_abs_error = 0, rel_l2_error = 1.0e-07, correctness_detail = "x">
func.func @full() attributes {
  tirx.feedback = #tirx.feedback<correctness = pass, ir_version = "v3",
      launch_status = ok, compile_status = ok, duration_us = 189.2,
      duration_min_us = 187.5, duration_max_us = 195.0, sample_count = 30,
      bandwidth_utilization = 0.97, achieved_occupancy = 0.82,
      theoretical_occupancy = 1, registers_per_thread = 16,
      shared_mem_bytes = 0, spill_bytes = 0, bottleneck = memory_bound,
      bottleneck_location = "func @saxpy / forall (block x) / forall (thread x)",
      bottleneck_loc = loc("saxpy.mlir":12:5), correctness_inputs = 3,
      max_abs_error = 0, rel_l2_error = 1.0e-7, correctness_detail = "x">
} {
  return
}

// Defaults are elided: a compile-only feedback is short.
// CHECK-LABEL: func.func @compile_only
// CHECK-SAME: #tirx.feedback<compile_status = ok, registers_per_thread = 16>
func.func @compile_only() attributes {
  tirx.feedback = #tirx.feedback<compile_status = ok, registers_per_thread = 16>
} {
  return
}

// CHECK-LABEL: func.func @failed_compile
// CHECK-SAME: #tirx.feedback<ir_version = "v4", compile_status = error>
func.func @failed_compile() attributes {
  tirx.feedback = #tirx.feedback<ir_version = "v4", compile_status = error, launch_status = not_run>
} {
  return
}

// CHECK-LABEL: func.func @timeout
// CHECK-SAME: #tirx.feedback<compile_status = ok, launch_status = timeout>
func.func @timeout() attributes {
  tirx.feedback = #tirx.feedback<compile_status = ok, launch_status = timeout>
} {
  return
}

// CHECK-LABEL: func.func @versions
// CHECK-SAME: tirx.root = #tirx.version<id = "v1", digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08">
// CHECK-SAME: tirx.version = #tirx.version<id = "v2", parent = "v1", digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000">
func.func @versions() attributes {
  tirx.root = #tirx.version<id = "v1", digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08">,
  tirx.version = #tirx.version<digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000", parent = "v1", id = "v2">
} {
  return
}
