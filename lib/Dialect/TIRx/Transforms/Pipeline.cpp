//===- Pipeline.cpp - multi-stage copies into shared memory -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.pipeline.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// The static workgroup allocation `view` is (or is a static subview of),
/// defined outside `loop`.
memref::AllocOp stagedBuffer(Value view, scf::ForOp loop) {
  if (loop->isAncestor(view.getParentRegion()->getParentOp()))
    return {};
  Value root = view;
  if (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    if (!subview.getOffsets().empty() || !subview.getSizes().empty() ||
        !subview.getStrides().empty())
      return {}; // dynamic offsets, sizes or strides
    root = subview.getSource();
  }
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().hasStaticShape() ||
      !isWorkgroup(alloc.getType()))
    return {};
  return alloc;
}

/// The ops of `loop`'s body that compute `value` from the induction
/// variable and values defined outside: pure top-level ops without regions,
/// in order; false when `value` is computed otherwise.
bool sliceOf(Value value, scf::ForOp loop, SmallVectorImpl<Operation *> &ops) {
  Operation *def = value.getDefiningOp();
  if (!def) // the induction variable, or an argument from outside
    return value == loop.getInductionVar() ||
           cast<BlockArgument>(value).getOwner() != loop.getBody();
  if (!loop->isAncestor(def))
    return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !isPure(def))
    return false;
  for (Value operand : def->getOperands())
    if (!sliceOf(operand, loop, ops))
      return false;
  if (!llvm::is_contained(ops, def))
    ops.push_back(def);
  return true;
}
} // namespace

SmallVector<tirx::StagedCopy> tirx::findStagedCopies(scf::ForOp loop) {
  SmallVector<StagedCopy> copies;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<linalg::CopyOp>(&op);
    if (!copy || !copy.hasPureBufferSemantics() ||
        !isa_and_nonnull<gpu::BarrierOp>(copy->getPrevNode()) ||
        !isa_and_nonnull<gpu::BarrierOp>(copy->getNextNode()))
      continue;
    Value view = copy.getOutputs()[0];
    memref::AllocOp buffer = stagedBuffer(view, loop);
    auto srcType = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
    if (!buffer || !srcType || isWorkgroup(srcType))
      continue;
    StagedCopy staged{copy, view, buffer, {}};
    if (!sliceOf(copy.getInputs()[0], loop, staged.slice))
      continue;
    if (llvm::any_of(copies, [&](const StagedCopy &other) {
          return other.buffer == buffer;
        }))
      continue;
    copies.push_back(std::move(staged));
  }
  return copies;
}

