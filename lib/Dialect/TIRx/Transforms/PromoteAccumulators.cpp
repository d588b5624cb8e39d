//===- PromoteAccumulators.cpp - tirx-promote-accumulators ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A loop's load/store pair on one element becomes a value the loop carries.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Analysis/Access.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXPROMOTEACCUMULATORS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
/// The roots of the buffers `op` reads or writes; false when unknown.
bool touchedRoots(Operation *op, SmallVectorImpl<Value> &roots) {
  // A barrier orders shared memory, which is never promoted; so do the
  // groups and waits of asynchronous copies into it.
  if (isa<gpu::BarrierOp, nvgpu::DeviceAsyncCreateGroupOp,
          nvgpu::DeviceAsyncWaitOp, NVVM::CpAsyncCommitGroupOp,
          NVVM::CpAsyncWaitGroupOp>(op))
    return true;
  // ldmatrix declares a read of unnamed memory besides its operand's: it
  // reads only its operand.
  if (auto ldmatrix = dyn_cast<nvgpu::LdMatrixOp>(op)) {
    roots.push_back(tirx::accessRoot(ldmatrix.getSrcMemref()));
    return true;
  }
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
    roots.push_back(tirx::accessRoot(v));
  }
  return true;
}

struct Pair {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// An index as a linear combination of leaf values plus a constant, where
/// it is one (constants, addi, subi, muli by a constant, affine.apply of a
/// linear map); otherwise the value itself is the leaf. Unlike the access
/// analysis's linearize (which names thread ids and loops, and gives up on
/// anything else), any value may be a leaf here: `w + 8` and `w` differ by
/// 8 whatever `w` is (a warp id from a thread id's floordiv, say).
struct Linear {
  llvm::SmallDenseMap<Value, int64_t> terms;
  int64_t constant = 0;
};

void linearize(Value v, int64_t scale, Linear &out, unsigned depth = 0) {
  if (std::optional<int64_t> c = getConstantIntValue(v)) {
    out.constant += scale * *c;
    return;
  }
  Operation *def = v.getDefiningOp();
  if (def && depth < 16) {
    if (auto add = dyn_cast<arith::AddIOp>(def)) {
      linearize(add.getLhs(), scale, out, depth + 1);
      linearize(add.getRhs(), scale, out, depth + 1);
      return;
    }
    if (auto sub = dyn_cast<arith::SubIOp>(def)) {
      linearize(sub.getLhs(), scale, out, depth + 1);
      linearize(sub.getRhs(), -scale, out, depth + 1);
      return;
    }
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      if (auto c = getConstantIntValue(mul.getRhs())) {
        linearize(mul.getLhs(), scale * *c, out, depth + 1);
        return;
      }
      if (auto c = getConstantIntValue(mul.getLhs())) {
        linearize(mul.getRhs(), scale * *c, out, depth + 1);
        return;
      }
    }
    if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
      AffineMap map = apply.getAffineMap();
      // Linear: sums of (constant x dim/symbol) and constants.
      std::function<bool(AffineExpr, int64_t, Linear &)> walk =
          [&](AffineExpr e, int64_t k, Linear &acc) -> bool {
        if (auto c = dyn_cast<AffineConstantExpr>(e)) {
          acc.constant += k * c.getValue();
          return true;
        }
        if (auto d = dyn_cast<AffineDimExpr>(e)) {
          linearize(apply.getMapOperands()[d.getPosition()], k, acc,
                    depth + 1);
          return true;
        }
        if (auto sym = dyn_cast<AffineSymbolExpr>(e)) {
          linearize(apply.getMapOperands()[map.getNumDims() +
                                           sym.getPosition()],
                    k, acc, depth + 1);
          return true;
        }
        auto bin = dyn_cast<AffineBinaryOpExpr>(e);
        if (!bin)
          return false;
        if (e.getKind() == AffineExprKind::Add)
          return walk(bin.getLHS(), k, acc) && walk(bin.getRHS(), k, acc);
        if (e.getKind() == AffineExprKind::Mul)
          if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
            return walk(bin.getLHS(), k * c.getValue(), acc);
        return false;
      };
      Linear acc;
      if (map.getNumResults() == 1 && walk(map.getResult(0), scale, acc)) {
        for (auto [leaf, k] : acc.terms)
          out.terms[leaf] += k;
        out.constant += acc.constant;
        return;
      }
    }
  }
  out.terms[v] += scale;
}

/// True when two index tuples provably name different elements: along some
/// dimension they differ by a non-zero constant.
bool provablyDistinct(ValueRange a, ValueRange b) {
  for (auto [x, y] : llvm::zip(a, b)) {
    Linear diff;
    linearize(x, 1, diff);
    linearize(y, -1, diff);
    if (diff.constant != 0 &&
        llvm::all_of(diff.terms, [](auto &t) { return t.second == 0; }))
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
        byRoot[tirx::accessRoot(load.getMemRef())].push_back({load, store});
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
