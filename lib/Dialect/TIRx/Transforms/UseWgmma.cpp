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
// A K-major B (held as (n, k), nn.Linear's weight) is staged as A is: BN
// rows of 128 bytes along K (32 f32 or 64 16-bit elements), one box. wgmma
// then reads both operands without a transpose, which is the only way it
// reads 32-bit ones (PTX ISA, wgmma.mma_async: imm-trans-a/b for .f16 and
// .bf16 only). Upstream's nvgpu.warpgroup.mma takes neither f32 (tf32)
// descriptors nor a K-major B, so that path emits NVVM's wgmma.mma_async
// itself: the matrix descriptors (start address, 1024-byte stride between
// groups of 8 rows, 128-byte swizzle; a K step of wgmma, 8 tf32 or 16
// 16-bit elements, is 32 bytes into the swizzled rows), the accumulators as
// LLVM structs (a 64-row group each), stored by their fragment layout.
//
// An f32 B held as (k, n) (torch.mm's) is staged as 16-bit ones are, in
// boxes of 32 rows of K by 128 bytes (32 f32) of N. wgmma cannot read it
// from shared memory, but takes its A from registers in any layout: the
// block computes C^T = B^T A^T, each thread loading its fragments of B^T
// from the boxes (the swizzle undone in the address), A's tile being
// wgmma's K-major B; the product is inline PTX (NVVM's op takes A by
// descriptor only), and the sums are stored transposed (swapLoop).
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
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using tirx::kWgmmaM;
using tirx::kWgmmaSharedAlign;
using tirx::kWgmmaRowBytes;
using tirx::kWgmmaTileK;

namespace {
/// f32 elements of padding per row of C's tile in shared memory.
constexpr int64_t kCPad = 8;
/// Bytes of one K step of wgmma in a staged row: 8 tf32 or 16 16-bit
/// elements.
constexpr int64_t kWgmmaStepBytes = 32;
/// The fixed fields of a K-major wgmma matrix descriptor (PTX ISA, "Matrix
/// Descriptor Format"): the 128-byte swizzle (bits 62-63: 1), the stride
/// between groups of 8 rows, 1024 bytes >> 4 (bits 32-45), and the leading
/// byte offset, unused by a swizzled K-major layout (bits 16-29: 1). The
/// start address >> 4 goes in bits 0-13.
constexpr uint64_t kKMajorDescriptor =
    (uint64_t(1) << 62) | (uint64_t(1024 >> 4) << 32) | (uint64_t(1) << 16);

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
  // The sums are f32; a 16-bit tile holds them rounded once.
  Value start = linalg::FillOp(epilogue.fill).getInputs()[0];
  auto sumsType = cast<VectorType>(sums.getType());
  if (!matchPattern(start, m_AnyZeroFloat())) {
    Value s = broadcast(start);
    if (s.getType() != sumsType)
      s = arith::ExtFOp::create(rewriter, loc, sumsType, s);
    sums = arith::AddFOp::create(rewriter, loc, sums, s);
  }
  Type elemTile = cast<MemRefType>(tile.getType()).getElementType();
  if (elemTile != sumsType.getElementType())
    sums = arith::TruncFOp::create(rewriter, loc, widen(elemTile), sums);
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

int64_t tirx::wgmmaTileK(Type elementType) {
  return kWgmmaRowBytes / (elementType.getIntOrFloatBitWidth() / 8);
}

std::optional<tirx::WgmmaSources>
tirx::findWgmmaSources(linalg::MatmulOp matmul, scf::ForallOp blocks,
                       bool kMajorB) {
  WgmmaSources sources;
  sources.kMajorB = kMajorB;
  sources.a = tileSource(matmul.getDpsInputOperand(0)->get(), blocks,
                         /*wholeDim=*/1, /*offsetDim=*/0, sources.rowA);
  // B as (k, n): all of K is dimension 0; as (n, k), dimension 1.
  sources.b = tileSource(matmul.getDpsInputOperand(1)->get(), blocks,
                         /*wholeDim=*/kMajorB ? 1 : 0,
                         /*offsetDim=*/kMajorB ? 0 : 1, sources.colB);
  if (!sources.a || !sources.b)
    return std::nullopt;
  return sources;
}

int64_t tirx::wgmmaSharedBytes(int64_t bm, int64_t bn, int64_t stages) {
  int64_t staged = stages * (bm + bn) * kWgmmaRowBytes;
  int64_t cTile = bm * (bn + kCPad) * 4;
  return std::max(staged, cTile) + kWgmmaSharedAlign;
}

namespace {
/// The threads' body of useWgmma: its shared buffer, barriers and tensor
/// maps, and what both of its K loops do (wait for a stage, load it,
/// release and refill it).
struct Staging {
  RewriterBase &rewriter;
  Location loc;
  Emitter &b;
  MLIRContext *ctx;
  Type elem;
  int64_t bm, bn, stages, groups, groupRows, kTiles, tileK;
  int64_t aBytes, bBytes, bBase;
  bool kMajorB;
  /// The buffer, its address and the bytes to its first 1024-byte boundary.
  Value raw, address, pad;
  Value full, empty, mapA, mapB, row0, col0, tid, isFirst, isLane0;
  /// B's first row of K (a batch's, in a collapsed (batch * K, N) buffer).
  Value rowK;