Operation *tirx::findStagedBufferConflict(scf::ForOp loop,
                                          ArrayRef<StagedCopy> copies) {
  // Every use of a buffer: its view (defined outside the loop), then the
  // view's users: its copy and reads inside the loop.
  for (const StagedCopy &staged : copies) {
    memref::AllocOp buffer = staged.buffer;
    if (staged.view != buffer.getResult())
      for (Operation *user : buffer->getUsers())
        if (user != staged.view.getDefiningOp())
          return user;
    for (Operation *user : staged.view.getUsers()) {
      if (user == staged.copy)
        continue;
      if (!loop->isAncestor(user))
        return user;
      auto iface = dyn_cast<MemoryEffectOpInterface>(user);
      if (!iface || iface.getEffectOnValue<MemoryEffects::Write>(staged.view))
        return user;
      // A view of the view would keep the old layout in its type.
      if (isa<ViewLikeOpInterface>(user))
        return user;
    }
  }
  // Nothing else writes shared memory it cannot name.
  Operation *conflict = nullptr;
  loop.getBody()->walk([&](Operation *op) {
    if (llvm::any_of(copies, [&](const StagedCopy &s) { return s.copy == op; }))
      return WalkResult::skip();
    if (isa<gpu::BarrierOp, NVVM::CpAsyncCommitGroupOp,
            NVVM::CpAsyncWaitGroupOp>(op))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && !effect.getValue()) {
        conflict = op;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return conflict;
}

namespace {
/// Builds the pieces of the pipelined loop.
struct Stager {
  RewriterBase &rewriter;
  Location loc;
  int64_t stages;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); }

  /// Buffer `stages` times the old one, 16-byte aligned (cp.async writes
  /// up to 16 bytes at once).
  memref::AllocOp grow(memref::AllocOp old) {
    MemRefType type = old.getType();
    SmallVector<int64_t> shape{stages};
    llvm::append_range(shape, type.getShape());
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(old);
    return memref::AllocOp::create(
        rewriter, old.getLoc(),
        MemRefType::get(shape, type.getElementType(), AffineMap(),
                        type.getMemorySpace()),
        ValueRange{}, rewriter.getI64IntegerAttr(16));
  }

  /// The old view, in stage `stage` of the grown buffer.
  Value view(memref::AllocOp grown, Value oldView, OpFoldResult stage) {
    auto type = grown.getType();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    offsets[0] = stage;
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
    for (int64_t d : type.getShape().drop_front())
      sizes.push_back(rewriter.getIndexAttr(d));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    auto stageType = cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
        type.getShape().drop_front(), type, offsets, sizes, strides));
    Value result = memref::SubViewOp::create(rewriter, loc, stageType, grown,
                                             offsets, sizes, strides);
    auto old = oldView.getDefiningOp<memref::SubViewOp>();
    if (!old)
      return result;
    return memref::SubViewOp::create(rewriter, loc, result,
                                     old.getMixedOffsets(), old.getMixedSizes(),
                                     old.getMixedStrides());
  }

  /// The copy of `staged` for induction variable `iv`, into `dst`,
  /// asynchronous.
  void copyAt(const tirx::StagedCopy &staged, scf::ForOp loop, Value iv,
              Value dst) {
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (Operation *op : staged.slice)
      rewriter.clone(*op, map);
    linalg::CopyOp old = staged.copy;
    Value src = map.lookupOrDefault(old.getInputs()[0]);
    auto copy = linalg::CopyOp::create(rewriter, loc, src, dst);
    copy->setAttr(tirx::kAsyncCopyAttrName, rewriter.getUnitAttr());
  }

  // NVVM's commit and wait: nvgpu's group op takes the tokens of copies
  // that exist only once the lowering distributes them (and with none, its
  // printed form does not parse back).
  void commit() { NVVM::CpAsyncCommitGroupOp::create(rewriter, loc); }
  void wait(int64_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, loc,
                                     rewriter.getI32IntegerAttr(pending));
  }
};
} // namespace

