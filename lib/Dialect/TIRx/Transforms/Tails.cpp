//===- Tails.cpp - tiling sizes no tile divides -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Tails.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::tirx;

bool mlir::tirx::isTail(Operation *op) {
  return op && op->hasAttr(kTailAttrName);
}

bool mlir::tirx::leavesTail(ArrayRef<int64_t> ranges, ArrayRef<int64_t> sizes) {
  for (auto [range, size] : llvm::zip(ranges, sizes))
    if (size > 0 && !ShapedType::isDynamic(range) && range % size != 0)
      return true;
  return false;
}

/// `op` restricted to the box of its iteration space at `offsets` (one per
/// loop) of static `sizes` (one per loop), built at the rewriter's point:
/// subviews of its operands and a copy of the op on them.
static Operation *sliceOp(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<int64_t> sizes, bool tail) {
  Location loc = op.getLoc();
  SmallVector<OpFoldResult> tileSizes, bounds;
  for (auto [size, range] : llvm::zip(sizes, op.getStaticLoopRanges())) {
    tileSizes.push_back(rewriter.getIndexAttr(size));
    bounds.push_back(rewriter.getIndexAttr(range));
  }
  SmallVector<Value> operands = linalg::makeTiledShapes(
      rewriter, loc, op, op->getOperands(), offsets, tileSizes, bounds,
      /*omitPartialTileCheck=*/true);
  Operation *sliced = clone(rewriter, op.getOperation(), TypeRange{}, operands);
  linalg::offsetIndices(rewriter, cast<linalg::LinalgOp>(sliced), offsets);
  if (tail)
    sliced->setAttr(kTailAttrName, rewriter.getUnitAttr());
  return sliced;
}

FailureOr<TiledWithTails>
mlir::tirx::tileWithTails(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> sizes,
                          ArrayRef<Attribute> mapping) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (sizes.size() > ranges.size() ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return failure();
  Location loc = op.getLoc();
  SmallVector<unsigned> tiled;
  SmallVector<OpFoldResult> ubs;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size <= 0)
      continue;
    tiled.push_back(i);
    ubs.push_back(rewriter.getIndexAttr(llvm::divideCeil(ranges[i], size)));
  }
  if (tiled.empty() || tiled.size() != mapping.size())
    return failure();

  rewriter.setInsertionPoint(op);
  auto forall = scf::ForallOp::create(rewriter, loc, ubs, ValueRange{},
                                      rewriter.getArrayAttr(mapping));
  rewriter.setInsertionPointToStart(forall.getBody());
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<OpFoldResult> offsets(ranges.size(), rewriter.getIndexAttr(0));
  for (auto [k, d] : llvm::enumerate(tiled))
    offsets[d] = affine::makeComposedFoldedAffineApply(
        rewriter, loc, getAffineDimExpr(0, ctx) * sizes[d],
        {OpFoldResult(forall.getInductionVars()[k])});

  // One op per combination of full and partial tiles along the loops that
  // have a tail, each in its branch of the scf.if on the loop's index.
  TiledWithTails result;
  result.forall = forall;
  std::function<void(unsigned, SmallVector<int64_t>, bool)> emit =
      [&](unsigned level, SmallVector<int64_t> current, bool tail) {
        if (level == tiled.size()) {
          result.ops.push_back(sliceOp(rewriter, op, offsets, current,
                                       tail || isTail(op)));
          return;
        }
        unsigned d = tiled[level];
        int64_t full = ranges[d] / sizes[d], rest = ranges[d] % sizes[d];
        if (rest == 0 || full == 0) {
          current[d] = rest == 0 ? sizes[d] : rest;
          emit(level + 1, current, tail || rest != 0);
          return;
        }
        Value index = forall.getInductionVars()[level];
        Value bound = arith::ConstantIndexOp::create(rewriter, loc, full);
        Value isFull = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, index, bound);
        auto branch = scf::IfOp::create(rewriter, loc, isFull,
                                        /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(branch.thenBlock());
        current[d] = sizes[d];
        emit(level + 1, current, tail);
        rewriter.setInsertionPointToStart(branch.elseBlock());
        current[d] = rest;
        emit(level + 1, current, true);
      };
  emit(0, ranges, false);
  rewriter.eraseOp(op);
  return result;
}

std::pair<Operation *, Operation *>
mlir::tirx::peelTail(RewriterBase &rewriter, linalg::LinalgOp op,
                     unsigned loop, int64_t multiple, bool markTail) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t main = ranges[loop] / multiple * multiple;
  int64_t rest = ranges[loop] - main;
  if (rest == 0)
    return {op, nullptr};
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> offsets(ranges.size(), rewriter.getIndexAttr(0));
  SmallVector<int64_t> sizes(ranges);
  Operation *first = nullptr;
  if (main > 0) {
    sizes[loop] = main;
    first = sliceOp(rewriter, op, offsets, sizes, isTail(op));
  }
  offsets[loop] = rewriter.getIndexAttr(main);
  sizes[loop] = rest;
  Operation *second =
      sliceOp(rewriter, op, offsets, sizes, markTail || isTail(op));
  rewriter.eraseOp(op);
  return {first, second};
}
