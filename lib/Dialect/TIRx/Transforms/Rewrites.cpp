//===- Rewrites.cpp - queries shared by the rewrites ------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Analysis/SliceAnalysis.h"

using namespace mlir;

bool tirx::mapsTo(scf::ForallOp forall, MappingKind kind) {
  if (!forall.getMapping())
    return false;
  return llvm::any_of(*forall.getMapping(), [&](Attribute a) {
    switch (kind) {
    case MappingKind::Block:
      return isa<gpu::GPUBlockMappingAttr>(a);
    case MappingKind::Thread:
      return isa<gpu::GPUThreadMappingAttr>(a);
    case MappingKind::Warp:
      return isa<gpu::GPUWarpMappingAttr>(a);
    }
    return false;
  });
}

std::optional<tirx::SingleReduction>
tirx::getSingleReduction(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1)
    return std::nullopt;
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return std::nullopt;
  return SingleReduction{reductions.front(), combiners.front()};
}

std::optional<tirx::IndexReduction>
tirx::matchIndexReduction(linalg::LinalgOp op) {
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.size() != 1 || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 2)
    return std::nullopt;
  unsigned k = reductions.front();
  AffineMap valueMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (valueMap != op.getMatchingIndexingMap(op.getDpsInitOperand(1)) ||
      !valueMap.isProjectedPermutation() ||
      valueMap.getNumResults() != op.getNumParallelLoops())
    return std::nullopt;
  Block *body = op.getBlock();
  Value in = body->getArgument(0), value = body->getArgument(1),
        index = body->getArgument(2);
  if (!isa<FloatType>(value.getType()) || in.getType() != value.getType() ||
      !(index.getType().isIndex() || isa<IntegerType>(index.getType())))
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto newValue = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
  auto newIndex = yield.getOperand(1).getDefiningOp<arith::SelectOp>();
  if (!newValue || !newIndex ||
      newValue.getCondition() != newIndex.getCondition() ||
      newValue.getTrueValue() != in || newValue.getFalseValue() != value ||
      newIndex.getFalseValue() != index)
    return std::nullopt;
  auto cmp = newValue.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getLhs() != in || cmp.getRhs() != value ||
      (cmp.getPredicate() != arith::CmpFPredicate::OGT &&
       cmp.getPredicate() != arith::CmpFPredicate::OLT))
    return std::nullopt;
  Value position = newIndex.getTrueValue();
  if (auto cast = position.getDefiningOp<arith::IndexCastOp>())
    position = cast.getIn();
  auto loopIndex = position.getDefiningOp<linalg::IndexOp>();
  if (!loopIndex || loopIndex.getDim() != k)
    return std::nullopt;
  return IndexReduction{k, cmp.getPredicate()};
}

Value tirx::combine(OpBuilder &b, Location loc, Operation *combiner, Value acc,
                    Value value) {
  OperationState state(loc, combiner->getName());
  state.addOperands({acc, value});
  state.addTypes(combiner->getResultTypes());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}