  MemRefType smemType(ArrayRef<int64_t> shape, Type type) const {
    return MemRefType::get(
        shape, type, AffineMap(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  }
  Value view(Value byteOffset, MemRefType type) {
    return memref::ViewOp::create(rewriter, loc, type, raw, byteOffset,
                                  ValueRange{});
  }

  /// Thread 0 loads tile `t` of K into stage `stage`: A's BM x tileK box,
  /// then B's (one BN x tileK box when K-major, else BN / 64 boxes of
  /// 64 x 64).
  void issue(Value t, Value stage) {
    nvgpu::MBarrierArriveExpectTxOp::create(rewriter, loc, full,
                                            b.cst(aBytes + bBytes), stage,
                                            Value());
    Value k0 = b.mul(t, tileK);
    Value dstA = view(b.add(pad, b.mul(stage, aBytes)),
                      smemType({bm, tileK}, elem));
    nvgpu::TmaAsyncLoadOp::create(rewriter, loc, dstA, full, mapA,
                                  ValueRange{k0, row0}, stage, Value(),
                                  Value());
    if (kMajorB) {
      Value dstB = view(b.add(b.add(pad, bBase), b.mul(stage, bBytes)),
                        smemType({bn, tileK}, elem));
      nvgpu::TmaAsyncLoadOp::create(rewriter, loc, dstB, full, mapB,
                                    ValueRange{k0, col0}, stage, Value(),
                                    Value());
      return;
    }
    // Boxes of tileK rows of K by 128 bytes of N (64 x 64 16-bit elements,
    // 32 x 32 f32).
    const int64_t boxBytes = tileK * kWgmmaRowBytes;
    for (int64_t j = 0; j < bn / tileK; ++j) {
      Value dstB = view(b.add(b.add(pad, bBase + j * boxBytes),
                              b.mul(stage, bBytes)),
                        smemType({tileK, tileK}, elem));
      nvgpu::TmaAsyncLoadOp::create(
          rewriter, loc, dstB, full, mapB,
          ValueRange{b.add(col0, j * tileK), b.add(k0, rowK)}, stage,
          Value(),
          Value());
    }
  }

  /// The start of iteration `i`: wait for its stage to be loaded; the warp
  /// converges before wgmma, which is .aligned (thread 0 may arrive late
  /// from its refill, a branch of its own).
  Value waitForStage(Value i) {
    Value stage = b.rem(i, stages);
    nvgpu::MBarrierTryWaitParityOp::create(
        rewriter, loc, full, b.parity(b.div(i, stages)), b.cst(kTicks), stage);
    NVVM::SyncWarpOp::create(
        rewriter, loc,
        arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(), -1));
    return stage;
  }

  /// The end of iteration `i`, once its wgmma are issued and all but the
  /// last group completed: those of iteration i - 1 are complete, so each
  /// warp releases its stage, and thread 0 refills it with tile
  /// i + stages - 1.
  void releaseAndRefill(Value i) {
    using P = arith::CmpIPredicate;
    Value notFirst = b.cmp(P::ugt, i, 0);
    b.ifThen(b.both(notFirst, isLane0), [&] {
      nvgpu::MBarrierArriveOp::create(rewriter, loc,
                                      nvgpu::MBarrierTokenType::get(ctx), empty,
                                      b.rem(b.sub(i, 1), stages));
    });
    Value next = b.add(i, stages - 1);
    b.ifThen(b.both(isFirst, b.cmp(P::ult, next, kTiles)), [&] {
      b.ifThen(notFirst, [&] {
        Value previous = b.sub(i, 1);
        nvgpu::MBarrierTryWaitParityOp::create(
            rewriter, loc, empty, b.parity(b.div(previous, stages)),
            b.cst(kTicks), b.rem(previous, stages));
      });
      issue(next, b.rem(next, stages));
    });
  }

  /// A descriptor of the K-major, 128-byte swizzled tile at `byteOffset`
  /// (16-byte aligned) from the stages' first byte, and one `bytes` (a
  /// constant multiple of 16) past `desc`'s.
  Value descriptorAt(Value byteOffset);
  Value plus(Value desc, int64_t bytes);
  Value i64Const(uint64_t v);
  /// Once every group of wgmma completed, stores the K loop's accumulators
  /// (LLVM structs of wgmma's D fragment, a group of 64 rows each) into
  /// `sums`, or their transposes (the swapped product's).
  void storeSums(scf::ForOp loop, Value sums, bool transposed);
  /// The swapped product's (swapLoop): the column of C (from the block's
  /// first) that the thread's accumulator row l / 4 + 8 h of its warp and
  /// 64-row group g stands for. Each warpgroup takes BN / warpgroups
  /// columns, a group 64 of them, in tirx::wgmmaSwappedColumn's order.
  Value swappedColumn(int64_t g, int64_t h) {
    Value inGroup = tirx::wgmmaSwappedColumn(
        b, b.div(b.rem(tid, 128), 32), b.div(b.rem(tid, 32), 4), h);
    return b.add(b.add(b.mul(b.div(tid, 128), bn / groups), g * kWgmmaM),
                 inGroup);
  }
  /// The descriptor of the stages' first byte (startDescriptors makes it).
  Value descriptorStart;
  void startDescriptors();

  /// The K loop on nvgpu.warpgroup.mma (B held as (k, n), 16-bit): stores
  /// the sums into `sums` (BM x (BN + pad) f32 in shared memory) once
  /// every wgmma completed.
  void nvgpuLoop(Value sums);
  /// The K loop on NVVM's wgmma.mma_async with both operands K-major.
  void kMajorLoop(Value sums);
  /// The K loop of an f32 (tf32) matmul with B held as (k, n): C^T = B^T
  /// A^T on wgmma with its A (B^T) in registers.
  void swapLoop(Value sums);

  /// A barrier's wait: spins this many ticks per try.
  static constexpr int64_t kTicks = 10000000;
};
} // namespace

void Staging::nvgpuLoop(Value sums) {
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({groupRows, bn}, rewriter.getF32Type()));
  Value acc0 =
      nvgpu::WarpgroupMmaInitAccumulatorOp::create(rewriter, loc, accType);
  auto loop = scf::ForOp::create(
      rewriter, loc, b.cst(0), b.cst(kTiles), b.cst(1), ValueRange{acc0},
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location, Value i, ValueRange iters) {
        Value stage = waitForStage(i);
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
        Value descA = descriptor(tileA, mapA);
        Value descB = descriptor(tileB, mapB);
        Value acc = nvgpu::WarpgroupMmaOp::create(
            rewriter, loc, accType, descA, descB, IntegerAttr(), UnitAttr(),
            rewriter.getUnitAttr(), iters[0]);
        releaseAndRefill(i);
        scf::YieldOp::create(rewriter, loc, acc);
      });
  rewriter.setInsertionPointAfter(loop);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, uint64_t(0));
  gpu::BarrierOp::create(rewriter, loc);
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
}

