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

std::optional<int64_t> tirx::tripsOf(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto l = getConstantIntValue(loop.getLowerBound()), u = getConstantIntValue(loop.getUpperBound()),
         s = getConstantIntValue(loop.getStep());
    if (l && u && s && *s > 0)
      return std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
    return std::nullopt;
  }
  if (auto forall = dyn_cast<scf::ForallOp>(op)) {
    int64_t total = 1;
    for (auto [lb, ub, st] : llvm::zip(forall.getMixedLowerBound(),
                                       forall.getMixedUpperBound(),
                                       forall.getMixedStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub),
           s = getConstantIntValue(st);
      if (!l || !u || !s || *s <= 0)
        return std::nullopt;
      total *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
    }
    return total;
  }
  if (auto par = dyn_cast<scf::ParallelOp>(op)) {
    int64_t total = 1;
    for (auto [lb, ub, st] : llvm::zip(par.getLowerBound(), par.getUpperBound(),
                                       par.getStep())) {
      auto l = getConstantIntValue(lb), u = getConstantIntValue(ub), s = getConstantIntValue(st);
      if (!l || !u || !s || *s <= 0)
        return std::nullopt;
      total *= std::max<int64_t>(0, (*u - *l + *s - 1) / *s);
    }
    return total;
  }
  return 1;
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
      if (isa<scf::ForOp>(p)) {
        std::optional<int64_t> trips = tirx::tripsOf(p);
        if (!trips) {
          sum = std::nullopt;
          return;
        }
        count *= double(*trips);
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
