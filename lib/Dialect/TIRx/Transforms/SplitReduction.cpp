//===- SplitReduction.cpp - a reduction split into parts --------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.split_reduction.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using tirx::SplitReductionOptions;
using tirx::UnsplittableInput;

namespace {
/// An input of the split op: the value it reads, viewed through an
/// expand_shape of `type` (when set) with `groups`, and its map in the new
/// domain.
struct SplitInput {
  Value value;
  MemRefType type;
  SmallVector<ReassociationIndices> groups;
  AffineMap map;
};

/// `input` in the split domain: loop k becomes (r parallel, kk reduction).
/// An input indexed by k gets that dimension expanded in two, (kk, r) or,
/// chunked, (r, kk): its maps stay projections (linalg must infer loop
/// ranges from the operands' shapes). Returns why it cannot, if it cannot.
std::optional<UnsplittableInput>
splitInput(linalg::LinalgOp op, OpOperand *input, unsigned k, int64_t extent,
           const SplitReductionOptions &options, SplitInput &split) {
  MLIRContext *ctx = op.getContext();
  unsigned n = op.getNumLoops();
  AffineExpr r = getAffineDimExpr(k, ctx), kk = getAffineDimExpr(k + 1, ctx);
  SmallVector<AffineExpr> shift;
  for (unsigned i = 0; i < n; ++i)
    shift.push_back(getAffineDimExpr(i < k ? i : i + 1, ctx));
  AffineMap map = op.getMatchingIndexingMap(input);
  auto type = dyn_cast<MemRefType>(input->get().getType());
  split.value = input->get();
  SmallVector<AffineExpr> results;
  SmallVector<int64_t> shape;
  int64_t parts = options.parts, chunk = extent / parts;
  for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isFunctionOfDim(k)) {
      split.groups.push_back({int64_t(results.size())});
      results.push_back(expr.replaceDims(shift));
      if (type)
        shape.push_back(type.getDimSize(pos));
      continue;
    }
    if (expr != getAffineDimExpr(k, ctx) || !type)
      return UnsplittableInput{input->getOperandNumber(), true};
    split.groups.push_back(
        {int64_t(results.size()), int64_t(results.size()) + 1});
    results.append(options.chunked ? SmallVector<AffineExpr>{r, kk}
                                   : SmallVector<AffineExpr>{kk, r});
    shape.append(options.chunked ? SmallVector<int64_t>{parts, chunk}
                                 : SmallVector<int64_t>{chunk, parts});
  }
  split.map = AffineMap::get(n + 1, 0, results, ctx);
  if (!type || !map.isFunctionOfDim(k))
    return std::nullopt;
  FailureOr<MemRefType> to =
      memref::ExpandShapeOp::computeExpandedType(type, shape, split.groups);
  if (failed(to))
    return UnsplittableInput{input->getOperandNumber(), false};
  split.type = *to;
  return std::nullopt;
}

/// Every input of `op` in the split domain, or the first that cannot be.
std::optional<UnsplittableInput>
splitInputs(linalg::LinalgOp op, unsigned k,
            const SplitReductionOptions &options,
            SmallVectorImpl<SplitInput> &inputs) {
  int64_t extent = op.getStaticLoopRanges()[k];
  for (OpOperand *input : op.getDpsInputOperands()) {
    SplitInput split;
    if (auto problem = splitInput(op, input, k, extent, options, split))
      return problem;
    inputs.push_back(std::move(split));
  }
  return std::nullopt;
}

