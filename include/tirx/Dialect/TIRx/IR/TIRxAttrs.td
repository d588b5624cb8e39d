//===- TIRxAttrs.td - TIRx attributes ----------------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXATTRS_TD
#define TIRX_DIALECT_TIRX_IR_TIRXATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "tirx/Dialect/TIRx/IR/TIRxDialect.td"
include "tirx/Dialect/TIRx/IR/TIRxEnums.td"

class TIRx_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TIRx_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

// A measured figure: absent until measured. Integers are accepted on input
// (`duration_us = 5`); it prints in the shortest form that reads back exactly.
// Held as an f64 FloatAttr (null when absent); read it with figureValue().
class TIRx_Figure<string desc>
    : OptionalParameter<"::mlir::FloatAttr", desc> {
  let parser = "::mlir::tirx::parseFigure($_parser)";
  let printer = "::mlir::tirx::printFigure($_printer, $_self)";
}

class TIRx_Count<string desc>
    : OptionalParameter<"::std::optional<int64_t>", desc> {
  let printer = "$_printer << *$_self";
}

class TIRx_Status<EnumAttrInfo info, string default, string desc>
    : EnumParameter<info> {
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # default;
  let summary = desc;
}

//===----------------------------------------------------------------------===//
// FeedbackAttr
//===----------------------------------------------------------------------===//

