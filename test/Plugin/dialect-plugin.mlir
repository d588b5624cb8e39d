// The stock mlir-opt-22 loads the plugin and round-trips TIRx attributes.
// RUN: %mlir_opt --load-dialect-plugin=%tirx_plugin %s | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%tirx_plugin %s | %mlir_opt --load-dialect-plugin=%tirx_plugin | FileCheck %s

// Without the plugin the dialect is unknown.
// RUN: not %mlir_opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: attribute created with unregistered dialect

// CHECK: func.func @saxpy() attributes {tirx.feedback = #tirx.feedback<ir_version = "v2", compile_status = ok, launch_status = ok, duration_us = 189.2, sample_count = 30, bandwidth_utilization = 0.97>}
func.func @saxpy() attributes {
  tirx.feedback = #tirx.feedback<ir_version = "v2", compile_status = ok,
    launch_status = ok, duration_us = 189.2, sample_count = 30,
    bandwidth_utilization = 0.97>
} {
  return
}
