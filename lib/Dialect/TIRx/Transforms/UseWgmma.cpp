//===- UseWgmma.cpp - a block's matmul on wgmma and TMA ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The rewrite of transform.tirx.use_wgmma: Hopper's warpgroup MMA fed by
// TMA loads of 128-byte swizzled tiles, staged with mbarriers.
//
// Shared memory of a block (one i8 buffer, its start rounded up at run time
// to kWgmmaSharedAlign): stages tiles of A (BM x 64, 128-byte rows), then
// stages tiles of B (64 x BN as BN / 64 boxes of 64 x 64, each 8 KiB), and
// after the loop C's f32 tile (BM x (BN + 8): padded rows spread the
// accumulator stores over the banks) over the same bytes.
//
// Synchronization: full[s] (one arrival: thread 0's expect_tx, then the
// bytes of the TMA loads) says stage s holds its tile; empty[s] (one
// arrival per warp) says every warp's wgmma that read stage s is complete.
// nvgpu.warpgroup.mma waits for all but the last group of wgmma
// (wait_group 1), so at iteration i the tile of iteration i - 1 is
// released, and thread 0 refills its stage with tile i + stages - 1.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"
#include "IndexEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using tirx::kWgmmaM;
using tirx::kWgmmaSharedAlign;
using tirx::kWgmmaTileK;

namespace {
/// Bytes of one 64 x 64 box of 16-bit elements (64 rows of 128 bytes).
constexpr int64_t kBoxBytes = kWgmmaTileK * kWgmmaTileK * 2;
/// f32 elements of padding per row of C's tile in shared memory.
constexpr int64_t kCPad = 8;

/// The full buffer a tile is a subview of, and the tile's offset along
/// `offsetDim`, when the tile takes the buffer's whole dimension `wholeDim`
/// from 0.
Value tileSource(Value tile, scf::ForallOp blocks, unsigned wholeDim,
                 unsigned offsetDim, OpFoldResult &offset) {
  auto subview = tile.getDefiningOp<memref::SubViewOp>();
  if (!subview || !subview.hasUnitStride() ||
      subview.getType().getRank() != 2)
    return {};
  Value full = subview.getSource();
  auto type = dyn_cast<MemRefType>(full.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity() || type.getMemorySpace())
    return {};
  // The host creates the tensor map: the buffer must exist before the
  // blocks do.
  if (blocks->isAncestor(full.getParentRegion()->getParentOp()))
    return {};
  SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
  if (!isConstantIntValue(offsets[wholeDim], 0) ||
      subview.getStaticSizes()[wholeDim] != type.getDimSize(wholeDim))
    return {};
  offset = offsets[offsetDim];
  return full;
}

/// Builds the threads' body: index arithmetic, views of the shared buffer,
/// and the guarded regions, all with one rewriter and location.
struct Emitter : tirx::IndexEmitter {
  using IndexEmitter::IndexEmitter;
  /// The parity of the phase `use` (0, 1, ...) of a stage's barrier.
  Value parity(Value use) { return cmp(arith::CmpIPredicate::ne, rem(use, 2), 0); }
};
} // namespace

