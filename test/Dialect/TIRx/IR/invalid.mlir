// RUN: tirx-opt %s -split-input-file -verify-diagnostics

// A malformed attribute: missing '>'.
// expected-error @below {{unbalanced '<' character in pretty dialect name}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok} { return }

// -----

// An unknown status.
// expected-error @below {{expected ::mlir::tirx::LaunchStatus to be one of: not_run, ok, error, timeout, no_device}}
// expected-error @below {{failed to parse TIRx_FeedbackAttr parameter 'launch_status'}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = crashed>} { return }

// -----

// expected-error @below {{expected ::mlir::tirx::CompileStatus to be one of: not_run, ok, error}}
// expected-error @below {{failed to parse TIRx_FeedbackAttr parameter 'compile_status'}}
func.func @f() attributes {a = #tirx.feedback<compile_status = fine>} { return }

// -----

// Bandwidth utilization is not capped (above 1 is what an implausibly fast
// kernel shows), but it is never negative.
// expected-error @below {{'bandwidth_utilization' must be non-negative, got -0.5}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, bandwidth_utilization = -0.5>} { return }

// -----

// expected-error @below {{'achieved_occupancy' is a ratio and must lie in [0, 1], got -0.1}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, achieved_occupancy = -0.1>} { return }

// -----

// expected-error @below {{'sample_count' must be at least 1, got 0}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, duration_us = 3, sample_count = 0>} { return }

// -----

// expected-error @below {{'duration_us' must be non-negative, got -3}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, duration_us = -3, sample_count = 5>} { return }

// -----

// expected-error @below {{durations need 'sample_count'}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, duration_us = 3>} { return }

// -----

// expected-error @below {{'duration_min_us' (5) exceeds the median 'duration_us' (3)}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, duration_us = 3, duration_min_us = 5, sample_count = 4>} { return }

// -----

// expected-error @below {{'launch_status' is ok but 'compile_status' is error}}
func.func @f() attributes {a = #tirx.feedback<compile_status = error, launch_status = ok>} { return }

// -----

// expected-error @below {{durations are only measured when 'launch_status' is ok, not timeout}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = timeout, duration_us = 3, sample_count = 1>} { return }

// -----

// expected-error @below {{'correctness' is pass but the kernel did not run}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, correctness = pass>} { return }

// -----

// expected-error @below {{'registers_per_thread' must be at least 0, got -4}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, registers_per_thread = -4>} { return }

// -----

// expected-error @below {{'ir_version' is not a valid version id: "../v1"}}
func.func @f() attributes {a = #tirx.feedback<ir_version = "../v1", compile_status = ok>} { return }

// -----

// expected-error @below {{duplicate or unknown struct parameter name: speed}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, speed = 3>} { return }

// -----

// expected-error @below {{expected a number, got "fast"}}
// expected-error @below {{failed to parse TIRx_FeedbackAttr parameter 'duration_us'}}
func.func @f() attributes {a = #tirx.feedback<compile_status = ok, launch_status = ok, duration_us = "fast">} { return }

// -----

// expected-error @below {{version id "../etc" is invalid}}
func.func @f() attributes {a = #tirx.version<id = "../etc", digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000">} { return }

// -----

// expected-error @below {{version "v1" cannot be its own parent}}
func.func @f() attributes {a = #tirx.version<id = "v1", parent = "v1", digest = "sha256:0000000000000000000000000000000000000000000000000000000000000000">} { return }

// -----

// expected-error @below {{digest "sha256:abc" is invalid}}
func.func @f() attributes {a = #tirx.version<id = "v1", digest = "sha256:abc">} { return }

// -----

// expected-error @below {{struct is missing required parameter: digest}}
func.func @f() attributes {a = #tirx.version<id = "v1">} { return }
