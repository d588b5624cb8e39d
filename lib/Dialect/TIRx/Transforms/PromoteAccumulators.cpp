//===- PromoteAccumulators.cpp - tirx-promote-accumulators ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A loop's load/store pair on one element becomes a value the loop carries.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXPROMOTEACCUMULATORS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The roots of the buffers `op` reads or writes; false when unknown.
bool touchedRoots(Operation *op, SmallVectorImpl<Value> &roots) {
  // A barrier orders shared memory, which is never promoted.
  if (isa<gpu::BarrierOp>(op))
    return true;
  auto iface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!iface)
    return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffects(effects);
  for (auto &effect : effects) {
    if (isa<MemoryEffects::Allocate>(effect.getEffect()))
      continue;
    Value v = effect.getValue();
    if (!v)
      return false;
    roots.push_back(rootOf(v));
  }
  return true;
}

struct Pair {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// True when two index tuples provably name different elements: along some
/// dimension both are linear in the same terms (thread and block ids, loop
/// variables, arguments) and differ by a non-zero constant.
bool provablyDistinct(ValueRange a, ValueRange b) {
  for (auto [x, y] : llvm::zip(a, b)) {
    std::optional<tirx::LinearIndex> lx = tirx::linearize(x);
    std::optional<tirx::LinearIndex> ly = tirx::linearize(y);
    if (!lx || !ly || lx->constant == ly->constant)
      continue;
    bool sameTerms = true;
    for (const auto &[term, k] : lx->terms)
      sameTerms &= ly->coefficient(term) == k;
    for (const auto &[term, k] : ly->terms)
      sameTerms &= lx->coefficient(term) == k;
    if (sameTerms)
      return true;
  }
  return false;
}

/// The promotable pairs of `loop`'s body: for each root buffer, every
/// access in the loop must be a top-level load or store on invariant
/// indices, paired (a load, then a store to the same indices), the pairs'
/// elements provably distinct.
SmallVector<Pair> findPairs(scf::ForOp loop) {
  SmallVector<Pair> pairs;
  // Every root the loop touches, how often; unknown effects: nothing.
  llvm::DenseMap<Value, unsigned> uses;
  bool unknown = false;
  loop.getBody()->walk([&](Operation *op) {
    SmallVector<Value> roots;
    if (!touchedRoots(op, roots))
      unknown = true;
    for (Value r : roots)
      ++uses[r];
  });
  if (unknown)
    return pairs;
  auto invariant = [&](ValueRange values) {
    return llvm::all_of(values, [&](Value v) {
      return !loop->isAncestor(v.getParentRegion()->getParentOp());
    });
  };
  llvm::MapVector<Value, SmallVector<Pair>> byRoot;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(&op);
    if (!load || !invariant(load.getMemRef()) || !invariant(load.getIndices()))
      continue;
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
        load.getMemRefType().getMemorySpace());
    if (space && space.getValue() == gpu::AddressSpace::Workgroup)
      continue; // shared with other threads
    for (Operation *next = load->getNextNode(); next;
         next = next->getNextNode()) {
      auto store = dyn_cast<memref::StoreOp>(next);
      if (store && store.getMemRef() == load.getMemRef() &&
          store.getIndices() == load.getIndices()) {
        byRoot[rootOf(load.getMemRef())].push_back({load, store});
        break;
      }
    }
  }
  for (auto &[root, found] : byRoot) {
    if (uses[root] != 2 * found.size())
      continue; // something else in the loop touches the buffer
    bool distinct = true;
    for (size_t i = 0; i < found.size() && distinct; ++i)
      for (size_t j = i + 1; j < found.size() && distinct; ++j)
        distinct = found[i].load.getMemRef() == found[j].load.getMemRef() &&
                   provablyDistinct(found[i].load.getIndices(),
                                    found[j].load.getIndices());
    if (distinct)
      pairs.append(found.begin(), found.end());
  }
  return pairs;
}

void promote(scf::ForOp loop, MutableArrayRef<Pair> pairs) {
  IRRewriter rewriter(loop);
  SmallVector<Value> inits;
  for (Pair &p : pairs)
    inits.push_back(memref::LoadOp::create(rewriter, p.load.getLoc(),
                                           p.load.getMemRef(),
                                           p.load.getIndices()));
  auto yieldValues = [&](OpBuilder &, Location,
                         ArrayRef<BlockArgument> newArgs)
      -> SmallVector<Value> {
    SmallVector<Value> values;
    for (auto [p, arg] : llvm::zip(pairs, newArgs)) {
      values.push_back(p.store.getValueToStore());
      rewriter.replaceAllUsesWith(p.load.getResult(), arg);
    }
    return values;
  };
  FailureOr<LoopLikeOpInterface> grown =
      loop.replaceWithAdditionalYields(rewriter, inits,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       yieldValues);
  if (failed(grown))
    return;
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.setInsertionPointAfter(newLoop);
  unsigned first = newLoop.getNumResults() - pairs.size();
  for (auto [i, p] : llvm::enumerate(pairs)) {
    memref::StoreOp::create(rewriter, p.store.getLoc(),
                            newLoop.getResult(first + i), p.store.getMemRef(),
                            p.store.getIndices());
    rewriter.eraseOp(p.store);
    rewriter.eraseOp(p.load);
  }
}

struct PromoteAccumulatorsPass
    : public tirx::impl::TIRxPromoteAccumulatorsBase<PromoteAccumulatorsPass> {
  void runOnOperation() override {
    // Innermost loops first: an outer loop then sees the inner one's
    // promoted load and store at its own top level.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PostOrder>(
        [&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      SmallVector<Pair> pairs = findPairs(loop);
      if (!pairs.empty())
        promote(loop, pairs);
    }
  }
};
} // namespace
