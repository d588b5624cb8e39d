//===- ReferencePipeline.cpp - the reference's lowering ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The correctness reference must not share a bug with the candidates it
// judges. Candidates are lowered through TIRx's own rewriting passes
// (copy distribution, accumulator promotion, vector transfer lowering,
// alignment proofs...); the reference is lowered by upstream MLIR's passes
// alone, so that a bug in one of those rewrites shows as a mismatch instead
// of hitting both sides. The list lives here, in one place; the bundle
// records the passes that actually ran (passes.txt) and a test reads it.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"

#include <mutex>

using namespace mlir;

void mlir::tirx::buildReferencePreparePipeline(OpPassManager &pm) {
  // Upstream passes only: a reference mapped by tirx-map-reference holds
  // scf loops, memref loads and stores and scalar arithmetic in its
  // launches, which upstream's NVVM pipeline lowers once the kernels are
  // outlined.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSymbolDCEPass());
}

bool mlir::tirx::isTIRxRewritingPass(StringRef argument) {
  // tirx-map-reference maps with upstream passes, tirx-export-bundle only
  // reads and tirx-infer-domains only annotates the arguments; every other
  // tirx- pass rewrites the payload.
  return argument.starts_with("tirx-") && argument != "tirx-map-reference" &&
         argument != "tirx-export-bundle" && argument != "tirx-view" &&
         argument != "tirx-check-bounds" && argument != "tirx-infer-domains";
}

namespace {
/// Records the argument of every pass that runs, once, in the order they
/// first run (nested pipelines included; adaptors, which have no argument,
/// left out).
struct PassRecorder : public PassInstrumentation {
  explicit PassRecorder(std::vector<std::string> &names) : names(names) {}
  void runBeforePass(Pass *pass, Operation *) override {
    StringRef argument = pass->getArgument();
    if (argument.empty())
      return;
    std::lock_guard<std::mutex> lock(mutex);
    if (!llvm::is_contained(names, argument))
      names.push_back(argument.str());
  }
  std::vector<std::string> &names;
  std::mutex mutex;
};
} // namespace

void mlir::tirx::recordPasses(PassManager &pm,
                              std::vector<std::string> &names) {
  pm.addInstrumentation(std::make_unique<PassRecorder>(names));
}