def TIRx_FeedbackAttr : TIRx_Attr<"Feedback", "feedback"> {
  let summary = "what the runner measured for one snapshot";
  let description = [{
    Structured feedback of one compile-and-run of a payload version, attached
    to the payload function and to its kernels. The keys are the fields of the
    runner's feedback JSON (see `docs/feedback.md`), so the JSON and the
    attribute carry one schema. Every field except the statuses is optional:
    absent means "not measured", never zero.

    | key | meaning |
    |---|---|
    | `ir_version` | id of the snapshot that was run |
    | `compile_status` | `not_run`, `ok`, `error` |
    | `launch_status` | `not_run`, `ok`, `error`, `timeout`, `no_device` |
    | `duration_us` | median kernel time over `sample_count` runs, µs |
    | `duration_min_us`, `duration_max_us` | extremes of the samples, µs |
    | `sample_count` | number of timed runs (at least 1) |
    | `bandwidth_utilization` | achieved bytes/s over measured copy bandwidth, not capped: above 1.1 the runner flags the timing implausible |
    | `achieved_occupancy`, `theoretical_occupancy` | active warps over the maximum, in [0, 1] |
    | `registers_per_thread`, `shared_mem_bytes`, `spill_bytes` | resources of the kernel |
    | `bottleneck` | the limiting factor named by the classifier |
    | `bottleneck_location` | IR path it points at (`func @f / forall (thread x) / ...`) |
    | `bottleneck_loc` | MLIR location of that op |
    | `correctness` | `not_checked`, `pass`, `fail` |
    | `correctness_inputs` | number of random input sets compared |
    | `max_abs_error`, `rel_l2_error` | worst errors over those sets |
    | `correctness_detail` | first mismatch, e.g. `"C[17]: got nan, want 1.5"` |
    | `correctness_reason` | why it failed: `mismatch`, `nondeterministic`, `adversarial`, `input_changed`, `stateful`, `stray_write` |
    | `dram_throughput`, `sm_throughput` | Nsight Compute's achieved throughput over peak, in [0, 1] (`tirx-run --counters`) |
    | `top_stalls` | the top stall reasons with their shares, e.g. `"long_scoreboard 0.82, lg_throttle 0.10"` |
    | `counter_passes` | replay passes Nsight Compute needed for those figures |

    Example:

    ```mlir
    #tirx.feedback<ir_version = "v3", compile_status = ok, launch_status = ok,
      duration_us = 189.2, duration_min_us = 187.5, duration_max_us = 195,
      sample_count = 30, bandwidth_utilization = 0.97,
      theoretical_occupancy = 1, registers_per_thread = 16,
      shared_mem_bytes = 0, spill_bytes = 0, bottleneck = memory_bound,
      bottleneck_location = "func @saxpy / forall (block x) / forall (thread x)",
      correctness = pass, correctness_inputs = 3, max_abs_error = 0,
      rel_l2_error = 0>
    ```

    The verifier refuses ratios outside [0, 1], negative durations, counts
    or errors, NaN anywhere, a sample count below 1, `duration_us` without
    `sample_count`, min > median > max, and a launch status other than
    `not_run` when compilation did not succeed.
  }];
  let parameters = (ins
    StringRefParameter<"id of the snapshot that was run", [{""}]>:$ir_version,
    TIRx_Status<TIRx_CompileStatus, "not_run", "lowering/ptxas outcome">:$compile_status,
    TIRx_Status<TIRx_LaunchStatus, "not_run", "device run outcome">:$launch_status,
    TIRx_Figure<"median duration in microseconds">:$duration_us,
    TIRx_Figure<"fastest sample in microseconds">:$duration_min_us,
    TIRx_Figure<"slowest sample in microseconds">:$duration_max_us,
    TIRx_Count<"number of timed samples">:$sample_count,
    TIRx_Figure<"achieved over measured copy bandwidth">:$bandwidth_utilization,
    TIRx_Figure<"achieved occupancy">:$achieved_occupancy,
    TIRx_Figure<"theoretical occupancy">:$theoretical_occupancy,
    TIRx_Count<"registers per thread">:$registers_per_thread,
    TIRx_Count<"static shared memory per block, bytes">:$shared_mem_bytes,
    TIRx_Count<"local-memory spill bytes per thread">:$spill_bytes,
    TIRx_Status<TIRx_Bottleneck, "unknown", "limiting factor">:$bottleneck,
    StringRefParameter<"IR path of the limiting op", [{""}]>:$bottleneck_location,
    OptionalParameter<"::mlir::LocationAttr", "MLIR location of the limiting op">:$bottleneck_loc,
    TIRx_Status<TIRx_CorrectnessStatus, "not_checked", "reference comparison">:$correctness,
    TIRx_Count<"random input sets compared">:$correctness_inputs,
    TIRx_Figure<"largest absolute error">:$max_abs_error,
    TIRx_Figure<"relative L2 error">:$rel_l2_error,
    StringRefParameter<"first mismatch", [{""}]>:$correctness_detail,
    StringRefParameter<"why correctness failed", [{""}]>:$correctness_reason,
    TIRx_Figure<"DRAM throughput over peak (Nsight Compute)">:$dram_throughput,
    TIRx_Figure<"SM throughput over peak (Nsight Compute)">:$sm_throughput,
    StringRefParameter<"top stall reasons and shares", [{""}]>:$top_stalls,
    TIRx_Count<"replay passes of the counter run">:$counter_passes
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// VersionAttr
//===----------------------------------------------------------------------===//

def TIRx_VersionAttr : TIRx_Attr<"Version", "version"> {
  let summary = "identity of an immutable payload snapshot";
  let description = [{
    Names one snapshot in a TIRx workspace: its id, the id of the snapshot it
    was derived from (absent for a root), and the digest of its canonical
    printed IR, which the store checks whenever the snapshot is read.

    ```mlir
    #tirx.version<id = "v2", parent = "v1",
      digest = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08">
    ```

    Ids are 1 to 64 characters of `[A-Za-z0-9_.-]`, not starting with `.`, so
    that an id can never be read as a path. The digest is `sha256:` followed
    by 64 lower-case hex digits. A version is never its own parent.
  }];
  let parameters = (ins
    StringRefParameter<"snapshot id">:$id,
    StringRefParameter<"parent snapshot id; empty for a root", [{""}]>:$parent,
    StringRefParameter<"sha256 of the canonical printed IR">:$digest
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TIRX_DIALECT_TIRX_IR_TIRXATTRS_TD
