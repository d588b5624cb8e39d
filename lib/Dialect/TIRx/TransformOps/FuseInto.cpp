//===- FuseInto.cpp - fuse_into ---------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The preconditions of fuse_into; the rewrite is tirx::fuseIntoConsumerLoop.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

namespace {
/// What fuse_into fuses into: the one tiled read of the intermediate, its
/// loop, and the fill that starts a reduction's output.
struct ConsumerTile {
  memref::SubViewOp tile;
  Operation *loop = nullptr;
  linalg::FillOp fill;
};

/// The first op in `region` that may write one of `roots` (or whose writes
/// are unknown), or null.
Operation *firstWriterOf(Region &region, ArrayRef<Value> roots) {
  Operation *writer = nullptr;
  region.walk([&](Operation *op) {
    // Linalg ops have both their own effects and their body's.
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    if (!iface) {
      if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance(); // its nested ops are visited
      writer = op; // effects unknown: assume the worst
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (auto &effect : effects) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      Value written = effect.getValue();
      if (!written || llvm::is_contained(roots, tirx::accessRoot(written))) {
        writer = op;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return writer;
}

/// The output is written through its loops in order (elementwise), or, for
/// a reduction, through the parallel loops in order with the reductions
/// left out: a tile of the output is then a tile of the parallel loops and
/// all of the reduction ones.
DiagnosedSilenceableFailure checkOutputMap(TransformOpInterface self,
                                           linalg::LinalgOp producer) {
  AffineMap outMap =
      producer.getMatchingIndexingMap(producer.getDpsInitOperand(0));
  SmallVector<unsigned> parallelDims;
  producer.getParallelDims(parallelDims);
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != parallelDims.size() ||
      llvm::any_of(llvm::enumerate(outMap.getResults()), [&](auto r) {
        return r.value() != getAffineDimExpr(parallelDims[r.index()],
                                             producer.getContext());
      }))
    return reject(self, producer, RefusalCode::not_elementwise,
                  "the producer writes its output through a map other than "
                  "its parallel loops in order",
                  "interchange its loops first");
  return DiagnosedSilenceableFailure::success();
}

/// The intermediate's uses: the producer, deallocations, one subview in a
/// loop after the producer in the same block; for a reduction, the fill
/// that starts it, just before it.
DiagnosedSilenceableFailure findConsumerTile(TransformOpInterface self,
                                             linalg::LinalgOp producer,
                                             ConsumerTile &found) {
  Operation *target = producer;
  Value buffer = producer.getDpsInitOperand(0)->get();
  bool reduction = producer.getNumReductionLoops() != 0;
  for (Operation *user : buffer.getUsers()) {
    if (user == target || isa<memref::DeallocOp>(user))
      continue;
    if (auto f = dyn_cast<linalg::FillOp>(user);
        f && reduction && !found.fill && f->getNextNode() == target &&
        f.getDpsInitOperand(0)->get() == buffer) {
      found.fill = f;
      continue;
    }
    if (isa<linalg::LinalgOp>(user))
      return reject(self, target, RefusalCode::no_consumer_loop,
                    tirx::irPath(user) + " reads the whole intermediate: it "
                                         "is not tiled",
                    "tile the consumer first (tile_to_blocks or "
                    "tile_to_threads)");
    auto subview = dyn_cast<memref::SubViewOp>(user);
    if (!subview || found.tile)
      return reject(self, target, RefusalCode::other_use,
                    "the intermediate buffer is also used by " +
                        tirx::irPath(user) +
                        ": only one tiled read (a memref.subview) can be fused");
    found.tile = subview;
  }
  if (found.tile)
    found.loop = tirx::consumerLoopOf(target, found.tile);
  if (!found.loop || !target->isBeforeInBlock(found.loop))
    return reject(self, target, RefusalCode::no_consumer_loop,
                  "no scf.forall or scf.for after the producer reads its "
                  "output through a memref.subview",
                  "tile the consumer first (tile_to_blocks or tile_to_threads)");
  if (reduction && !found.fill)
    return reject(self, target, RefusalCode::not_intermediate,
                  "the reduction's output is not started by a linalg.fill "
                  "of the intermediate right before it: its tiles would "
                  "start from values the fused loop cannot know",
                  "fill the intermediate with the reduction's start value "
                  "just before the reduction");
  return DiagnosedSilenceableFailure::success();
}

/// Nothing between the producer and the loop, or in the loop, may change
/// what the fused producer reads; the tile must be one the producer can be
/// tiled to, and its readers must take the fused buffer.
DiagnosedSilenceableFailure checkConsumerTile(TransformOpInterface self,
                                              linalg::LinalgOp producer,
                                              ConsumerTile found) {
  Operation *target = producer;
  for (Operation *op = target->getNextNode(); op != found.loop;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return reject(self, target, RefusalCode::bad_order,
                    tirx::irPath(op) + " between the producer and the loop "
                                       "touches memory",
                    "move it after the loop, or fuse nothing");
  SmallVector<Value> guarded{producer.getDpsInitOperand(0)->get()};
  for (OpOperand *input : producer.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      guarded.push_back(tirx::accessRoot(input->get()));
  if (Operation *writer = firstWriterOf(found.loop->getRegion(0), guarded))
    return reject(self, target, RefusalCode::input_written,
                  tirx::irPath(writer) + " in the loop may write an input of "
                                         "the producer or the intermediate",
                  "fusing would read values the loop has changed");
  MemRefType tileType = found.tile.getType();
  if (tileType.getRank() != int64_t(producer.getNumParallelLoops()) ||
      !tileType.hasStaticShape() ||
      llvm::any_of(found.tile.getMixedStrides(),
                   [](OpFoldResult s) { return !isConstantIntValue(s, 1); }))
    return reject(self, target, RefusalCode::dynamic_tile,
                  "the loop reads a tile that is not static, full-rank and "
                  "unit-stride: " + tirx::irPath(found.tile),
                  "tile with sizes that divide the extents");
  MemRefType fusedType = tirx::fusedTileType(found.tile, found.loop);
  if (!memref::CastOp::areCastCompatible(fusedType, tileType))
    for (Operation *user : found.tile->getUsers())
      if (!isa<linalg::LinalgOp>(user))
        return reject(self, target, RefusalCode::other_use,
                      "the tile is read by " + tirx::irPath(user) +
                          ", which needs the tile's strided layout");
  return DiagnosedSilenceableFailure::success();
}
} // namespace

DiagnosedSilenceableFailure
tirx::FuseIntoOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                             ApplyToEachResultList &results,
                             TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto producer = dyn_cast<linalg::LinalgOp>(target);
  if (!producer || !producer.hasPureBufferSemantics() ||
      producer.getNumDpsInits() != 1)
    return wrongTarget(self, target,
                       "a linalg op on buffers with one output");
  if (DiagnosedSilenceableFailure check = requireTiling(self, target);
      !check.succeeded())
    return check;
  if (DiagnosedSilenceableFailure check = checkOutputMap(self, producer);
      !check.succeeded())
    return check;
  Operation *alloc = producer.getDpsInitOperand(0)->get().getDefiningOp();
  if (!alloc || !isa<memref::AllocOp, memref::AllocaOp>(alloc))
    return reject(self, target, RefusalCode::not_intermediate,
                  "the producer's output is not a buffer allocated in the "
                  "function: it is observable, and fusing would compute only "
                  "the tiles the consumer reads");
  ConsumerTile found;
  if (DiagnosedSilenceableFailure check =
          findConsumerTile(self, producer, found);
      !check.succeeded())
    return check;
  if (DiagnosedSilenceableFailure check =
          checkConsumerTile(self, producer, found);
      !check.succeeded())
    return check;
  FailureOr<linalg::LinalgOp> fused =
      tirx::fuseIntoConsumerLoop(rewriter, producer, found.tile, found.fill);
  if (failed(fused))
    return reject(self, target, RefusalCode::not_applicable,
                  "tiling the producer failed");
  results.push_back(*fused);
  return DiagnosedSilenceableFailure::success();
}
