//===- TIRxEnums.td - TIRx enumerations --------------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXENUMS_TD
#define TIRX_DIALECT_TIRX_IR_TIRXENUMS_TD

include "mlir/IR/EnumAttr.td"

class TIRx_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::mlir::tirx";
  let genSpecializedAttr = 0;
}

def TIRx_CompileStatus : TIRx_Enum<"CompileStatus",
    "outcome of lowering and ptxas", [
  I32EnumAttrCase<"not_run", 0>,
  I32EnumAttrCase<"ok", 1>,
  I32EnumAttrCase<"error", 2>
]>;

def TIRx_LaunchStatus : TIRx_Enum<"LaunchStatus",
    "outcome of running the kernel on the device", [
  I32EnumAttrCase<"not_run", 0>,
  I32EnumAttrCase<"ok", 1>,
  I32EnumAttrCase<"error", 2>,
  I32EnumAttrCase<"timeout", 3>,
  I32EnumAttrCase<"no_device", 4>
]>;

def TIRx_CorrectnessStatus : TIRx_Enum<"CorrectnessStatus",
    "outcome of the comparison against the reference", [
  I32EnumAttrCase<"not_checked", 0>,
  I32EnumAttrCase<"pass", 1>,
  I32EnumAttrCase<"fail", 2>
]>;

def TIRx_Bottleneck : TIRx_Enum<"Bottleneck",
    "the factor that limits a kernel, as the classifier names it", [
  I32EnumAttrCase<"unknown", 0>,
  I32EnumAttrCase<"none", 1>,
  I32EnumAttrCase<"narrow_global_access", 2>,
  I32EnumAttrCase<"uncoalesced_access", 3>,
  I32EnumAttrCase<"too_few_blocks", 4>,
  I32EnumAttrCase<"low_occupancy_registers", 5>,
  I32EnumAttrCase<"low_occupancy_shared", 6>,
  I32EnumAttrCase<"launch_bound", 7>,
  I32EnumAttrCase<"compute_bound", 8>,
  I32EnumAttrCase<"memory_bound", 9>
]>;

#endif // TIRX_DIALECT_TIRX_IR_TIRXENUMS_TD
