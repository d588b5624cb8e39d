// The verifier runs inside the stock mlir-opt-22 too.
// RUN: %mlir_opt --load-dialect-plugin=%tirx_plugin %s -split-input-file -verify-diagnostics
// RUN: not %mlir_opt --load-dialect-plugin=%tirx_plugin %s -split-input-file 2>&1 | FileCheck %s
// CHECK: error: 'achieved_occupancy' is a ratio and must lie in [0, 1], got 1.5
// CHECK: error: expected ::mlir::tirx::LaunchStatus to be one of

// expected-error @below {{'achieved_occupancy' is a ratio and must lie in [0, 1], got 1.5}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, achieved_occupancy = 1.5>} { return }

// -----

// expected-error @below {{expected ::mlir::tirx::LaunchStatus to be one of}}
// expected-error @below {{failed to parse TIRx_FeedbackAttr parameter 'launch_status'}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = crashed>} { return }
