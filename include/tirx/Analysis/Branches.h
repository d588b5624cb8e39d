//===- Branches.h - which branch of an scf.if a flop count takes -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A thread runs one branch of an scf.if with both a then and an else
// region (the full tiles' vector code or the tail's scalar code). A flop
// count that adds both counts every thread twice; it takes the heavier
// branch instead, which stays an upper bound per thread and is exact when
// the lighter branch is the rare one (a tail).
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_ANALYSIS_BRANCHES_H
#define TIRX_ANALYSIS_BRANCHES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir::tirx {

/// The static trip count of a loop op (scf.for, scf.forall, scf.parallel:
/// all its iterations), 1 for any other op, nothing when a bound is not a
/// constant.
std::optional<int64_t> tripsOf(Operation *op);

/// The lighter branch of every scf.if under `root` that has both (by
/// opFlops per thread times the static trips of the loops inside the
/// branch; an if whose branches cannot both be weighed keeps both).
llvm::DenseSet<Region *> lighterBranches(Operation *root);

/// Whether `op` lies inside one of `skipped`.
bool insideAny(Operation *op, const llvm::DenseSet<Region *> &skipped);

} // namespace mlir::tirx

#endif // TIRX_ANALYSIS_BRANCHES_H