Value Staging::i64Const(uint64_t v) {
  return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                      int64_t(v));
}

void Staging::startDescriptors() {
  // The start address field of the stages' first byte (the buffer's first
  // 1024-byte boundary) and the fixed fields of a K-major, 128-byte swizzled
  // operand.
  Type i64 = rewriter.getI64Type();
  Value field = arith::AndIOp::create(
      rewriter, loc,
      arith::IndexCastUIOp::create(rewriter, loc, i64,
                                   b.div(b.add(address, pad), 16)),
      i64Const(0x3FFF));
  descriptorStart =
      arith::OrIOp::create(rewriter, loc, field, i64Const(kKMajorDescriptor));
}

Value Staging::descriptorAt(Value byteOffset) {
  // byteOffset >> 4 added to the start address field: no carry out of its
  // 14 bits, shared memory ends below 2^18 bytes.
  return arith::AddIOp::create(
      rewriter, loc, descriptorStart,
      arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                   b.div(byteOffset, 16)));
}

Value Staging::plus(Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  return arith::AddIOp::create(rewriter, loc, desc, i64Const(bytes >> 4));
}

void Staging::storeSums(scf::ForOp loop, Value sums, bool transposed) {
  Type f32 = rewriter.getF32Type();
  ValueRange accs = loop.getResults();
  rewriter.setInsertionPointAfter(loop);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, uint64_t(0));
  gpu::BarrierOp::create(rewriter, loc);
  // wgmma's D fragment (PTX ISA, "Matrix D" of wgmma .m64nNk8/.m64nNk16,
  // f32): warp w of a warpgroup holds rows 16 w to 16 w + 15 of its 64;
  // sum 4 j + 2 h + e of lane l is row 16 w + l / 4 + 8 h, column
  // 8 j + 2 (l % 4) + e. Untransposed, the second warpgroup's warps (4 to
  // 7) hold rows 64 to 127: row 16 (tid / 32) + ..., whichever warpgroup.
  // Transposed, the rows are C's columns, from the warpgroup's first (it
  // takes BN / warpgroups of them).
  Value row = b.add(b.mul(b.div(tid, 32), 16), b.div(b.rem(tid, 32), 4));
  Value col = b.mul(b.rem(tid, 4), 2);
  auto pairType = VectorType::get({2}, f32);
  auto accType = cast<LLVM::LLVMStructType>(accs.front().getType());
  const int64_t cols = accType.getBody().size() * 2;
  for (auto [g, acc] : llvm::enumerate(accs))
    for (int64_t j = 0; j < cols / 8; ++j)
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<Value> pair;
        for (int64_t e = 0; e < 2; ++e)
          pair.push_back(LLVM::ExtractValueOp::create(rewriter, loc, acc,
                                                      4 * j + 2 * h + e));
        if (transposed) {
          // The sums of C^T: row r of the accumulator is column
          // swappedColumn of C; the pair, two rows of C.
          Value r = swappedColumn(g, h);
          Value c = b.add(col, 8 * j);
          for (int64_t e = 0; e < 2; ++e)
            memref::StoreOp::create(rewriter, loc, pair[e], sums,
                                    ValueRange{b.add(c, e), r});
          continue;
        }
        Value v = vector::FromElementsOp::create(rewriter, loc, pairType, pair);
        // Rows of BN + 8 f32 and an even column: 8-byte aligned.
        vector::StoreOp::create(rewriter, loc, v, sums,
                                ValueRange{b.add(row, int64_t(g) * kWgmmaM + 8 * h),
                                           b.add(col, 8 * j)},
                                /*nontemporal=*/false, llvm::Align(8));
      }
}

