//===- TIRxDialect.td - TIRx dialect definition ------------*- tablegen -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_IR_TIRXDIALECT_TD
#define TIRX_DIALECT_TIRX_IR_TIRXDIALECT_TD

include "mlir/IR/OpBase.td"

def TIRx_Dialect : Dialect {
  let name = "tirx";
  let cppNamespace = "::mlir::tirx";
  let summary = "Harness dialect: feedback, versions and history of GPU payloads";
  let description = [{
    The `tirx` dialect carries what the TIRx harness knows about a payload
    beside the payload itself: the runner's measurements (`#tirx.feedback`),
    the identity of an immutable snapshot (`#tirx.version`), and, in later
    parts, the session history that produced it.

    Everything here is meant to be read and written by agents as well as by
    people, so every attribute uses a `key = value` assembly whose keys are
    the field names of the harness's JSON schema:

    ```mlir
    func.func @saxpy(...) attributes {
      tirx.feedback = #tirx.feedback<ir_version = "v2", compile_status = ok,
          launch_status = ok, duration_us = 189.2, sample_count = 30,
          bandwidth_utilization = 0.97>,
      tirx.version = #tirx.version<id = "v2", parent = "v1",
          digest = "sha256:0f3a...">
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerOperations();
  }];
}

#endif // TIRX_DIALECT_TIRX_IR_TIRXDIALECT_TD
