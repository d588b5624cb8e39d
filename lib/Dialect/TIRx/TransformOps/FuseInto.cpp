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
#include "tirx/Support/KernelTypes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

namespace {
/// What fuse_into fuses into: the tiled reads of the intermediate (equal
/// tiles in one block; `tile` the first), their loop, and the fill that
/// starts a reduction's output.
struct ConsumerTile {
  memref::SubViewOp tile;
  SmallVector<memref::SubViewOp> reads;
  Operation *loop = nullptr;
  linalg::FillOp fill;
};

/// Whether two indices are the same: the same value or constant, or the
/// results of the same pure op on the same indices (tiling computes a
/// tile's offsets afresh for each op it tiles).
bool sameIndex(OpFoldResult a, OpFoldResult b, int depth = 0) {
  std::optional<int64_t> ca = getConstantIntValue(a),
                         cb = getConstantIntValue(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  auto va = dyn_cast<Value>(a), vb = dyn_cast<Value>(b);
  if (!va || !vb)
    return false;
  if (va == vb)
    return true;
  Operation *da = va.getDefiningOp(), *db = vb.getDefiningOp();
  if (depth > 8 || !da || !db || da->getName() != db->getName() ||
      da->getAttrDictionary() != db->getAttrDictionary() ||
      da->getNumOperands() != db->getNumOperands() ||
      da->getNumRegions() != 0 || !isPure(da) ||
      cast<OpResult>(va).getResultNumber() !=
          cast<OpResult>(vb).getResultNumber())
    return false;
  for (auto [x, y] : llvm::zip(da->getOperands(), db->getOperands()))
    if (!sameIndex(x, y, depth + 1))
      return false;
  return true;
}

/// Whether two subviews read the same tile of the same buffer.
bool sameTile(memref::SubViewOp a, memref::SubViewOp b) {
  auto same = [](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    return x.size() == y.size() &&
           llvm::all_of(llvm::zip(x, y), [](auto p) {
             return sameIndex(std::get<0>(p), std::get<1>(p));
           });
  };
  return a.getSource() == b.getSource() && a.getType() == b.getType() &&
         same(a.getMixedOffsets(), b.getMixedOffsets()) &&
         same(a.getMixedSizes(), b.getMixedSizes()) &&
         same(a.getMixedStrides(), b.getMixedStrides());
}

/// The first op in `region` that may write one of `roots` (or whose writes
/// are unknown), or null.
Operation *firstWriterOf(Region &region, ArrayRef<Value> roots) {
  Operation *writer = nullptr;
  region.walk([&](Operation *op) {
    // A barrier orders the block's accesses; it writes nothing (its
    // declared effects are on all memory, to keep accesses from moving
    // across it). An earlier fusion leaves barriers in the loop.
    if (isa<gpu::BarrierOp>(op))
      return WalkResult::advance();
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
    if (!subview)
      return reject(self, target, RefusalCode::other_use,
                    "the intermediate buffer is also used by " +
                        tirx::irPath(user) +
                        ": only tiled reads (memref.subview) can be fused");
    // Several reads of one tile in one block (softmax's exp, read by the
    // sum and by the division) share the fused tile, computed once.
    if (found.tile && (subview->getBlock() != found.tile->getBlock() ||
                       !sameTile(subview, found.tile)))
      return reject(self, target, RefusalCode::other_use,
                    "the intermediate buffer is read through " +
                        tirx::irPath(subview) + " and " +
                        tirx::irPath(found.tile) +
                        ": reads of different tiles, or in different blocks",
                    "fuse when every read is of the block's one tile");
    if (!found.tile || subview->isBeforeInBlock(found.tile))
      found.tile = subview;
    found.reads.push_back(subview);
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

/// The bytes of a static workgroup buffer of scalars, or 0.
int64_t workgroupBytes(MemRefType type) {
  if (!type.hasStaticShape() || tirx::memorySpaceName(type) != "workgroup")
    return 0;
  return type.getNumElements() *
         tirx::kernelElementBytes(type.getElementType()).value_or(0);
}

/// In a block loop the fused tile joins the block's shared memory: the
/// loop's workgroup buffers and the tile must fit in `maxBytes` (48 KiB of
/// static shared memory by default).
DiagnosedSilenceableFailure checkSharedMemory(TransformOpInterface self,
                                              linalg::LinalgOp producer,
                                              Operation *loop,
                                              MemRefType fusedType,
                                              int64_t maxBytes) {
  int64_t tileBytes = workgroupBytes(fusedType);
  if (tileBytes == 0)
    return DiagnosedSilenceableFailure::success();
  int64_t bytes = tileBytes;
  loop->walk([&](memref::AllocOp alloc) {
    bytes += workgroupBytes(alloc.getType());
  });
  if (bytes > maxBytes)
    return reject(self, producer, RefusalCode::exceeds_smem,
                  "the fused tile needs " + Twine(tileBytes) +
                      " bytes of shared memory, " + Twine(bytes) +
                      " with the block's other buffers; max_shared_bytes "
                      "is " + Twine(maxBytes),
                  bytes <= kMaxSharedBytes
                      ? "raise max_shared_bytes to " + Twine(bytes) +
                            " (dynamic shared memory), or tile the "
                            "consumer's block loop smaller"
                      : Twine("tile the consumer's block loop smaller"));
  return DiagnosedSilenceableFailure::success();
}

/// Nothing between the producer and the loop, or in the loop, may change
/// what the fused producer reads; the tile must be one the producer can be
/// tiled to, and its readers must take the fused buffer.
DiagnosedSilenceableFailure checkConsumerTile(TransformOpInterface self,
                                              linalg::LinalgOp producer,
                                              ConsumerTile found,
                                              int64_t maxSharedBytes) {
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
    for (memref::SubViewOp read : found.reads)
      for (Operation *user : read->getUsers())
        if (!isa<linalg::LinalgOp>(user))
          return reject(self, target, RefusalCode::other_use,
                        "the tile is read by " + tirx::irPath(user) +
                            ", which needs the tile's strided layout");
  return checkSharedMemory(self, producer, found.loop, fusedType,
                           maxSharedBytes);
}
} // namespace

LogicalResult tirx::FuseIntoOp::verify() {
  return detail::verifyMaxSharedBytes(*this, getMaxSharedBytes());
}

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
          checkConsumerTile(self, producer, found, getMaxSharedBytes());
      !check.succeeded())
    return check;
  FailureOr<linalg::LinalgOp> fused =
      tirx::fuseIntoConsumerLoop(rewriter, producer, found.reads, found.fill);
  if (failed(fused))
    return reject(self, target, RefusalCode::not_applicable,
                  "tiling the producer failed");
  results.push_back(*fused);
  return DiagnosedSilenceableFailure::success();
}
