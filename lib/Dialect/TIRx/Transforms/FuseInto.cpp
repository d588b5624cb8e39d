//===- FuseInto.cpp - a producer computed in its consumer's loop -*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.fuse_into.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

Operation *tirx::consumerLoopOf(Operation *producer, memref::SubViewOp tile) {
  for (Operation *p = tile->getParentOp(); p; p = p->getParentOp())
    if (p->getBlock() == producer->getBlock())
      return isa<scf::ForallOp, scf::ForOp>(p) ? p : nullptr;
  return nullptr;
}

/// Whether `loop` is a forall over blocks: its tile is then the block's.
static bool isBlockLoop(Operation *loop) {
  auto forall = dyn_cast_or_null<scf::ForallOp>(loop);
  return forall && tirx::mapsTo(forall, tirx::MappingKind::Block);
}

MemRefType tirx::fusedTileType(memref::SubViewOp tile, Operation *loop) {
  // In a loop over blocks the tile lives in shared memory, since the
  // block's threads may split the producer and the consumer differently.
  // Elsewhere (a thread's loop, an scf.for) it is the iteration's own.
  Attribute space;
  if (isBlockLoop(loop))
    space = gpu::AddressSpaceAttr::get(tile.getContext(),
                                       gpu::AddressSpace::Workgroup);
  MemRefType tileType = tile.getType();
  return MemRefType::get(tileType.getShape(), tileType.getElementType(),
                         MemRefLayoutAttrInterface(), space);
}

/// The tile in the producer's loops: the consumer's tile along the
/// parallel ones, all of each reduction loop.
static void producerTile(OpBuilder &b, linalg::LinalgOp producer,
                         memref::SubViewOp tile,
                         SmallVectorImpl<OpFoldResult> &offsets,
                         SmallVectorImpl<OpFoldResult> &sizes) {
  SmallVector<unsigned> parallelDims;
  producer.getParallelDims(parallelDims);
  SmallVector<int64_t> ranges = producer.getStaticLoopRanges();
  for (unsigned d = 0, p = 0; d < producer.getNumLoops(); ++d) {
    if (p < parallelDims.size() && parallelDims[p] == d) {
      offsets.push_back(tile.getMixedOffsets()[p]);
      sizes.push_back(tile.getMixedSizes()[p]);
      ++p;
    } else {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(ranges[d]));
    }
  }
}

/// Erases `alloc` and its deallocations when nothing else uses it.
static void eraseIfDead(RewriterBase &rewriter, Operation *alloc) {
  if (!llvm::all_of(alloc->getUsers(),
                    [](Operation *u) { return isa<memref::DeallocOp>(u); }))
    return;
  for (Operation *d : llvm::make_early_inc_range(alloc->getUsers()))
    rewriter.eraseOp(d);
  rewriter.eraseOp(alloc);
}

FailureOr<linalg::LinalgOp>
tirx::fuseIntoConsumerLoop(RewriterBase &rewriter, linalg::LinalgOp producer,
                           ArrayRef<memref::SubViewOp> tiles,
                           linalg::FillOp fill) {
  if (tiles.empty())
    return failure();
  // The tile computed once, before the first read; every read takes it.
  memref::SubViewOp tile = tiles.front();
  for (memref::SubViewOp other : tiles.drop_front())
    if (other->getBlock() != tile->getBlock())
      return failure();
    else if (other->isBeforeInBlock(tile))
      tile = other;
  Operation *loop = consumerLoopOf(producer, tile);
  auto producerTiling = dyn_cast<TilingInterface>(producer.getOperation());
  if (!loop || !producerTiling)
    return failure();
  Location loc = tile.getLoc();
  MemRefType tileType = tile.getType();
  MemRefType privateType = fusedTileType(tile, loop);
  bool perBlock = isBlockLoop(loop);
  // The producer, tiled to the consumer's tile, writing the new buffer.
  Value privateTile;
  if (perBlock) {
    rewriter.setInsertionPointToStart(cast<scf::ForallOp>(loop).getBody());
    privateTile = memref::AllocOp::create(rewriter, loc, privateType);
    rewriter.setInsertionPoint(tile);
    gpu::BarrierOp::create(rewriter, loc);
  } else {
    rewriter.setInsertionPoint(tile);
    privateTile = memref::AllocaOp::create(rewriter, loc, privateType);
  }
  SmallVector<OpFoldResult> offsets, sizes;
  producerTile(rewriter, producer, tile, offsets, sizes);
  // A reduction starts from the fill's value. In a block's shared buffer,
  // every thread runs the fill (on the whole tile) and the producer may later
  // be split among threads: a barrier between them, or a thread still
  // filling wipes what another has begun to accumulate (a race that
  // tirx-cpu-check showed in recipes/rmsnorm-fused.json).
  if (fill) {
    linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(),
                           ValueRange{privateTile});
    if (perBlock)
      gpu::BarrierOp::create(rewriter, loc);
  }
  FailureOr<TilingResult> tiled =
      producerTiling.getTiledImplementation(rewriter, offsets, sizes);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  auto fused = cast<linalg::LinalgOp>(tiled->tiledOps.front());
  OpOperand *init = fused.getDpsInitOperand(0);
  Operation *oldOut = init->get().getDefiningOp();
  rewriter.modifyOpInPlace(fused, [&] { init->set(privateTile); });
  if (oldOut && oldOut->use_empty())
    rewriter.eraseOp(oldOut);
  if (perBlock)
    gpu::BarrierOp::create(rewriter, loc);
  // The consumer reads the new buffer through a cast to the tile's type
  // where the types allow, else directly (linalg ops take any layout).
  Value replacement = privateTile;
  if (privateType != tileType &&
      memref::CastOp::areCastCompatible(privateType, tileType))
    replacement = memref::CastOp::create(rewriter, loc, tileType, privateTile);
  Operation *alloc = producer.getDpsInitOperand(0)->get().getDefiningOp();
  for (memref::SubViewOp read : tiles)
    rewriter.replaceOp(read, replacement);
  rewriter.eraseOp(producer);
  if (fill)
    rewriter.eraseOp(fill);
  if (alloc)
    eraseIfDead(rewriter, alloc);
  return fused;
}
