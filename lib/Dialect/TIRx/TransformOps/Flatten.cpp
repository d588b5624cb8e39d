//===- Flatten.cpp - flatten ------------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// An elementwise op on contiguous buffers as one loop over all elements:
// the tiles of tile_to_blocks then cut the buffer, not each row, so that a
// row length no vector width divides (4097) or known only at run time
// leaves one partial tile in all, and every full tile starts at a multiple
// of the tile (aligned vectors).
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

DiagnosedSilenceableFailure
tirx::FlattenOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                            ApplyToEachResultList &results,
                            TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto op = dyn_cast<linalg::LinalgOp>(target);
  if (!op)
    return wrongTarget(self, target, "a linalg op");
  if (DiagnosedSilenceableFailure check = requireBuffers(self, target);
      !check.succeeded())
    return check;
  if (insideMapping(target, MappingKind::Block) ||
      insideMapping(target, MappingKind::Thread) ||
      target->getParentOfType<scf::ForallOp>())
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already tiled (inside a forall)",
                  "flatten before tile_to_blocks");
  unsigned loops = op.getNumLoops();
  if (loops < 2)
    return reject(self, target, RefusalCode::not_applicable,
                  "the op has " + Twine(loops) +
                      (loops == 1 ? " loop" : " loops") +
                      ": nothing to flatten",
                  "tile it with tile_to_blocks");
  if (op.getNumReductionLoops() != 0)
    return reject(self, target, RefusalCode::not_elementwise,
                  "the op has reduction loops",
                  "flatten takes elementwise ops; tile a reduction with "
                  "tile_to_blocks and reduce_in_block");
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(loops, rewriter.getContext());
  SmallVector<ReassociationIndices> all(1);
  for (unsigned i = 0; i < loops; ++i)
    all.front().push_back(i);
  for (OpOperand &operand : op->getOpOperands()) {
    auto memref = dyn_cast<MemRefType>(operand.get().getType());
    if (!memref)
      continue; // a scalar, the same for every element
    std::string name = "operand #" + std::to_string(operand.getOperandNumber());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (map != identity) {
      std::string text;
      llvm::raw_string_ostream os(text);
      map.print(os);
      return reject(self, target, RefusalCode::not_elementwise,
                    name + " is indexed by " + os.str() +
                        ", not by the loops in order (a broadcast or a "
                        "transpose): one loop cannot index it",
                    "tile the op with tile_to_blocks as it is");
    }
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(memref, all))
      return reject(self, target, RefusalCode::not_contiguous,
                    name + " (" + Twine(llvm::formatv("{0}", memref).str()) +
                        ") is not contiguous: its elements are not "
                        "consecutive in memory",
                    "flatten the op on whole buffers, before any view");
  }
  // Upstream collapses linalg.generic and linalg.copy: a named op
  // (linalg.add, linalg.map, ...) in its generic form.
  auto generic = dyn_cast<linalg::GenericOp>(generalized(rewriter, target));
  if (!generic)
    return reject(self, target, RefusalCode::not_applicable,
                  "the named op has no linalg.generic form");
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, all, rewriter);
  if (failed(collapsed))
    return reject(self, target, RefusalCode::not_applicable,
                  "collapsing the loops failed");
  rewriter.replaceOp(generic, collapsed->results);
  results.push_back(collapsed->collapsedOp);
  return DiagnosedSilenceableFailure::success();
}
