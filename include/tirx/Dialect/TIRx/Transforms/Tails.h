//===- Tails.h - tiling sizes no tile divides -------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A length of 1000003 (a prime) has no tile size that divides it. The
// tiling here keeps every tile static: an scf.forall of ceil(extent / size)
// iterations per tiled loop whose last iteration runs a tail op of the
// remaining (static) size, chosen by `scf.if (iv < extent / size)`. Each
// branch is a plain static linalg op, so the later steps (threads, vectors)
// and the bounds check treat it like any other; a tail op carries the unit
// attribute `tirx.tail`.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_TAILS_H
#define TIRX_DIALECT_TIRX_TRANSFORMS_TAILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tirx {

/// The attribute that marks an op computing a tail (a partial tile).
inline constexpr llvm::StringLiteral kTailAttrName = "tirx.tail";

/// On an op whose extent along some loop is known at run time only (a tail
/// of a run-time size): per loop, the largest extent it may have (0 where
/// unknown).
inline constexpr llvm::StringLiteral kTailBoundsAttrName = "tirx.tail_bounds";

/// Per loop of `op`, the largest extent it may have: the static extent, the
/// bound of a run-time tail, or 0 when unknown (a payload's own run-time
/// size).
SmallVector<int64_t> tailBounds(Operation *op);

/// Whether `op` computes a tail: it, or an op it was tiled from, was the
/// partial last tile of a tiling (it fills only part of its block).
bool isTail(Operation *op);

/// Whether some size of `sizes` (0: untiled) leaves a tail of `ranges` (a
/// run-time extent may).
bool leavesTail(ArrayRef<int64_t> ranges, ArrayRef<int64_t> sizes);

/// The result of tileWithTails: the tiled ops (the full tile first, when
/// there is one, then the tails) and the forall.
struct TiledWithTails {
  SmallVector<Operation *> ops;
  scf::ForallOp forall;
};

/// Tiles `op` (a linalg op on buffers) by `sizes` (0: untiled; one per
/// leading loop) into a zero-based, unit-step scf.forall mapped by
/// `mapping` (one attribute per tiled loop), with static tiles: the last
/// iteration along a loop no size divides runs a tail op of the remaining
/// size, selected by scf.if. Along a loop of run-time extent N, the forall
/// has ceil(N / size) iterations (or, for a tail's extent bounded by B,
/// ceil(B / size), those past N doing nothing), full tiles while the index
/// is below N / size, then one tail op of N - index * size elements
/// (marked with its bound, tirx.tail_bounds). Erases `op`.
FailureOr<TiledWithTails> tileWithTails(RewriterBase &rewriter,
                                        linalg::LinalgOp op,
                                        ArrayRef<int64_t> sizes,
                                        ArrayRef<Attribute> mapping);

/// Splits `op` (on buffers, static loop ranges) along `loop` at the largest
/// multiple of `multiple` below its extent: the first op covers whole
/// multiples, the second (marked as a tail with `markTail`) the rest, after
/// it. Returns them; the first is null when the extent is below `multiple`,
/// the second when `multiple` divides it (then `op` itself is returned
/// first).
std::pair<Operation *, Operation *> peelTail(RewriterBase &rewriter,
                                             linalg::LinalgOp op,
                                             unsigned loop, int64_t multiple,
                                             bool markTail = true);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_TAILS_H
