//===- SplitReduction.cpp - split_reduction ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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
  if (insideMapping(target, "block") ||
      target->getParentOfType<mlir::gpu::LaunchOp>() ||
      target->getParentOfType<scf::ForallOp>() ||
      target->getParentOfType<scf::ForOp>())
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already tiled or inside a kernel: the "
                  "partial results need a buffer of the function",
                  "split the reduction first, then tile each part");
  auto iterators = op.getIteratorTypesArray();
  unsigned k;
  Operation *combiner;
  DiagnosedSilenceableFailure reduction =
      matchSingleReduction(self, op, "split_reduction", k, combiner);
  if (!reduction.succeeded())
    return reduction;
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
  TypedAttr neutral = *arith::getNeutralElement(combiner);

  // The new domain: loop k becomes (r parallel, kk reduction). An input
  // indexed by k gets that dimension expanded in two, (kk, r) or, chunked,
  // (r, kk): its maps stay projections (linalg must infer loop ranges from
  // the operands' shapes).
  MLIRContext *ctx = getContext();
  Location loc = target->getLoc();
  unsigned n = op.getNumLoops();
  int64_t chunk = extent / parts;
  AffineExpr r = getAffineDimExpr(k, ctx), kk = getAffineDimExpr(k + 1, ctx);
  SmallVector<AffineExpr> shift;
  for (unsigned i = 0; i < n; ++i)
    shift.push_back(getAffineDimExpr(i < k ? i : i + 1, ctx));
  struct Expanded {
    Value value;
    MemRefType type;
    SmallVector<ReassociationIndices> groups;
  };
  SmallVector<Expanded> expanded;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    Expanded e{input->get(), {}, {}};
    SmallVector<AffineExpr> results;
    auto type = dyn_cast<MemRefType>(input->get().getType());
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(k)) {
        e.groups.push_back({int64_t(results.size())});
        results.push_back(expr.replaceDims(shift));
        continue;
      }
      if (expr != getAffineDimExpr(k, ctx) || !type)
        return reject(self, target, RefusalCode::not_applicable,
                      "input " + Twine(input->getOperandNumber()) +
                          " is indexed by an expression of the reduction "
                          "loop, not the loop itself");
      e.groups.push_back(
          {int64_t(results.size()), int64_t(results.size()) + 1});
      if (getChunked())
        results.append({r, kk});
      else
        results.append({kk, r});
    }
    maps.push_back(AffineMap::get(n + 1, 0, results, ctx));
    if (type && map.isFunctionOfDim(k)) {
      SmallVector<int64_t> shape;
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(k)) {
          shape.push_back(type.getDimSize(pos));
        } else if (getChunked()) {
          shape.append({parts, chunk});
        } else {
          shape.append({chunk, parts});
        }
      }
      FailureOr<MemRefType> to =
          memref::ExpandShapeOp::computeExpandedType(type, shape, e.groups);
      if (failed(to))
        return reject(self, target, RefusalCode::not_applicable,
                      "input " + Twine(input->getOperandNumber()) +
                          " cannot be viewed with its reduction dimension "
                          "split (its layout is not contiguous there)");
      e.type = *to;
    }
    expanded.push_back(std::move(e));
  }
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                         .replaceDimsAndSymbols(shift, {}, n + 1, 0);
  SmallVector<AffineExpr> partialResults(outMap.getResults());
  partialResults.push_back(r);
  maps.push_back(AffineMap::get(n + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> newIterators;
  for (unsigned i = 0; i < n; ++i) {
    if (i == k) {
      newIterators.push_back(utils::IteratorType::parallel);
      newIterators.push_back(utils::IteratorType::reduction);
    } else {
      newIterators.push_back(iterators[i]);
    }
  }

  rewriter.setInsertionPoint(target);
  SmallVector<int64_t> partialShape(outType.getShape());
  partialShape.push_back(parts);
  auto partialType = MemRefType::get(partialShape, outType.getElementType());
  Value partial = memref::AllocOp::create(rewriter, loc, partialType);
  Value init = arith::ConstantOp::create(rewriter, loc, neutral);
  auto fill = linalg::FillOp::create(rewriter, loc, ValueRange{init},
                                     ValueRange{partial});
  SmallVector<Value> inputs;
  for (Expanded &e : expanded)
    inputs.push_back(e.type ? memref::ExpandShapeOp::create(
                                  rewriter, loc, e.type, e.value, e.groups)
                                  .getResult()
                            : e.value);
  auto split = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, inputs, ValueRange{partial}, maps,
      newIterators);
  rewriter.cloneRegionBefore(target->getRegion(0), split.getRegion(),
                             split.getRegion().end());

  // The combine: out = combine(out, reduce_r partial).
  unsigned m = outType.getRank();
  SmallVector<utils::IteratorType> combineIterators(
      m, utils::IteratorType::parallel);
  combineIterators.push_back(utils::IteratorType::reduction);
  // The partial buffer is read whole; the output takes the first m dims.
  SmallVector<AffineExpr> firstM;
  for (unsigned i = 0; i < m; ++i)
    firstM.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> combineMaps{
      AffineMap::getMultiDimIdentityMap(m + 1, ctx),
      AffineMap::get(m + 1, 0, firstM, ctx)};
  auto final = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ValueRange{partial}, ValueRange{out},
      combineMaps, combineIterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l,
                                combine(b, l, combiner, args[1], args[0]));
      });
  memref::DeallocOp::create(rewriter, loc, partial);
  rewriter.eraseOp(target);
  results.push_back(fill);
  results.push_back(split);
  results.push_back(final);
  return DiagnosedSilenceableFailure::success();
}

