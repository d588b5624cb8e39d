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

std::optional<tirx::FlattenObstacle>
tirx::flattenObstacle(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2)
    return FlattenObstacle{FlattenObstacle::FewLoops,
                           "the op has " + std::to_string(loops) +
                               (loops == 1 ? " loop" : " loops") +
                               ": nothing to flatten",
                           "tile it with tile_to_blocks"};
  if (op.getNumReductionLoops() != 0)
    return FlattenObstacle{FlattenObstacle::NotElementwise,
                           "the op has reduction loops",
                           "flatten takes elementwise ops; tile a reduction "
                           "with tile_to_blocks and reduce_in_block"};
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, op.getContext());
  SmallVector<ReassociationIndices> all(1);
  for (unsigned i = 0; i < loops; ++i)
    all.front().push_back(i);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<ShapedType>(operand.get().getType()))
      continue; // a scalar, the same for every element
    std::string name = "operand #" + std::to_string(operand.getOperandNumber());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map != identity) {
      std::string text;
      llvm::raw_string_ostream os(text);
      map.print(os);
      return FlattenObstacle{
          FlattenObstacle::NotElementwise,
          name + " is indexed by " + text +
              ", not by the loops in order (a broadcast or a transpose): "
              "one loop cannot index it",
          "tile the op with tile_to_blocks as it is"};
    }
    auto memref = dyn_cast<MemRefType>(operand.get().getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (memref &&
        (!memref::CollapseShapeOp::isGuaranteedCollapsible(memref, all) ||
         failed(memref.getStridesAndOffset(strides, offset)) ||
         strides.back() != 1)) {
      std::string text;
      llvm::raw_string_ostream os(text);
      memref.print(os);
      return FlattenObstacle{FlattenObstacle::NotContiguous,
                             name + " (" + text +
                                 ") is not contiguous: its elements are not "
                                 "consecutive in memory",
                             "flatten the op on whole buffers, before any view"};
    }
  }
  return std::nullopt;
}

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
