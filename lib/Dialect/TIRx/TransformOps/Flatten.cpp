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
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"

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
  if (std::optional<tirx::FlattenObstacle> obstacle = tirx::flattenObstacle(op))
    return reject(self, target,
                  obstacle->kind == tirx::FlattenObstacle::NotElementwise
                      ? RefusalCode::not_elementwise
                  : obstacle->kind == tirx::FlattenObstacle::NotContiguous
                      ? RefusalCode::not_contiguous
                      : RefusalCode::not_applicable,
                  obstacle->message, obstacle->hint);
  SmallVector<ReassociationIndices> all(1);
  for (unsigned i = 0; i < op.getNumLoops(); ++i)
    all.front().push_back(i);
  // Run-time sizes: named while the op still says which dimensions are
  // equal (collapsed, the operands only share the products s0 * s1).
  if (auto module = target->getParentOfType<ModuleOp>())
    tirx::nameDynamicSizes(module);
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