/// The epilogue's consumer on four elements of row `r` from column `c`:
/// `sums` (the matmul's, the fill's value added) for the tile, the other
/// inputs loaded (a vector along the columns, else a broadcast scalar), the
/// body's ops on vectors of four, the result stored into the output.
static void emitEpilogue(RewriterBase &rewriter, Location loc,
                         const tirx::WgmmaEpilogue &epilogue, Value tile,
                         Value sums, Value r, Value c) {
  MLIRContext *ctx = rewriter.getContext();
  linalg::GenericOp consumer = epilogue.consumer;
  auto widen = [](Type type) -> Type { return VectorType::get({4}, type); };
  auto broadcast = [&](Value scalar) -> Value {
    return vector::BroadcastOp::create(rewriter, loc, widen(scalar.getType()),
                                       scalar);
  };
  Value start = linalg::FillOp(epilogue.fill).getInputs()[0];
  if (!matchPattern(start, m_AnyZeroFloat()))
    sums = arith::AddFOp::create(rewriter, loc, sums, broadcast(start));
  Block *body = consumer.getBody();
  IRMapping values;
  for (OpOperand &operand : consumer->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (operand.get() == tile) {
      values.map(arg, sums);
      continue;
    }
    if (arg.use_empty())
      continue;
    AffineMap map = consumer.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(cast<AffineDimExpr>(e).getPosition() == 0 ? r : c);
    if (map.getNumResults() &&
        map.getResults().back() == getAffineDimExpr(1, ctx))
      values.map(arg, vector::LoadOp::create(rewriter, loc, widen(arg.getType()),
                                             operand.get(), indices));
    else
      values.map(arg, broadcast(memref::LoadOp::create(rewriter, loc,
                                                       operand.get(), indices)));
  }
  // A value from outside the body (or a constant in it) is the same for
  // the four elements.
  auto vectorOf = [&](Value v) {
    if (!values.contains(v))
      values.map(v, broadcast(v));
  };
  for (Operation &op : body->without_terminator()) {
    if (op.hasTrait<OpTrait::ConstantLike>()) {
      Operation *scalar = rewriter.clone(op);
      values.map(op.getResult(0), broadcast(scalar->getResult(0)));
      continue;
    }
    for (Value operand : op.getOperands())
      vectorOf(operand);
    Operation *vector = rewriter.clone(op, values);
    for (OpResult result : vector->getResults())
      result.setType(widen(result.getType()));
  }
  Value result = body->getTerminator()->getOperand(0);
  vectorOf(result);
  vector::StoreOp::create(rewriter, loc, values.lookup(result),
                          consumer.getDpsInitOperand(0)->get(),
                          ValueRange{r, c});
}

/// Clears the way for the epilogue: the barriers fuse_into put around the
/// fill and the matmul go (the threads' forall synchronizes itself), and
/// the matmul moves down to the consumer, whose operands are then defined
/// where the threads' forall is built.
static void prepareEpilogue(RewriterBase &rewriter, linalg::MatmulOp matmul,
                            const tirx::WgmmaEpilogue &epilogue) {
  Operation *first = epilogue.fill;
  if (isa_and_nonnull<gpu::BarrierOp>(first->getPrevNode()))
    first = first->getPrevNode();
  SmallVector<Operation *> barriers;
  for (Operation *op = first; op != epilogue.consumer; op = op->getNextNode())
    if (isa<gpu::BarrierOp>(op))
      barriers.push_back(op);
  for (Operation *barrier : barriers)
    rewriter.eraseOp(barrier);
  rewriter.moveOpBefore(matmul, epilogue.consumer);
}

/// Erases what the epilogue replaced: the consumer, the fill, the tile and
/// its deallocations.
static void eraseEpilogue(RewriterBase &rewriter,
                          const tirx::WgmmaEpilogue &epilogue, Value tile) {
  rewriter.eraseOp(epilogue.consumer);
  rewriter.eraseOp(epilogue.fill);
  for (Operation *user : llvm::make_early_inc_range(tile.getUsers()))
    rewriter.eraseOp(user);
  if (Operation *alloc = tile.getDefiningOp())
    rewriter.eraseOp(alloc);
}

std::optional<tirx::WgmmaSources>
tirx::findWgmmaSources(linalg::MatmulOp matmul, scf::ForallOp blocks) {
  WgmmaSources sources;
  sources.a = tileSource(matmul.getDpsInputOperand(0)->get(), blocks,
                         /*wholeDim=*/1, /*offsetDim=*/0, sources.rowA);
  sources.b = tileSource(matmul.getDpsInputOperand(1)->get(), blocks,
                         /*wholeDim=*/0, /*offsetDim=*/1, sources.colB);
  if (!sources.a || !sources.b)
    return std::nullopt;
  return sources;
}

int64_t tirx::wgmmaSharedBytes(int64_t bm, int64_t bn, int64_t stages) {
  int64_t staged = stages * (bm + bn) * kWgmmaTileK * 2;
  int64_t cTile = bm * (bn + kCPad) * 4;
  return std::max(staged, cTile) + kWgmmaSharedAlign;
}

