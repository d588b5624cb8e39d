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

Value tirx::combine(OpBuilder &b, Location loc, Operation *combiner, Value acc,
                    Value value) {
  OperationState state(loc, combiner->getName());
  state.addOperands({acc, value});
  state.addTypes(combiner->getResultTypes());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}