void tirx::pipelineStagedCopies(RewriterBase &rewriter, scf::ForOp loop,
                                ArrayRef<StagedCopy> copies,
                                const PipelineOptions &options) {
  Location loc = loop.getLoc();
  int64_t stages = options.stages;
  int64_t lb = *getConstantIntValue(loop.getLowerBound());
  int64_t step = *getConstantIntValue(loop.getStep());
  Stager s{rewriter, loc, stages};
  SmallVector<memref::AllocOp> grown;
  for (const StagedCopy &staged : copies)
    grown.push_back(s.grow(staged.buffer));

  // Before the loop: the copies of tiles 0 .. stages - 2, a group each.
  rewriter.setInsertionPoint(loop);
  for (int64_t j = 0; j + 1 < stages; ++j) {
    Value iv = s.cst(lb + j * step);
    for (auto [staged, buffer] : llvm::zip(copies, grown))
      s.copyAt(staged, loop, iv,
               s.view(buffer, staged.view, rewriter.getIndexAttr(j)));
    s.commit();
  }

  // In the loop: wait for this tile, synchronize, issue the copy of tile
  // i + stages - 1 into the buffer of tile i - 1, compute on tile i.
  rewriter.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  s.wait(stages - 2);
  gpu::BarrierOp::create(rewriter, loc);
  Value i = arith::DivUIOp::create(
      rewriter, loc, arith::SubIOp::create(rewriter, loc, iv, s.cst(lb)),
      s.cst(step));
  Value current = arith::RemUIOp::create(rewriter, loc, i, s.cst(stages));
  Value next = arith::RemUIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, i, s.cst(stages - 1)),
      s.cst(stages));
  Value ahead =
      arith::AddIOp::create(rewriter, loc, iv, s.cst((stages - 1) * step));
  // Only the iterations before the last stages - 1 have a tile to issue
  // (the guard becomes a loop split below).
  Value inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt,
                                        ahead, loop.getUpperBound());
  auto guard = scf::IfOp::create(rewriter, loc, inRange, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard g(rewriter);
    rewriter.setInsertionPointToStart(guard.thenBlock());
    for (auto [staged, buffer] : llvm::zip(copies, grown))
      s.copyAt(staged, loop, ahead, s.view(buffer, staged.view, next));
  }
  s.commit();
  for (auto [staged, buffer] : llvm::zip(copies, grown)) {
    Value view = s.view(buffer, staged.view, current);
    rewriter.replaceUsesWithIf(staged.view, view, [&](OpOperand &use) {
      return loop->isAncestor(use.getOwner()) && use.getOwner() != staged.copy;
    });
  }

  // The old copies, the barriers around them and their sources; the old
  // buffers.
  llvm::SetVector<Operation *> barriers;
  for (const StagedCopy &staged : copies) {
    barriers.insert(staged.copy->getPrevNode());
    barriers.insert(staged.copy->getNextNode());
  }
  for (Operation *barrier : barriers)
    rewriter.eraseOp(barrier);
  for (const StagedCopy &staged : copies) {
    rewriter.eraseOp(staged.copy);
    for (Operation *op : llvm::reverse(staged.slice))
      if (op->use_empty())
        rewriter.eraseOp(op);
  }
  for (const StagedCopy &staged : copies) {
    if (Operation *view = staged.view.getDefiningOp();
        view && view != staged.buffer && view->use_empty())
      rewriter.eraseOp(view);
    if (staged.buffer->use_empty())
      rewriter.eraseOp(staged.buffer);
  }

  // The last stages - 1 iterations issue nothing: they become a loop of
  // their own, and the main loop's copies need no guard (every index they
  // compute is in bounds on its face).
  int64_t ub = *getConstantIntValue(loop.getUpperBound());
  int64_t trips = (ub - lb + step - 1) / step;
  int64_t mainEnd = lb + (trips - (stages - 1)) * step;
  rewriter.setInsertionPoint(loop);
  Value split = s.cst(mainEnd);
  rewriter.setInsertionPointAfter(loop);
  IRMapping map;
  auto rest = cast<scf::ForOp>(rewriter.clone(*loop.getOperation(), map));
  rest.getLowerBoundMutable().assign(split);
  rest.getInitArgsMutable().assign(loop.getResults());
  for (auto [old, now] : llvm::zip(loop.getResults(), rest.getResults()))
    rewriter.replaceAllUsesExcept(old, now, rest);
  loop.getUpperBoundMutable().assign(split);
  for (auto other : llvm::make_early_inc_range(rest.getBody()->getOps<scf::IfOp>()))
    if (other.getCondition() == map.lookupOrNull(guard.getCondition()))
      rewriter.eraseOp(other);
  Block *then = guard.thenBlock();
  rewriter.eraseOp(then->getTerminator());
  rewriter.inlineBlockBefore(then, guard);
  rewriter.eraseOp(guard);
  for (scf::ForOp l : {loop, rest})
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation &op :
           llvm::make_early_inc_range(l.getBody()->without_terminator()))
        if (isOpTriviallyDead(&op)) {
          rewriter.eraseOp(&op);
          erased = true;
        }
    }

  // After the loops no copy is in flight (their last groups are empty).
  rewriter.setInsertionPointAfter(rest);
  s.wait(0);
}
