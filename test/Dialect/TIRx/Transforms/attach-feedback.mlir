// The runner's feedback JSON becomes #tirx.feedback on the payload function
// and on the kernels it launches.
// RUN: tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-saxpy.json | FileCheck %s
// RUN: tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-saxpy.json | tirx-opt | FileCheck %s

// Schema 3: why correctness failed and Nsight Compute's figures
// (tirx-run --counters) come along.
// RUN: tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-counters.json | FileCheck %s --check-prefix=COUNTERS
// COUNTERS: gpu.func @saxpy_kernel
// COUNTERS-SAME: achieved_occupancy = 0.8347
// COUNTERS-SAME: correctness = fail
// COUNTERS-SAME: correctness_reason = "nondeterministic", dram_throughput = 0.9162, sm_throughput = 0.1708, top_stalls = "long_scoreboard 0.98, wait 0.02", counter_passes = 37>

// Bad files: the verifier's message, the unknown status, the missing
// function, the JSON error; each a non-zero exit.
// RUN: not tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-bad-ratio.json 2>&1 | FileCheck %s --check-prefix=RATIO
// RUN: not tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-bad-status.json 2>&1 | FileCheck %s --check-prefix=STATUS
// RUN: not tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-other.json 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not tirx-opt %s --tirx-attach-feedback=file=%S/Inputs/feedback-truncated.json 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not tirx-opt %s --tirx-attach-feedback=file=%t.missing 2>&1 | FileCheck %s --check-prefix=MISSING

// CHECK: #[[$LOC:.+]] = loc("saxpy.mlir":12:5)
// CHECK-LABEL: gpu.module @saxpy_kernel
// CHECK: gpu.func @saxpy_kernel
// CHECK-SAME: tirx.feedback = #tirx.feedback<ir_version = "v2", compile_status = ok, launch_status = ok, duration_us = 188.416, duration_min_us = 187.2, duration_max_us = 196.1, sample_count = 2000, bandwidth_utilization = 1, theoretical_occupancy = 1, registers_per_thread = 18, shared_mem_bytes = 0, spill_bytes = 0, bottleneck = memory_bound, bottleneck_location = "func @saxpy / gpu.launch_func @saxpy_kernel", bottleneck_loc = #[[$LOC]], correctness = pass, correctness_inputs = 3, max_abs_error = 0, rel_l2_error = 0>
// CHECK-LABEL: func.func @saxpy
// CHECK-SAME: tirx.feedback = #tirx.feedback<ir_version = "v2"

// RATIO: error: tirx-attach-feedback: {{.*}}feedback-bad-ratio.json is inconsistent: 'achieved_occupancy' is a ratio and must lie in [0, 1], got 1.5
// STATUS: error: tirx-attach-feedback: {{.*}}: unknown status (compile_status 'ok', launch_status 'crashed'
// OTHER: error: tirx-attach-feedback: {{.*}}feedback-other.json is about @gemm, which this module does not define
// JSON: error: tirx-attach-feedback: {{.*}}feedback-truncated.json: feedback: [json.exception.parse_error
// MISSING: error: tirx-attach-feedback: {{.*}}.missing: cannot be read

module attributes {gpu.container_module} {
  gpu.module @saxpy_kernel {
    gpu.func @saxpy_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @saxpy(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @saxpy_kernel::@saxpy_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}
