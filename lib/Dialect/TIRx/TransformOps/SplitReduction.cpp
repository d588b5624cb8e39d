//===- SplitReduction.cpp - split_reduction ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

//===----------------------------------------------------------------------===//
// split_reduction
//===----------------------------------------------------------------------===//

LogicalResult tirx::SplitReductionOp::verify() {
  if (getParts() < 2 || getParts() > 65536)
    return detail::invalidParameter(*this, "parts must lie in [2, 65536], "
                            "got " + Twine(getParts()));
  return success();
}

DiagnosedSilenceableFailure
tirx::SplitReductionOp::applyToOne(TransformRewriter &rewriter,
                                   Operation *target,
                                   ApplyToEachResultList &results,
                                   TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto op = dyn_cast<linalg::LinalgOp>(target);
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return wrongTarget(self, target, "a linalg op on buffers with one output");
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || !outType.hasStaticShape())
    return reject(self, target, RefusalCode::not_applicable,
                  "the output is not a memref of static shape");
  if (insideMapping(target, MappingKind::Block) ||
      target->getParentOfType<mlir::gpu::LaunchOp>() ||
      target->getParentOfType<scf::ForallOp>() ||
      target->getParentOfType<scf::ForOp>())
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already tiled or inside a kernel: the "
                  "partial results need a buffer of the function",
                  "split the reduction first, then tile each part");
  unsigned k;
  Operation *combiner;
  if (DiagnosedSilenceableFailure check =
          matchSingleReduction(self, op, "split_reduction", k, combiner);
      !check.succeeded())
    return check;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = ranges[k];
  int64_t parts = getParts();
  if (ShapedType::isDynamic(extent))
    return reject(self, target, RefusalCode::not_applicable,
                  "the reduction loop has no static extent");
  if (extent % parts != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  Twine(parts) + " parts do not divide the reduction's extent " +
                      Twine(extent),
                  divisorsHint(extent, parts, extent, false));
  SplitReductionOptions options{parts, getChunked(), getPartsFirst()};
  if (std::optional<UnsplittableInput> input =
          findUnsplittableInput(op, k, options))
    return reject(self, target, RefusalCode::not_applicable,
                  "input " + Twine(input->operandNumber) +
                      (input->notTheLoop
                           ? " is indexed by an expression of the reduction "
                             "loop, not the loop itself"
                           : " cannot be viewed with its reduction dimension "
                             "split (its layout is not contiguous there)"));
  FailureOr<SplitReductionResult> split =
      tirx::splitReduction(rewriter, op, options);
  if (failed(split))
    return reject(self, target, RefusalCode::not_applicable,
                  "the reduction could not be split");
  results.push_back(split->fill);
  results.push_back(split->split);
  results.push_back(split->combine);
  return DiagnosedSilenceableFailure::success();
}