FailureOr<scf::ForallOp> tirx::useWgmma(RewriterBase &rewriter,
                                        linalg::MatmulOp matmul,
                                        scf::ForallOp blocks,
                                        const WgmmaSources &sources,
                                        const UseWgmmaOptions &options) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = matmul.getLoc();
  Value cTile = matmul.getDpsInitOperand(0)->get();
  // Guarded tails store inside C's buffer: its static shape bounds them.
  MemRefType fullC;
  if (options.guardTails) {
    auto subview = cTile.getDefiningOp<memref::SubViewOp>();
    if (!subview || !subview.getSourceType().hasStaticShape())
      return failure();
    fullC = subview.getSourceType();
  }
  if (options.epilogue)
    prepareEpilogue(rewriter, matmul, *options.epilogue);
  auto typeA = cast<MemRefType>(sources.a.getType());
  auto typeC = cast<MemRefType>(cTile.getType());
  Type elem = typeA.getElementType();
  Type f32 = rewriter.getF32Type();
  const int64_t bm = typeC.getDimSize(0), bn = typeC.getDimSize(1);
  // A K no tile of 64 divides ends in a partial tile: TMA fills the
  // columns of A and the rows of B past K with zeros, whose products add
  // nothing (and still counts the whole box's bytes on the barrier).
  const int64_t kTiles = llvm::divideCeil(typeA.getDimSize(1), kWgmmaTileK);
  const int64_t stages = options.stages, groups = options.warpgroups;
  const int64_t threads = 128 * groups;
  // Rows of A (and of the accumulator) per warpgroup.
  const int64_t groupRows = groups == 1 ? bm : kWgmmaM;
  const int64_t aBytes = bm * kWgmmaTileK * 2, bBytes = kWgmmaTileK * bn * 2;
  const int64_t bBase = stages * aBytes;
  auto smem = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto smemType = [&](ArrayRef<int64_t> shape, Type type) {
    return MemRefType::get(shape, type, AffineMap(), smem);
  };

  // The tensor maps, on the host: A in BM x 64 boxes, B in 64 x 64 ones.
  rewriter.setInsertionPoint(blocks);
  auto tensorMap = [&](Value full, int64_t rows) -> Value {
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx, smemType({rows, kWgmmaTileK}, elem),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    Value unranked = memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(elem, Attribute()), full);
    SmallVector<Value> box = {
        arith::ConstantIndexOp::create(rewriter, loc, rows),
        arith::ConstantIndexOp::create(rewriter, loc, kWgmmaTileK)};
    return nvgpu::TmaCreateDescriptorOp::create(rewriter, loc, type, unranked,
                                                box);
  };
  Value mapA = tensorMap(sources.a, bm);
  Value mapB = tensorMap(sources.b, kWgmmaTileK);

  // The block's shared buffer and its threads.
  rewriter.setInsertionPoint(matmul);
  Value row0 = getValueOrCreateConstantIndexOp(rewriter, loc, sources.rowA);
  Value col0 = getValueOrCreateConstantIndexOp(rewriter, loc, sources.colB);
  Value raw = memref::AllocOp::create(
      rewriter, loc,
      smemType({wgmmaSharedBytes(bm, bn, stages)}, rewriter.getI8Type()));
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(threads)},
      ValueRange{},
      rewriter.getArrayAttr(
          {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::DimX)}));
  rewriter.setInsertionPointToStart(forall.getBody());
  Emitter b(rewriter, loc, forall.getBody());
  using P = arith::CmpIPredicate;
  Value tid = forall.getInductionVar(0);
  Value isFirst = b.cmp(P::eq, tid, 0);
  Value isLane0 = b.cmp(P::eq, b.rem(tid, 32), 0);

  // The staged tiles start at the first 1024-byte boundary of the buffer.
  Value address =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, raw);
  Value pad = b.rem(
      arith::SubIOp::create(rewriter, loc, b.cst(kWgmmaSharedAlign),
                            b.rem(address, kWgmmaSharedAlign)),
      kWgmmaSharedAlign);
  auto view = [&](Value byteOffset, MemRefType type) -> Value {
    return memref::ViewOp::create(rewriter, loc, type, raw, byteOffset,
                                  ValueRange{});
  };

  auto groupType = nvgpu::MBarrierGroupType::get(ctx, smem, stages);
  Value full = nvgpu::MBarrierCreateOp::create(rewriter, loc, groupType);
  Value empty = nvgpu::MBarrierCreateOp::create(rewriter, loc, groupType);
  b.ifThen(isFirst, [&] {
    for (int64_t s = 0; s < stages; ++s) {
      nvgpu::MBarrierInitOp::create(rewriter, loc, full, b.cst(1), b.cst(s),
                                    Value());
      nvgpu::MBarrierInitOp::create(rewriter, loc, empty, b.cst(4 * groups),
                                    b.cst(s), Value());
    }
    // The initialized barriers, visible to TMA's completions (the async
    // proxy).
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    NVVM::FenceProxyOp::create(
        rewriter, loc,
        NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    // The tensor maps were copied to global memory by the host: acquire
    // them for the tensor-map proxy (PTX 8.3), then prefetch them.
    for (Value map : {mapA, mapB}) {
      nvgpu::TmaFenceOp::create(rewriter, loc, map);
      nvgpu::TmaPrefetchOp::create(rewriter, loc, map, Value());
    }
  });
  gpu::BarrierOp::create(rewriter, loc);

  // Thread 0 loads tile `t` of K into stage `stage`.
  auto issue = [&](Value t, Value stage) {
    nvgpu::MBarrierArriveExpectTxOp::create(rewriter, loc, full,
                                            b.cst(aBytes + bBytes), stage,
                                            Value());
    Value k0 = b.mul(t, kWgmmaTileK);
    Value dstA = view(b.add(pad, b.mul(stage, aBytes)),
                      smemType({bm, kWgmmaTileK}, elem));
    nvgpu::TmaAsyncLoadOp::create(rewriter, loc, dstA, full, mapA,
                                  ValueRange{k0, row0}, stage, Value(),
                                  Value());
    for (int64_t j = 0; j < bn / kWgmmaTileK; ++j) {
      Value dstB = view(b.add(b.add(pad, bBase + j * kBoxBytes),
                              b.mul(stage, bBytes)),
                        smemType({kWgmmaTileK, kWgmmaTileK}, elem));
      nvgpu::TmaAsyncLoadOp::create(
          rewriter, loc, dstB, full, mapB,
          ValueRange{b.add(col0, j * kWgmmaTileK), k0}, stage, Value(),
          Value());
    }
  };
  b.ifThen(isFirst, [&] {
    for (int64_t t = 0; t < std::min(stages - 1, kTiles); ++t)
      issue(b.cst(t), b.cst(t));
  });

  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({groupRows, bn}, f32));
  Value acc0 =
      nvgpu::WarpgroupMmaInitAccumulatorOp::create(rewriter, loc, accType);
  Value ticks = b.cst(10000000);
  auto loop = scf::ForOp::create(
      rewriter, loc, b.cst(0), b.cst(kTiles), b.cst(1), ValueRange{acc0},
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location, Value i, ValueRange iters) {
        Value stage = b.rem(i, stages);
        nvgpu::MBarrierTryWaitParityOp::create(
            rewriter, loc, full, b.parity(b.div(i, stages)), ticks, stage);
        Value offsetA = b.add(pad, b.mul(stage, aBytes));
        if (groups > 1)
          offsetA = b.add(offsetA, b.mul(b.div(tid, 128),
                                         groupRows * kWgmmaTileK * 2));
        Value tileA = view(offsetA, smemType({groupRows, kWgmmaTileK}, elem));
        Value tileB = view(b.add(b.add(pad, bBase), b.mul(stage, bBytes)),
                           smemType({kWgmmaTileK, bn}, elem));
        auto descriptor = [&](Value tile, Value map) -> Value {
          return nvgpu::WarpgroupGenerateDescriptorOp::create(
              rewriter, loc,
              nvgpu::WarpgroupMatrixDescriptorType::get(
                  ctx, cast<MemRefType>(tile.getType())),
              tile, map);
        };
        // B is K x N with N contiguous: transposed for wgmma.
        // Thread 0 may arrive here late from its refill (a branch of its
        // own): the warp converges before wgmma, which is .aligned.
        NVVM::SyncWarpOp::create(
            rewriter, loc,
            arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                         -1));
        Value descA = descriptor(tileA, mapA);
        Value descB = descriptor(tileB, mapB);
        Value acc = nvgpu::WarpgroupMmaOp::create(
            rewriter, loc, accType, descA, descB, IntegerAttr(), UnitAttr(),
            rewriter.getUnitAttr(), iters[0]);
        // The wgmma of iteration i - 1 are complete: each warp releases
        // its stage, and thread 0 refills it with tile i + stages - 1.
        Value notFirst = b.cmp(P::ugt, i, 0);
        b.ifThen(b.both(notFirst, isLane0), [&] {
          nvgpu::MBarrierArriveOp::create(
              rewriter, loc, nvgpu::MBarrierTokenType::get(ctx), empty,
              b.rem(b.sub(i, 1), stages));
        });
        Value next = b.add(i, stages - 1);
        b.ifThen(b.both(isFirst, b.cmp(P::ult, next, kTiles)), [&] {
          b.ifThen(notFirst, [&] {
            Value previous = b.sub(i, 1);
            nvgpu::MBarrierTryWaitParityOp::create(
                rewriter, loc, empty, b.parity(b.div(previous, stages)),
                ticks, b.rem(previous, stages));
          });
          issue(next, b.rem(next, stages));
        });
        scf::YieldOp::create(rewriter, loc, acc);
      });

  // C += the sums: the accumulators into shared memory (every warpgroup's
  // wgmma done, every stage read), then each thread adds rows of 4 (or
  // computes the epilogue's consumer on them).
  rewriter.setInsertionPointAfter(loop);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, uint64_t(0));
  gpu::BarrierOp::create(rewriter, loc);
  Value sums = view(pad, smemType({bm, bn + kCPad}, f32));
  // nvgpu.warpgroup.mma.store places a thread's values by its thread id
  // (warp w: rows 16 w to 16 w + 15): with two warpgroups, the second's
  // land in rows 64 to 127 of the tile that starts at `sums`.
  Value storeView = memref::SubViewOp::create(
      rewriter, loc, sums,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(groupRows),
                             rewriter.getIndexAttr(bn)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
  nvgpu::WarpgroupMmaStoreOp::create(rewriter, loc, loop.getResult(0),
                                     storeView);
  gpu::BarrierOp::create(rewriter, loc);
  auto vec4 = VectorType::get({4}, f32);
  scf::ForOp::create(
      rewriter, loc, tid, b.cst(bm * bn / 4), b.cst(threads), ValueRange{},
      [&](OpBuilder &, Location, Value v, ValueRange) {
        Block *loopBody = rewriter.getInsertionBlock();
        Value r = b.div(v, bn / 4);
        Value c = b.mul(b.rem(v, bn / 4), 4);
        if (options.guardTails) {
          // A tail block's tile reaches past M or N: store inside C only
          // (N is a multiple of 8: four columns are all in or all out).
          MemRefType full = fullC;
          Value inside = b.both(
              b.cmp(P::ult, b.add(row0, r), full.getDimSize(0)),
              b.cmp(P::ult, b.add(col0, c), full.getDimSize(1)));
          auto guard = scf::IfOp::create(rewriter, loc, inside,
                                         /*withElseRegion=*/false);
          rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
        }
        Value add = vector::LoadOp::create(rewriter, loc, vec4, sums,
                                           ValueRange{r, c});
        if (options.epilogue) {
          emitEpilogue(rewriter, loc, *options.epilogue, cTile, add, r, c);
        } else {
          Value old = vector::LoadOp::create(rewriter, loc, vec4, cTile,
                                             ValueRange{r, c});
          Value sum = arith::AddFOp::create(rewriter, loc, old, add);
          vector::StoreOp::create(rewriter, loc, sum, cTile, ValueRange{r, c});
        }
        rewriter.setInsertionPointToEnd(loopBody);
        scf::YieldOp::create(rewriter, loc);
      });
  rewriter.eraseOp(matmul);
  if (options.epilogue)
    eraseEpilogue(rewriter, *options.epilogue, cTile);
  return forall;
}
