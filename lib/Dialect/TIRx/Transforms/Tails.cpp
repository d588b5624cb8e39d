//===- Tails.cpp - tiling sizes no tile divides -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Tails.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
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
    if (size > 0 && (ShapedType::isDynamic(range) || range % size != 0))
      return true;
  return false;
}

SmallVector<int64_t> mlir::tirx::tailBounds(Operation *op) {
  SmallVector<int64_t> bounds;
  if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(kTailBoundsAttrName))
    bounds.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    bounds.resize(ranges.size(), 0);
    for (auto [bound, range] : llvm::zip(bounds, ranges))
      if (!ShapedType::isDynamic(range))
        bound = range;
  }
  return bounds;
}

/// `op` restricted to the box of its iteration space at `offsets` (one per
/// loop) of `sizes` (one per loop; a Value where the extent is known at run
/// time only, at most `bounds`), built at the rewriter's point: subviews of
/// its operands and a copy of the op on them.
static Operation *sliceOp(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes,
                          ArrayRef<OpFoldResult> extents,
                          ArrayRef<int64_t> bounds, bool tail) {
  Location loc = op.getLoc();
  SmallVector<Value> operands = linalg::makeTiledShapes(
      rewriter, loc, op, op->getOperands(), offsets, sizes, extents,
      /*omitPartialTileCheck=*/true);
  Operation *sliced = clone(rewriter, op.getOperation(), TypeRange{}, operands);
  linalg::offsetIndices(rewriter, cast<linalg::LinalgOp>(sliced), offsets);
  sliced->removeAttr(kTailBoundsAttrName);
  if (llvm::any_of(sizes, [](OpFoldResult s) { return isa<Value>(s); }))
    sliced->setAttr(kTailBoundsAttrName, rewriter.getDenseI64ArrayAttr(bounds));
  if (tail)
    sliced->setAttr(kTailAttrName, rewriter.getUnitAttr());
  return sliced;
}

static Operation *sliceOp(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<OpFoldResult> offsets,
                          ArrayRef<int64_t> sizes, bool tail) {
  SmallVector<OpFoldResult> tileSizes, extents;
  for (auto [size, range] : llvm::zip(sizes, op.getStaticLoopRanges())) {
    tileSizes.push_back(rewriter.getIndexAttr(size));
    extents.push_back(rewriter.getIndexAttr(range));
  }
  return sliceOp(rewriter, op, offsets, tileSizes, extents, {}, tail);
}

