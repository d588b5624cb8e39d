//===- LowerVectorTransfers.cpp - tirx-lower-vector-transfers ---*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXLOWERVECTORTRANSFERS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
struct LowerVectorTransfersPass
    : public tirx::impl::TIRxLowerVectorTransfersBase<
          LowerVectorTransfersPass> {
  void runOnOperation() override {
    // In-bounds minor-identity transfers become vector.load/store; the
    // permutation patterns first bring transposed or broadcast maps to that
    // form.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    // vector.step (a vectorized linalg.index: an arange) becomes its
    // constant: upstream's NVVM pipeline does not lower it (only the
    // convert-vector-to-llvm pass does, before its conversion), and the
    // translation to LLVM IR fails on it.
    vector::populateVectorStepLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // What is left (out of bounds or masked) is unrolled into guarded
    // scalar accesses.
    RewritePatternSet rest(&getContext());
    populateVectorToSCFConversionPatterns(
        rest, VectorTransferToSCFOptions().enableFullUnroll());
    if (failed(applyPatternsGreedily(getOperation(), std::move(rest))))
      return signalPassFailure();
  }
};
} // namespace
