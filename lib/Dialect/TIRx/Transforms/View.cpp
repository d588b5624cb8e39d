//===- View.cpp - tirx-view -------------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/View.h"
#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Manifest.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXVIEW
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;
using namespace mlir::tirx;
namespace rt = ::tirx::runtime;

namespace {
struct ViewPass : public mlir::tirx::impl::TIRxViewBase<ViewPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildPrepareForNVVMPipeline(pm);
    pm.getDependentDialects(registry);
    registry.insert<bufferization::BufferizationDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool known = what == "all" || llvm::is_contained(viewNames(), what);
    if (!known) {
      module.emitError() << "tirx-view: unknown view '" << what
                         << "'; expected one of: "
                         << llvm::join(viewNames(), ", ") << ", all";
      return signalPassFailure();
    }
    ViewInputs inputs;
    inputs.payload = module;

    // The analysed form: transfers lowered, views folded, alignment proven.
    // If that fails (an op it cannot handle), the view uses the payload as
    // it is and says "unknown" where it must. A tensor payload is analysed
    // as the bufferize action would make it: its tensors are the buffers a
    // kernel would read and write.
    OwningOpRef<ModuleOp> prepared = module.clone();
    {
      ScopedDiagnosticHandler quiet(&getContext(),
                                    [](Diagnostic &) { return success(); });
      OwningOpRef<ModuleOp> buffers = module.clone();
      if (findTensorUse(*buffers)) {
        if (llvm::Error e = bufferizePayload(*buffers)) {
          llvm::consumeError(std::move(e));
          buffers = module.clone();
        }
      }
      prepared = buffers->clone();
      PassManager pm(&getContext(), ModuleOp::getOperationName());
      buildAnalysisFormPipeline(pm);
      if (failed(pm.run(*prepared)))
        prepared = std::move(buffers);
    }
    inputs.prepared = *prepared;

    inputs.device = datasheetFigures(chip);
    if (!device.empty()) {
      std::string text, error;
      rt::DeviceProfile profile;
      if (!rt::readFile(device, text, error) ||
          !rt::parseDeviceProfile(text, profile, error)) {
        module.emitError() << "tirx-view: " << error;
        return signalPassFailure();
      }
      inputs.device = {profile.name,           "profile",
                       profile.copyBandwidthGBs, profile.peakFp32Tflops,
                       profile.smCount,        profile.peakTf32Tflops,
                       profile.peakF16Tflops};
    }
    if (!bundle.empty()) {
      rt::Manifest manifest;
      std::string error;
      if (!rt::readManifest(bundle, manifest, error)) {
        module.emitError() << "tirx-view: " << error;
        return signalPassFailure();
      }
      for (const rt::Kernel &k : manifest.kernels)
        inputs.compiled.push_back(
            {k.name, k.ptxas.registers, k.ptxas.sharedBytes,
             k.ptxas.spillStoreBytes < 0
                 ? -1
                 : k.ptxas.spillStoreBytes + k.ptxas.spillLoadBytes});
    }

    std::optional<llvm::json::Object> view = buildView(what, inputs);
    std::string error;
    auto out = openOutputFile(output, &error);
    if (!out) {
      module.emitError() << "tirx-view: " << error;
      return signalPassFailure();
    }
    out->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(*view)))
              << "\n";
    out->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