FailureOr<TiledWithTails>
mlir::tirx::tileWithTails(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> sizes,
                          ArrayRef<Attribute> mapping) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0)
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A run-time extent: bounded (a tail's, at most its tile) or not (the
  // payload's own size, from the buffers).
  SmallVector<int64_t> bounds = tailBounds(op);
  if (sizes.size() > ranges.size())
    return failure();
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> extents;
  for (Range r : op.createLoopRanges(rewriter, loc))
    extents.push_back(r.size);
  SmallVector<unsigned> tiled;
  SmallVector<OpFoldResult> ubs;
  AffineExpr n = getAffineSymbolExpr(0, ctx);
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size <= 0)
      continue;
    tiled.push_back(i);
    if (!ShapedType::isDynamic(ranges[i]))
      ubs.push_back(rewriter.getIndexAttr(llvm::divideCeil(ranges[i], size)));
    else if (bounds[i] > 0) // threads: as many as the largest extent needs
      ubs.push_back(rewriter.getIndexAttr(llvm::divideCeil(bounds[i], size)));
    else // blocks: as many as the run-time extent needs
      ubs.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, n.ceilDiv(size), {extents[i]}));
  }
  if (tiled.empty() || tiled.size() != mapping.size())
    return failure();

  auto forall = scf::ForallOp::create(rewriter, loc, ubs, ValueRange{},
                                      rewriter.getArrayAttr(mapping));
  rewriter.setInsertionPointToStart(forall.getBody());
  SmallVector<OpFoldResult> offsets(ranges.size(), rewriter.getIndexAttr(0));
  for (auto [k, d] : llvm::enumerate(tiled))
    offsets[d] = affine::makeComposedFoldedAffineApply(
        rewriter, loc, getAffineDimExpr(0, ctx) * sizes[d],
        {OpFoldResult(forall.getInductionVars()[k])});

  // One op per combination of full and partial tiles along the loops that
  // have a tail, each in its branch of the scf.if on the loop's index.
  TiledWithTails result;
  result.forall = forall;
  SmallVector<int64_t> initialBounds(bounds);
  std::function<void(unsigned, SmallVector<OpFoldResult>, SmallVector<int64_t>,
                     bool)>
      emit = [&](unsigned level, SmallVector<OpFoldResult> current,
                 SmallVector<int64_t> limits, bool tail) {
        if (level == tiled.size()) {
          result.ops.push_back(sliceOp(rewriter, op, offsets, current, extents,
                                       limits, tail || isTail(op)));
          return;
        }
        unsigned d = tiled[level];
        Value index = forall.getInductionVars()[level];
        if (ShapedType::isDynamic(ranges[d])) {
          // Full tiles while index < extent / size; the last one of the
          // extent's remainder (none where the size divides it); with a
          // bounded extent (threads), none past the extent.
          current[d] = rewriter.getIndexAttr(sizes[d]);
          limits[d] = sizes[d];
          Value full = getValueOrCreateConstantIndexOp(
              rewriter, loc,
              affine::makeComposedFoldedAffineApply(
                  rewriter, loc, n.floorDiv(sizes[d]), {extents[d]}));
          if (sizes[d] == 1 && bounds[d] == 0) {
            emit(level + 1, current, limits, tail);
            return;
          }
          // Signed: the bounds check takes a signed guard as it is (an
          // unsigned one only where both sides are proven non-negative).
          Value isFull = arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::slt, index, full);
          auto branch = scf::IfOp::create(rewriter, loc, isFull,
                                          /*withElseRegion=*/true);
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(branch.thenBlock());
          emit(level + 1, current, limits, tail);
          if (sizes[d] == 1)
            return; // tiles of one element: none is partial
          rewriter.setInsertionPointToStart(branch.elseBlock());
          if (bounds[d] > 0) {
            Value start = getValueOrCreateConstantIndexOp(rewriter, loc,
                                                          offsets[d]);
            Value extent =
                getValueOrCreateConstantIndexOp(rewriter, loc, extents[d]);
            Value inside = arith::CmpIOp::create(
                rewriter, loc, arith::CmpIPredicate::slt, start, extent);
            auto some = scf::IfOp::create(rewriter, loc, inside,
                                          /*withElseRegion=*/false);
            rewriter.setInsertionPointToStart(some.thenBlock());
          }
          current[d] = affine::makeComposedFoldedAffineApply(
              rewriter, loc, n - getAffineSymbolExpr(1, ctx),
              {extents[d], offsets[d]});
          limits[d] = sizes[d] - 1;
          emit(level + 1, current, limits, true);
          return;
        }
        int64_t full = ranges[d] / sizes[d], rest = ranges[d] % sizes[d];
        if (rest == 0 || full == 0) {
          current[d] = rewriter.getIndexAttr(rest == 0 ? sizes[d] : rest);
          limits[d] = rest == 0 ? sizes[d] : rest;
          emit(level + 1, current, limits, tail || rest != 0);
          return;
        }
        Value bound = arith::ConstantIndexOp::create(rewriter, loc, full);
        Value isFull = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, index, bound);
        auto branch = scf::IfOp::create(rewriter, loc, isFull,
                                        /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(branch.thenBlock());
        current[d] = rewriter.getIndexAttr(sizes[d]);
        limits[d] = sizes[d];
        emit(level + 1, current, limits, tail);
        rewriter.setInsertionPointToStart(branch.elseBlock());
        current[d] = rewriter.getIndexAttr(rest);
        limits[d] = rest;
        emit(level + 1, current, limits, true);
      };
  emit(0, extents, initialBounds, false);
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
