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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// The load's memref, indices and type when `op` is a scalar load or a 1-D
/// vector load; null otherwise.
struct Access {
  Value memref;
  ValueRange indices;
  Type type;
};
std::optional<Access> loadAccess(Operation *op) {
  if (auto l = dyn_cast<memref::LoadOp>(op))
    return Access{l.getMemRef(), l.getIndices(), l.getType()};
  if (auto l = dyn_cast<vector::LoadOp>(op))
    if (l.getVectorType().getRank() == 1)
      return Access{l.getBase(), l.getIndices(), l.getVectorType()};
  return std::nullopt;
}
std::optional<Access> storeAccess(Operation *op) {
  if (auto st = dyn_cast<memref::StoreOp>(op))
    return Access{st.getMemRef(), st.getIndices(),
                  st.getValueToStore().getType()};
  if (auto st = dyn_cast<vector::StoreOp>(op))
    if (st.getVectorType().getRank() == 1)
      return Access{st.getBase(), st.getIndices(), st.getVectorType()};
  return std::nullopt;
}

/// The same element (or vector) through the same view.
bool sameElement(const Access &a, const Access &b) {
  return a.memref == b.memref && a.indices == b.indices && a.type == b.type;
}

/// Shared memory: other threads write it too.
bool isWorkgroup(Value memref) {
  return tirx::memorySpaceName(memref.getType()) == "workgroup";
}

/// A load and the store of the same element, or of the same vector
/// (vector.load/store: a thread's run of a column reduction's outputs). The
/// stored value is operand 0 of either store.
struct Pair {
  Operation *load;
  Operation *store;
  Access access;
  /// Elements from the index along the last dimension.
  int64_t width() const {
    auto vector = dyn_cast<VectorType>(access.type);
    return vector ? vector.getNumElements() : 1;
  }
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

/// True when two accesses provably name disjoint elements: along some
/// dimension their indices differ by a constant, non-zero, and along the
/// last at least the wider access's `width` elements (vectors).
bool provablyDistinct(ValueRange a, ValueRange b, int64_t width) {
  for (auto [i, xy] : llvm::enumerate(llvm::zip(a, b))) {
    auto [x, y] = xy;
    Linear diff;
    linearize(x, 1, diff);
    linearize(y, -1, diff);
    int64_t apart = i + 1 == a.size() ? width : 1;
    if (std::abs(diff.constant) >= apart &&
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
    std::optional<Access> load = loadAccess(&op);
    if (!load || !invariant(load->memref) || !invariant(load->indices))
      continue;
    if (isWorkgroup(load->memref))
      continue; // shared with other threads
    for (Operation *next = op.getNextNode(); next;
         next = next->getNextNode()) {
      std::optional<Access> store = storeAccess(next);
      if (store && sameElement(*store, *load)) {
        byRoot[tirx::accessRoot(load->memref)].push_back({&op, next, *load});
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
        distinct = found[i].access.memref == found[j].access.memref &&
                   provablyDistinct(
                       found[i].access.indices, found[j].access.indices,
                       std::max(found[i].width(), found[j].width()));
    if (distinct)
      pairs.append(found.begin(), found.end());
  }
  return pairs;
}

/// The store in front of `loop` to the pair's element, when only ops
/// without memory effects lie between (a thread's fill of its outputs, then
/// their reduction): the loop starts from its value, not a load.
Operation *storeBefore(scf::ForOp loop, const Pair &p) {
  for (Operation *prev = loop->getPrevNode(); prev;
       prev = prev->getPrevNode()) {
    if (std::optional<Access> store = storeAccess(prev))
      return sameElement(*store, p.access) ? prev : nullptr;
    if (!isMemoryEffectFree(prev))
      return nullptr;
  }
  return nullptr;
}

void promote(scf::ForOp loop, MutableArrayRef<Pair> pairs) {
  IRRewriter rewriter(loop);
  SmallVector<Value> inits;
  // The load and the store move out of the loop as they are (a vector
  // access keeps its alignment). A store in front of the loop that the
  // loop's own store overwrites (only the pair touches the element in the
  // loop, even with no iteration) goes: its value starts the loop.
  SmallVector<Operation *> forwarded;
  for (Pair &p : pairs) {
    if (Operation *store = storeBefore(loop, p)) {
      inits.push_back(store->getOperand(0));
      forwarded.push_back(store);
      continue;
    }
    inits.push_back(rewriter.clone(*p.load)->getResult(0));
  }
  auto yieldValues = [&](OpBuilder &, Location,
                         ArrayRef<BlockArgument> newArgs)
      -> SmallVector<Value> {
    SmallVector<Value> values;
    for (auto [p, arg] : llvm::zip(pairs, newArgs)) {
      values.push_back(p.store->getOperand(0));
      rewriter.replaceAllUsesWith(p.load->getResult(0), arg);
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
    Operation *store = rewriter.clone(*p.store);
    store->setOperand(0, newLoop.getResult(first + i));
    rewriter.eraseOp(p.store);
    rewriter.eraseOp(p.load);
  }
  for (Operation *store : forwarded)
    rewriter.eraseOp(store);
}

/// Within one block: a load of the element (or vector) a store before it
/// wrote, with nothing between that touches the buffer, takes the stored
/// value; a store the next store to the same element overwrites, unread,
/// goes. (An unrolled reduction's steps: each step's accumulator load and
/// store, one pair left for the loop to promote.) Shared memory is left
/// alone: other threads write it.
void forwardStores(Block &block) {
  // Per root: the last store, and whether anything read the root since.
  struct Last {
    Operation *store = nullptr;
    Access access;
    bool read = false;
  };
  llvm::DenseMap<Value, Last> last;
  SmallVector<Operation *> dead;
  for (Operation &op : block.without_terminator()) {
    std::optional<Access> load = loadAccess(&op);
    std::optional<Access> store = storeAccess(&op);
    SmallVector<Value> roots;
    bool known = touchedRoots(&op, roots);
    if (!known || isa<gpu::BarrierOp>(op) ||
        (roots.empty() && !isMemoryEffectFree(&op) && !load && !store)) {
      last.clear();
      continue;
    }
    if (load && !isWorkgroup(load->memref)) {
      Value root = tirx::accessRoot(load->memref);
      auto it = last.find(root);
      if (it != last.end() && it->second.store &&
          sameElement(it->second.access, *load)) {
        op.getResult(0).replaceAllUsesWith(
            it->second.store->getOperand(0));
        dead.push_back(&op);
        continue;
      }
      last[root].read = true;
      continue;
    }
    if (store && !isWorkgroup(store->memref)) {
      Value root = tirx::accessRoot(store->memref);
      Last &l = last[root];
      // (A store to another element of the root replaces the one tracked.)
      if (l.store && !l.read && sameElement(l.access, *store))
        dead.push_back(l.store);
      l = Last{&op, *store, false};
      continue;
    }
    for (Value root : roots)
      last.erase(root);
  }
  for (Operation *op : dead)
    op->erase();
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
      forwardStores(*loop.getBody());
      SmallVector<Pair> pairs = findPairs(loop);
      if (!pairs.empty())
        promote(loop, pairs);
    }
  }
};
} // namespace
