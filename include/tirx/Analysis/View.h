//===- View.h - what an agent can ask of a snapshot -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Each view answers one question about a payload as JSON (schemas in
// docs/views.md): loop_structure, thread_binding, memory_footprint,
// access_pattern, call_graph, roofline, and a compact text summary. Every
// entry carries its IR path and its location. Nothing here fails: what
// cannot be derived is "unknown".
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_ANALYSIS_VIEW_H
#define TIRX_ANALYSIS_VIEW_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// The figures a roofline needs, from a measured device profile or a
/// datasheet.
struct DeviceFigures {
  std::string name = "unknown";
  std::string source = "none"; // profile | datasheet | none
  double bandwidthGBs = 0;
  double peakFp32Tflops = 0;
  int smCount = 0;
  double peakTf32Tflops = 0; // dense tf32 on tensor cores; 0: unknown
  double peakF16Tflops = 0;  // dense f16/bf16 on tensor cores; 0: unknown
};

/// Datasheet figures of the chip's reference part (docs/views.md).
DeviceFigures datasheetFigures(llvm::StringRef chip);

/// Compiled resources of a kernel, from a bundle's ptxas report.
struct CompiledFigures {
  std::string kernel;
  int64_t registers = -1, sharedBytes = -1, spillBytes = -1;
};

struct ViewInputs {
  mutable ModuleOp payload;  // as stored (mutable: walking is not const)
  mutable ModuleOp prepared; // a copy with transfers lowered and alignment proven
  DeviceFigures device;
  std::vector<CompiledFigures> compiled; // empty when not compiled
};

/// The names of the views, in the order `all` lists them.
const std::vector<std::string> &viewNames();

/// One view as JSON ({"view": name, ...}); `what` is a name of viewNames()
/// or "all". Returns nothing for an unknown name.
std::optional<llvm::json::Object> buildView(llvm::StringRef what,
                                            const ViewInputs &inputs);

/// The compact text for a prompt (at most a few hundred tokens).
std::string summaryText(const ViewInputs &inputs);

} // namespace tirx
} // namespace mlir

#endif // TIRX_ANALYSIS_VIEW_H
