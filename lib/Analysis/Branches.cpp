//===- Branches.cpp - which branch of an scf.if a flop count takes --------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Branches.h"
#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <algorithm>

using namespace mlir;

bool tirx::insideAny(Operation *op, const llvm::DenseSet<Region *> &skipped) {
  if (skipped.empty())
    return false;
  for (Region *r = op->getParentRegion(); r;) {
    if (skipped.contains(r))
      return true;
    Operation *parent = r->getParentOp();
    r = parent ? parent->getParentRegion() : nullptr;
  }
  return false;
}

/// The flops one thread does in `region` (its skipped branches left out),
/// or nothing when a loop inside it has no static trip count.
static std::optional<double> weightOf(Region &region,
                                      const llvm::DenseSet<Region *> &skipped) {
  std::optional<double> sum = 0.0;
  region.walk([&](Operation *op) {
    if (!sum)
      return;
    tirx::OpFlops f = tirx::opFlops(op);
    if (!f.flops || tirx::insideAny(op, skipped))
      return;
    double count = double(f.flops) / double(std::max<int64_t>(f.threads, 1));
    for (Operation *p = op->getParentOp(); p && p != region.getParentOp();
         p = p->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(p)) {
        auto lb = getConstantIntValue(loop.getLowerBound());
        auto ub = getConstantIntValue(loop.getUpperBound());
        auto step = getConstantIntValue(loop.getStep());
        if (!lb || !ub || !step || *step <= 0) {
          sum = std::nullopt;
          return;
        }
        count *= double(std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step));
      } else if (isa<scf::ForallOp, scf::ParallelOp, scf::WhileOp>(p)) {
        sum = std::nullopt;
        return;
      }
    }
    *sum += count;
  });
  return sum;
}

llvm::DenseSet<Region *> tirx::lighterBranches(Operation *root) {
  llvm::DenseSet<Region *> skipped;
  // Post-order: an inner if is decided before the branch holding it is
  // weighed.
  root->walk([&](scf::IfOp op) {
    if (op.getElseRegion().empty())
      return;
    std::optional<double> then = weightOf(op.getThenRegion(), skipped);
    std::optional<double> other = weightOf(op.getElseRegion(), skipped);
    if (!then || !other)
      return;
    skipped.insert(*then >= *other ? &op.getElseRegion() : &op.getThenRegion());
  });
  return skipped;
}