void Staging::kMajorLoop(Value sums) {
  Type f32 = rewriter.getF32Type();
  // One accumulator per 64 rows a warpgroup computes: a thread's BN / 2
  // sums (wgmma's D fragment).
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(bn / 2, f32));
  const int64_t rowGroups = groupRows / kWgmmaM;
  startDescriptors();
  SmallVector<Value> inits;
  for (int64_t g = 0; g < rowGroups; ++g)
    inits.push_back(LLVM::ZeroOp::create(rewriter, loc, accType));
  auto wgmmaType = [&]() {
    if (elem.isF32())
      return NVVM::WGMMATypes::tf32;
    return elem.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  }();
  const int64_t stepK = kWgmmaStepBytes / (elem.getIntOrFloatBitWidth() / 8);
  auto loop = scf::ForOp::create(
      rewriter, loc, b.cst(0), b.cst(kTiles), b.cst(1), inits,
      [&](OpBuilder &, Location, Value i, ValueRange iters) {
        Value stage = waitForStage(i);
        Value offsetA = b.mul(stage, aBytes);
        if (groups > 1)
          offsetA = b.add(offsetA,
                          b.mul(b.div(tid, 128), kWgmmaM * kWgmmaRowBytes));
        Value descA = descriptorAt(offsetA);
        Value descB = descriptorAt(b.add(b.mul(stage, bBytes), bBase));
        NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
        SmallVector<Value> accs(iters.begin(), iters.end());
        // K steps of 32 bytes along the swizzled rows; the warpgroup's
        // 64-row groups of A interleaved.
        for (int64_t s = 0; s < kWgmmaRowBytes / kWgmmaStepBytes; ++s) {
          Value stepB = plus(descB, s * kWgmmaStepBytes);
          for (int64_t g = 0; g < rowGroups; ++g)
            accs[g] = NVVM::WgmmaMmaAsyncOp::create(
                rewriter, loc, accType, accs[g],
                plus(descA, g * kWgmmaM * kWgmmaRowBytes + s * kWgmmaStepBytes),
                stepB,
                NVVM::MMAShapeAttr::get(ctx, kWgmmaM, bn, stepK), wgmmaType,
                wgmmaType, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row, NVVM::MMALayout::col,
                NVVM::MMAIntOverflowAttr());
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
        NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, uint64_t(1));
        releaseAndRefill(i);
        scf::YieldOp::create(rewriter, loc, accs);
      });
  storeSums(loop, sums, /*transposed=*/false);
}