/// The split op: the original body over the new domain, into `partial`.
linalg::GenericOp createSplitOp(RewriterBase &rewriter, linalg::LinalgOp op,
                                unsigned k, ArrayRef<SplitInput> inputs,
                                Value partial, bool partsFirst) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops();
  SmallVector<AffineExpr> shift;
  for (unsigned i = 0; i < n; ++i)
    shift.push_back(getAffineDimExpr(i < k ? i : i + 1, ctx));
  SmallVector<AffineMap> maps;
  SmallVector<Value> values;
  for (const SplitInput &in : inputs) {
    maps.push_back(in.map);
    values.push_back(in.type ? memref::ExpandShapeOp::create(
                                   rewriter, loc, in.type, in.value, in.groups)
                                   .getResult()
                             : in.value);
  }
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                         .replaceDimsAndSymbols(shift, {}, n + 1, 0);
  SmallVector<AffineExpr> partialResults(outMap.getResults());
  partialResults.insert(partsFirst ? partialResults.begin()
                                   : partialResults.end(),
                        getAffineDimExpr(k, ctx));
  maps.push_back(AffineMap::get(n + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> iterators;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (i == k)
      iterators.push_back(utils::IteratorType::parallel);
    iterators.push_back(it);
  }
  auto split = linalg::GenericOp::create(rewriter, loc, TypeRange{}, values,
                                         ValueRange{partial}, maps, iterators);
  rewriter.cloneRegionBefore(op->getRegion(0), split.getRegion(),
                             split.getRegion().end());
  return split;
}

/// The combine: out = combine(out, reduce_r partial). The partial buffer
/// is read whole; the output takes its m dims other than the parts (the
/// last one, or the first with `partsFirst`: then r is the first loop).
linalg::GenericOp createCombineOp(OpBuilder &b, Location loc, Value partial,
                                  Value out, Operation *combiner,
                                  bool partsFirst) {
  MLIRContext *ctx = b.getContext();
  unsigned m = cast<MemRefType>(out.getType()).getRank();
  SmallVector<utils::IteratorType> iterators(m, utils::IteratorType::parallel);
  iterators.insert(partsFirst ? iterators.begin() : iterators.end(),
                   utils::IteratorType::reduction);
  SmallVector<AffineExpr> outDims;
  for (unsigned i = 0; i < m; ++i)
    outDims.push_back(getAffineDimExpr(partsFirst ? i + 1 : i, ctx));
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(m + 1, ctx),
                              AffineMap::get(m + 1, 0, outDims, ctx)};
  return linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{partial}, ValueRange{out}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, tirx::combine(b, l, combiner, args[1], args[0]));
      });
}
} // namespace

std::optional<UnsplittableInput>
tirx::findUnsplittableInput(linalg::LinalgOp op, unsigned loop,
                            const SplitReductionOptions &options) {
  SmallVector<SplitInput> inputs;
  return splitInputs(op, loop, options, inputs);
}

FailureOr<tirx::SplitReductionResult>
tirx::splitReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                     const SplitReductionOptions &options) {
  std::optional<SingleReduction> reduction = getSingleReduction(op);
  if (!reduction)
    return failure();
  SmallVector<SplitInput> inputs;
  if (splitInputs(op, reduction->loop, options, inputs))
    return failure();
  Location loc = op.getLoc();
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = cast<MemRefType>(out.getType());
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> partialShape(outType.getShape());
  partialShape.insert(options.partsFirst ? partialShape.begin()
                                         : partialShape.end(),
                      options.parts);
  auto partialType = MemRefType::get(partialShape, outType.getElementType());
  Value partial = memref::AllocOp::create(rewriter, loc, partialType);
  Value init = arith::ConstantOp::create(
      rewriter, loc, *arith::getNeutralElement(reduction->combiner));
  auto fill = linalg::FillOp::create(rewriter, loc, ValueRange{init},
                                     ValueRange{partial});
  linalg::GenericOp split =
      createSplitOp(rewriter, op, reduction->loop, inputs, partial,
                    options.partsFirst);
  linalg::GenericOp final = createCombineOp(rewriter, loc, partial, out,
                                            reduction->combiner,
                                            options.partsFirst);
  memref::DeallocOp::create(rewriter, loc, partial);
  rewriter.eraseOp(op);
  return SplitReductionResult{fill, split, final};
}
