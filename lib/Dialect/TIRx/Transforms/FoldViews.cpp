//===- FoldViews.cpp - tirx-fold-views ---------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Upstream's fold-memref-alias-ops, except that an access of a collapsed
// view (`flatten`'s 1-D view of a 2-D buffer) stays on that view: folded,
// it would index the buffer by delinearized indices (i floordiv n, i mod n)
// that prove no alignment, let one vector span two rows, and that the
// bounds check cannot bound by a run-time n (i < s0 * s1 does not give
// i floordiv s1 < s0 to linear arithmetic).
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXFOLDVIEWS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

void mlir::tirx::populateFoldViewPatterns(RewritePatternSet &patterns) {
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  // Upstream names each pattern after its class (RewritePatternSet::add):
  // LoadOpOfCollapseShapeOpFolder<mlir::vector::LoadOp> and the like.
  auto &native = patterns.getNativePatterns();
  llvm::erase_if(native, [](const std::unique_ptr<RewritePattern> &p) {
    StringRef name = p->getDebugName();
    return name.contains("CollapseShapeOpFolder");
  });
}

namespace {
struct FoldViewsPass
    : public tirx::impl::TIRxFoldViewsBase<FoldViewsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tirx::populateFoldViewPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
