//===- TransposeOperand.cpp - transpose_operand -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A matmul input stored the other way: copied into a buffer the function
// allocates, dimensions swapped (linalg.transpose), and read through the
// swapped map. Hopper's wgmma takes 32-bit operands K-major only, so the B
// of A @ B (N contiguous) is copied as N x K before use_wgmma.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

LogicalResult tirx::TransposeOperandOp::verify() {
  int64_t operand = getOperand();
  if (operand != 0 && operand != 1)
    return detail::invalidParameter(
        *this, "operand must be 0 (A) or 1 (B), got " + Twine(operand));
  return success();
}

DiagnosedSilenceableFailure
tirx::TransposeOperandOp::applyToOne(TransformRewriter &rewriter,
                                     Operation *target,
                                     ApplyToEachResultList &results,
                                     TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!matmul)
    return wrongTarget(self, target, "a linalg.matmul");
  if (DiagnosedSilenceableFailure check = requireBuffers(self, target);
      !check.succeeded())
    return check;
  if (target->getParentOfType<scf::ForallOp>() ||
      insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the matmul is already tiled (inside a forall)",
                  "transpose_operand before tile_to_blocks");
  // The copy is a buffer the function allocates for its kernels: in the
  // function's body (the bundle's scratch buffers are), not in a loop or
  // a branch around the matmul.
  auto func = target->getParentOfType<func::FuncOp>();
  if (!func || target->getBlock() != &func.getBody().front())
    return reject(self, target, RefusalCode::bad_order,
                  "the matmul is inside a loop or a branch: the copy must "
                  "be made in the function's body",
                  "transpose_operand on a matmul of the function's body");
  unsigned which = unsigned(getOperand());
  Value input = matmul.getDpsInputs()[which];
  const char *name = which == 0 ? "A (operand 0)" : "B (operand 1)";
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || type.getRank() != 2)
    return reject(self, target, RefusalCode::not_applicable,
                  Twine(name) + " is not a 2-D buffer");
  if (!type.hasStaticShape())
    return reject(self, target, RefusalCode::dynamic_shape,
                  Twine(name) + " has a size known only at run time: the "
                                "copy needs static sizes");
  // The copy is taken before the matmul: an operand that is (a view of)
  // the output would be read as it stood before, not as the matmul writes
  // it.
  for (Value init : matmul.getDpsInits())
    if (tirx::accessRoot(init) == tirx::accessRoot(input))
      return reject(self, target, RefusalCode::input_written,
                    Twine(name) + " is also the matmul's output (or a view "
                                  "of the same buffer)");
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  AffineMap map = maps[which];
  if (map.getNumResults() != 2 || !map.isProjectedPermutation())
    return reject(self, target, RefusalCode::not_applicable,
                  Twine(name) + " is read through " +
                      llvm::formatv("{0}", map).str() +
                      ", not two of the matmul's loops");

  Location loc = target->getLoc();
  MLIRContext *ctx = getContext();
  rewriter.setInsertionPoint(matmul);
  // Row-major, in the function's default memory: a scratch buffer of the
  // bundle (aligned by the runner, as every buffer it allocates).
  auto copyType = MemRefType::get({type.getDimSize(1), type.getDimSize(0)},
                                  type.getElementType());
  Value copy = memref::AllocOp::create(rewriter, loc, copyType);
  linalg::TransposeOp::create(rewriter, loc, input, copy,
                              ArrayRef<int64_t>{1, 0});
  maps[which] = AffineMap::get(map.getNumDims(), 0,
                               {map.getResult(1), map.getResult(0)}, ctx);
  rewriter.modifyOpInPlace(matmul, [&] {
    matmul->setOperand(which, copy);
    matmul.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  rewriter.setInsertionPointAfter(matmul);
  memref::DeallocOp::create(rewriter, loc, copy);
  results.push_back(matmul);
  return DiagnosedSilenceableFailure::success();
}