void Staging::swapLoop(Value sums) {
  Type f32 = rewriter.getF32Type();
  Type i32 = rewriter.getI32Type();
  // C^T = B^T A^T: wgmma's M is C's columns (BN, split among the
  // warpgroups in groups of 64), its N is C's rows (BM). A thread holds
  // BM / 2 sums per group of 64 columns.
  const int64_t groupCols = bn / groups;
  const int64_t colGroups = groupCols / kWgmmaM;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(bm / 2, f32));
  startDescriptors();
  SmallVector<Value> inits;
  for (int64_t g = 0; g < colGroups; ++g)
    inits.push_back(LLVM::ZeroOp::create(rewriter, loc, accType));
  // wgmma's A fragment of m64nNk8 .tf32 (PTX ISA, "Register Fragments",
  // .tf32): lane l of warp w holds rows 16 w + l / 4 (a0, a2) and + 8 (a1,
  // a3), columns l % 4 (a0, a1) and + 4 (a2, a3). Here a row is a column n
  // of B and a column a row k: element (k, n) of a stage of B, which TMA
  // wrote as boxes of 32 x 32 f32 (4 KiB), row k of a box 128 bytes whose
  // 16-byte chunks are swizzled (chunk c at c ^ (k % 8)). A K step of 8 is
  // 1024 bytes further, k % 8 unchanged: the offsets (in f32) of a
  // thread's 4 elements in a stage, per group, are fixed but for the step.
  // Rows 16 w + 8 h + l / 4 of a group are C's columns permuted
  // (tirx::wgmmaSwappedColumn): a warp's 32 loads of one register fall on
  // 32 banks, not two lanes a bank as in order.
  Value q = b.rem(b.rem(tid, 32), 4);
  const int64_t boxBytes = tileK * kWgmmaRowBytes;
  SmallVector<std::array<Value, 4>> offsets;
  for (int64_t g = 0; g < colGroups; ++g) {
    std::array<Value, 4> four;
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t h = 0; h < 2; ++h) {
        Value n = swappedColumn(g, h);
        Value k = b.add(q, 4 * half);
        Value chunk = arith::XOrIOp::create(rewriter, loc,
                                            b.div(b.rem(n, tileK), 4), k);
        Value bytes = b.add(
            b.add(b.mul(b.div(n, tileK), boxBytes), b.mul(k, kWgmmaRowBytes)),
            b.add(b.mul(chunk, 16), b.mul(b.rem(n, 4), 4)));
        four[2 * half + h] = b.div(bytes, 4);
      }
    offsets.push_back(four);
  }
  const int64_t steps = kWgmmaRowBytes / kWgmmaStepBytes;
  // wgmma.mma_async m64n{BM}k8 .tf32 with A in registers, as inline PTX
  // (NVVM's op takes A by descriptor only): the sums in and out (tied),
  // the four fragment registers, B's descriptor.
  const int64_t sumsPerThread = bm / 2;
  std::string ptx = "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n" +
                    std::to_string(bm) + "k8.f32.tf32.tf32 {";
  std::string constraints;
  for (int64_t r = 0; r < sumsPerThread; ++r) {
    ptx += (r ? ", $" : "$") + std::to_string(r);
    constraints += "=f,";
  }
  ptx += "}, {";
  for (int64_t r = 0; r < 4; ++r)
    ptx += (r ? ", $" : "$") + std::to_string(2 * sumsPerThread + r);
  ptx += "}, $" + std::to_string(2 * sumsPerThread + 4) + ", p, 1, 1;\n}";
  for (int64_t r = 0; r < sumsPerThread; ++r)
    constraints += std::to_string(r) + ",";
  constraints += "r,r,r,r,l";
  auto wgmma = [&](Value acc, ArrayRef<Value> fragment, Value desc) -> Value {
    SmallVector<Value> operands;
    for (int64_t r = 0; r < sumsPerThread; ++r)
      operands.push_back(LLVM::ExtractValueOp::create(rewriter, loc, acc, r));
    llvm::append_range(operands, fragment);
    operands.push_back(desc);
    return LLVM::InlineAsmOp::create(
               rewriter, loc, accType, operands, ptx, constraints,
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
               ArrayAttr())
        .getResult(0);
  };
  auto loop = scf::ForOp::create(
      rewriter, loc, b.cst(0), b.cst(kTiles), b.cst(1), inits,
      [&](OpBuilder &, Location, Value i, ValueRange iters) {
        Value stage = waitForStage(i);
        // A's tile (BM rows of 128 bytes along K) is wgmma's K-major B.
        Value descA = descriptorAt(b.mul(stage, aBytes));
        Value stageB = view(b.add(b.add(pad, bBase), b.mul(stage, bBytes)),
                            smemType({bBytes / 4}, f32));
        SmallVector<Value> accs(iters.begin(), iters.end());
        for (int64_t s = 0; s < steps; ++s) {
          // The registers of this step's fragments were read by the
          // wgmma of the same step one tile back: of the groups issued
          // since (one per step), all but the last steps - 1 are complete.
          NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc,
                                             uint64_t(steps - 1));
          SmallVector<std::array<Value, 4>> fragments;
          for (int64_t g = 0; g < colGroups; ++g) {
            std::array<Value, 4> four;
            for (int64_t r = 0; r < 4; ++r) {
              Value v = memref::LoadOp::create(
                  rewriter, loc, stageB,
                  ValueRange{b.add(offsets[g][r], s * 8 * kWgmmaRowBytes / 4)});
              four[r] = arith::BitcastOp::create(rewriter, loc, i32, v);
            }
            fragments.push_back(four);
          }
          NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
          Value desc = plus(descA, s * kWgmmaStepBytes);
          for (int64_t g = 0; g < colGroups; ++g)
            accs[g] = wgmma(accs[g], fragments[g], desc);
          NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
        }
        // Every group of the previous tile is complete (the last step
        // waited for its last): its stage is released.
        releaseAndRefill(i);
        scf::YieldOp::create(rewriter, loc, accs);
      });
  storeSums(loop, sums, /*transposed=*/true);
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
  const int64_t tileK = wgmmaTileK(elem);
  // A K no tile divides ends in a partial tile: TMA fills the columns of A
  // and the rows of B past K with zeros, whose products add nothing (and
  // still counts the whole box's bytes on the barrier).
  const int64_t kTiles = llvm::divideCeil(typeA.getDimSize(1), tileK);
  const int64_t stages = options.stages, groups = options.warpgroups;
  const int64_t threads = 128 * groups;
  // Rows of A (and of the accumulator) per warpgroup.
  const int64_t groupRows = groups == 1 ? bm : kWgmmaM;
  // Staged tiles: 128-byte rows along K, BM of A's and BN of B's.
  const int64_t aBytes = bm * kWgmmaRowBytes, bBytes = bn * kWgmmaRowBytes;
  const int64_t bBase = stages * aBytes;
  auto smemType = [&](ArrayRef<int64_t> shape, Type type) {
    return MemRefType::get(
        shape, type, AffineMap(),
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  };

  // The tensor maps, on the host: A in BM x tileK boxes, B in BN x tileK
  // ones when K-major, else 64 x 64 ones.
  rewriter.setInsertionPoint(blocks);
  auto tensorMap = [&](Value full, int64_t rows) -> Value {
    auto type = nvgpu::TensorMapDescriptorType::get(
        ctx, smemType({rows, tileK}, elem),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
        nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    Value unranked = memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(elem, Attribute()), full);
    SmallVector<Value> box = {
        arith::ConstantIndexOp::create(rewriter, loc, rows),
        arith::ConstantIndexOp::create(rewriter, loc, tileK)};
    return nvgpu::TmaCreateDescriptorOp::create(rewriter, loc, type, unranked,
                                                box);
  };
  Value mapA = tensorMap(sources.a, bm);
  Value mapB = tensorMap(sources.b, sources.kMajorB ? bn : tileK);

  // The block's shared buffer and its threads.
  rewriter.setInsertionPoint(matmul);
  Value row0 = getValueOrCreateConstantIndexOp(rewriter, loc, sources.rowA);
  Value col0 = getValueOrCreateConstantIndexOp(rewriter, loc, sources.colB);
  Value rowK = sources.rowK ? getValueOrCreateConstantIndexOp(
                                  rewriter, loc, sources.rowK)
                            : Value(arith::ConstantIndexOp::create(
                                  rewriter, loc, 0));
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

  auto groupType = nvgpu::MBarrierGroupType::get(
      ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
      stages);
  Value full = nvgpu::MBarrierCreateOp::create(rewriter, loc, groupType);
  Value empty = nvgpu::MBarrierCreateOp::create(rewriter, loc, groupType);
  Staging staging{rewriter, loc,    b,       ctx,       elem,
                  bm,       bn,     stages,  groups,    groupRows,
                  kTiles,   tileK,  aBytes,  bBytes,    bBase,
                  sources.kMajorB,  raw,     address,   pad,  full,
                  empty,    mapA,   mapB,    row0,      col0,
                  tid,      isFirst, isLane0, rowK};
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
  b.ifThen(isFirst, [&] {
    for (int64_t t = 0; t < std::min(stages - 1, kTiles); ++t)
      staging.issue(b.cst(t), b.cst(t));
  });

  // The K loop; then, every warpgroup's wgmma done and every stage read,
  // the accumulators into shared memory (C's padded tile over the stages).
  Value sums = staging.view(pad, smemType({bm, bn + kCPad}, f32));
  if (sources.kMajorB)
    staging.kMajorLoop(sums);
  else if (elem.isF32())
    staging.swapLoop(sums);
  else
    staging.nvgpuLoop(sums);

  // C += the sums (C = the fill's value + the sums where the fill is taken
  // over): each thread stores rows of 4 (or computes the epilogue's
  // consumer on them).
  gpu::BarrierOp::create(rewriter, loc);
  auto vec4 = VectorType::get({4}, f32);
  // A 16-bit C: the f32 sums (C's old value or the fill's added) rounded
  // once, as cuBLAS rounds its f32 accumulators.
  Type elemC = typeC.getElementType();
  auto vec4C = VectorType::get({4}, elemC);
  auto toC = [&](Value v) -> Value {
    return elemC == f32 ? v : arith::TruncFOp::create(rewriter, loc, vec4C, v);
  };
  auto fromC = [&](Value v) -> Value {
    return elemC == f32 ? v
                        : arith::ExtFOp::create(rewriter, loc, vec4, v);
  };
  scf::ForOp::create(
      rewriter, loc, tid, b.cst(bm * bn / 4), b.cst(threads), ValueRange{},
      [&](OpBuilder &, Location, Value v, ValueRange) {
        Block *loopBody = rewriter.getInsertionBlock();
        Value r = b.div(v, bn / 4);
        Value c = b.mul(b.rem(v, bn / 4), 4);
        if (options.guardTails) {
          // A tail block's tile reaches past M or N: store inside C only
          // (N is a multiple of 4: four columns are all in or all out).
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
        } else if (options.start) {
          // C starts at the fill's value, which this store takes over.
          Value sum = add;
          if (!matchPattern(options.start, m_AnyZeroFloat()))
            sum = arith::AddFOp::create(
                rewriter, loc,
                fromC(vector::BroadcastOp::create(rewriter, loc, vec4C,
                                                  options.start)),
                add);
          vector::StoreOp::create(rewriter, loc, toC(sum), cTile,
                                  ValueRange{r, c});
        } else {
          Value old = vector::LoadOp::create(rewriter, loc, vec4C, cTile,
                                             ValueRange{r, c});
          Value sum = arith::AddFOp::create(rewriter, loc, fromC(old), add);
          vector::StoreOp::create(rewriter, loc, toC(sum), cTile,
                                  ValueRange{r, c});
        }
        rewriter.setInsertionPointToEnd(loopBody);
        scf::YieldOp::create(rewriter, loc);
      });
  rewriter.eraseOp(matmul);
  if (options.epilogue)
    eraseEpilogue(rewriter, *options.epilogue, cTile);
  return forall;
}
