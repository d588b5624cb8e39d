//===- AttachFeedback.cpp - tirx-attach-feedback ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxDialect.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Runtime/Feedback.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXATTACHFEEDBACK
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;
using namespace mlir::tirx;
namespace rt = ::tirx::runtime;

/// "file:line:col" back to a location; anything else as a name.
static LocationAttr parseLocation(MLIRContext *ctx, StringRef text) {
  if (text.empty())
    return {};
  auto [rest, col] = text.rsplit(':');
  auto [file, line] = rest.rsplit(':');
  unsigned l = 0, c = 0;
  if (!file.empty() && !line.getAsInteger(10, l) && !col.getAsInteger(10, c))
    return FileLineColLoc::get(ctx, file, l, c);
  return NameLoc::get(StringAttr::get(ctx, text));
}

template <typename EnumT>
static std::optional<EnumT> parseStatus(StringRef text,
                                        std::optional<EnumT> (*symbolize)(StringRef)) {
  return symbolize(text);
}

namespace {
struct AttachFeedbackPass
    : public mlir::tirx::impl::TIRxAttachFeedbackBase<AttachFeedbackPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<TIRxDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (file.empty()) {
      module.emitError() << "tirx-attach-feedback: the option file= is required";
      return signalPassFailure();
    }
    rt::Feedback f;
    std::string error;
    if (!rt::readFeedbackFile(file, f, error)) {
      module.emitError() << "tirx-attach-feedback: " << error;
      return signalPassFailure();
    }

    auto compile = symbolizeCompileStatus(f.compileStatus);
    auto launch = symbolizeLaunchStatus(f.launchStatus);
    auto correctness = symbolizeCorrectnessStatus(f.correctness);
    auto bottleneck = symbolizeBottleneck(f.bottleneck);
    if (!compile || !launch || !correctness || !bottleneck) {
      module.emitError() << "tirx-attach-feedback: " << file
                         << ": unknown status (compile_status '"
                         << f.compileStatus << "', launch_status '"
                         << f.launchStatus << "', correctness '"
                         << f.correctness << "', bottleneck '" << f.bottleneck
                         << "')";
      return signalPassFailure();
    }
    auto figure = [&](std::optional<double> v) { return makeFigure(ctx, v); };
    std::optional<int64_t> samples;
    FloatAttr median, min, max;
    if (f.duration) {
      samples = f.duration->count;
      median = figure(f.duration->median);
      min = figure(f.duration->min);
      max = figure(f.duration->max);
    }
    std::string stalls;
    for (const auto &[reason, share] : f.counters.stalls)
      stalls += (stalls.empty() ? "" : ", ") + reason + " " +
                llvm::formatv("{0:F2}", share).str();
    std::optional<int64_t> inputs;
    if (f.correctnessInputs > 0)
      inputs = f.correctnessInputs;
    FeedbackAttr attr = FeedbackAttr::getChecked(
        [&] {
          return module.emitError()
                 << "tirx-attach-feedback: " << file << " is inconsistent: ";
        },
        ctx, StringRef(f.irVersion), *compile, *launch, median, min, max,
        samples, figure(f.bandwidthUtilization), figure(f.achievedOccupancy),
        figure(f.theoreticalOccupancy), f.registersPerThread, f.sharedMemBytes,
        f.spillBytes, *bottleneck, StringRef(f.bottleneckLocation),
        parseLocation(ctx, f.bottleneckLoc), *correctness, inputs,
        figure(f.maxAbsError), figure(f.relL2Error),
        StringRef(f.correctnessDetail), StringRef(f.correctnessReason),
        figure(f.counters.dramThroughput), figure(f.counters.smThroughput),
        StringRef(stalls), f.counters.passes);
    if (!attr)
      return signalPassFailure();

    auto payload = module.lookupSymbol<func::FuncOp>(f.payload);
    if (!payload) {
      module.emitError() << "tirx-attach-feedback: " << file
                         << " is about @" << f.payload
                         << ", which this module does not define";
      return signalPassFailure();
    }
    payload->setAttr("tirx.feedback", attr);
    payload.walk([&](gpu::LaunchFuncOp op) {
      if (auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
              op, op.getKernelAttr()))
        kernel->setAttr("tirx.feedback", attr);
    });
  }
};
} // namespace
