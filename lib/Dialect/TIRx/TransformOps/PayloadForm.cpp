//===- PayloadForm.cpp - the form a transform needs its payload in -------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Front ends hand TIRx linalg on tensors, with named ops and, at times,
// dynamic shapes. The schedules need buffers, static loops and, for some
// rewrites, a linalg.generic: these checks say which, in the user's terms,
// before a rewrite meets an IR it cannot handle.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Tails.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::transform;

namespace {
std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}
} // namespace

DiagnosedSilenceableFailure
mlir::tirx::detail::requireBuffers(TransformOpInterface op,
                                   Operation *target) {
  if (!tirx::worksOnTensors(target))
    return DiagnosedSilenceableFailure::success();
  std::optional<TensorUse> use = tirx::findTensorUse(target);
  std::string type = use ? " (" + use->what + " is " + typeText(use->type) + ")"
                         : std::string();
  return reject(op, target, RefusalCode::on_tensors,
                "the target works on tensors" + type +
                    ": the GPU schedules work on buffers; apply bufferize "
                    "first",
                "the bufferize action (transform.tirx.bufferize on the "
                "payload module) turns the tensor payload into one on "
                "buffers: inputs stay inputs, results become out-parameters");
}

DiagnosedSilenceableFailure
mlir::tirx::detail::requireStaticLoops(TransformOpInterface op,
                                       Operation *target,
                                       ArrayRef<int64_t> sizes) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return DiagnosedSilenceableFailure::success();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  for (auto [loop, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range))
      continue;
    if (!sizes.empty() && (loop >= sizes.size() || sizes[loop] == 0))
      continue;
    // The operand whose dynamic dimension the loop walks.
    std::string type;
    for (OpOperand &operand : linalgOp->getOpOperands()) {
      auto shaped = dyn_cast<ShapedType>(operand.get().getType());
      if (!shaped || !shaped.hasRank())
        continue;
      AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
      for (auto [dim, expr] : llvm::enumerate(map.getResults()))
        if (expr == getAffineDimExpr(loop, op->getContext()) &&
            dim < size_t(shaped.getRank()) && shaped.isDynamicDim(dim) &&
            type.empty())
          type = typeText(shaped);
    }
    SmallVector<int64_t> bounds = tirx::tailBounds(target);
    std::string bound =
        loop < bounds.size() && bounds[loop] > 0
            ? ", at most " + std::to_string(bounds[loop]) + ": a tail"
            : "";
    return reject(op, target, RefusalCode::dynamic_shape,
                  "loop " + Twine(loop) + " has a size known only at run " +
                      "time" + (type.empty() ? "" : " (" + type + ")") + bound,
                  bound.empty()
                      ? "tile the run-time size with tile_to_blocks first (a "
                        "guarded tail takes what the tiles leave), or "
                        "specialize the payload for the sizes it runs with"
                      : "the full tiles are static: transform them; a tail of "
                        "a run-time size stays as it is (scalar)");
  }
  return DiagnosedSilenceableFailure::success();
}

Operation *mlir::tirx::detail::generalized(RewriterBase &rewriter,
                                           Operation *target) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp || isa<linalg::GenericOp>(target))
    return target;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(target);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, linalgOp);
  return succeeded(generic) ? generic->getOperation() : target;
}
