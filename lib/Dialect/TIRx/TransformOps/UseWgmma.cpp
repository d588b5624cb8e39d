//===- UseWgmma.cpp - use_wgmma ---------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Tails.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;
using mlir::tirx::kWgmmaM;
using mlir::tirx::kWgmmaTileK;

//===----------------------------------------------------------------------===//
// use_wgmma
//===----------------------------------------------------------------------===//

namespace {
/// f32 sums a thread may hold: wgmma's accumulators live in registers.
constexpr int64_t kMaxSumsPerThread = 128;

/// Whether `type` is in workgroup (shared) memory.
bool inSharedMemory(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && tirx::memorySpaceName(memref) == "workgroup";
}

/// Whether every op strictly between `from` and `to` (one block) is a
/// barrier or touches no memory; else the first that does.
Operation *firstMemoryOpBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isa<gpu::BarrierOp>(op) && !isMemoryEffectFree(op))
      return op;
  return nullptr;
}

/// The epilogue of a matmul whose C is a block's tile in shared memory
/// (fuse_into's): the fill that starts it and the one elementwise
/// linalg.generic that reads it, checked as useWgmma assumes.
DiagnosedSilenceableFailure findEpilogue(TransformOpInterface self,
                                         linalg::MatmulOp matmul,
                                         tirx::WgmmaEpilogue &epilogue) {
  Operation *target = matmul;
  Value tile = matmul.getDpsInitOperand(0)->get();
  const char *hint = "fuse the matmul (fuse_into) into the block loop of an "
                     "elementwise linalg.generic that reads its tile";
  if (!tile.getDefiningOp<memref::AllocOp>())
    return reject(self, target, RefusalCode::not_intermediate,
                  "C is a shared-memory buffer the block does not allocate",
                  hint);
  for (Operation *user : tile.getUsers()) {
    if (user == target || isa<memref::DeallocOp>(user))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(user);
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (fill && !epilogue.fill && user->getBlock() == target->getBlock() &&
        user->isBeforeInBlock(target)) {
      epilogue.fill = fill;
      continue;
    }
    if (generic && !epilogue.consumer &&
        user->getBlock() == target->getBlock() &&
        target->isBeforeInBlock(user)) {
      epilogue.consumer = generic;
      continue;
    }
    return reject(self, target, RefusalCode::other_use,
                  "C's tile in shared memory is also used by " +
                      tirx::irPath(user) +
                      ": use_wgmma's epilogue takes a tile that one "
                      "linalg.fill before the matmul starts and one "
                      "linalg.generic after it reads",
                  hint);
  }
  if (!epilogue.fill)
    return reject(self, target, RefusalCode::not_intermediate,
                  "nothing fills C's tile in shared memory before the "
                  "matmul: its sums would start from unknown values",
                  hint);
  if (!epilogue.consumer)
    return reject(self, target, RefusalCode::no_consumer_loop,
                  "no linalg.generic after the matmul reads C's tile in "
                  "shared memory: the sums would go nowhere",
                  hint);
  for (auto [from, to] : {std::pair<Operation *, Operation *>{epilogue.fill,
                                                              target},
                          {target, epilogue.consumer}})
    if (Operation *op = firstMemoryOpBetween(from, to))
      return reject(self, target, RefusalCode::bad_order,
                    tirx::irPath(op) + " between the fill, the matmul and "
                                       "its consumer touches memory",
                    "move it after the consumer");
  linalg::GenericOp consumer = epilogue.consumer;
  auto tileType = cast<MemRefType>(tile.getType());
  MLIRContext *ctx = matmul.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  auto elementwise = [&](const Twine &why) {
    return reject(self, target, RefusalCode::not_elementwise,
                  tirx::irPath(consumer) + " " + why +
                      ": use_wgmma's epilogue computes an elementwise "
                      "consumer of the tile, four elements of a row at a "
                      "time",
                  "leave the consumer a kernel of its own (tile the matmul "
                  "to blocks without fuse_into)");
  };
  if (consumer.getNumLoops() != 2 || consumer.getNumReductionLoops() != 0 ||
      consumer.getNumDpsInits() != 1 || !consumer.hasPureBufferSemantics())
    return elementwise("is not a 2-D all-parallel op on buffers with one "
                       "output");
  OpOperand *out = consumer.getDpsInitOperand(0);
  auto outType = dyn_cast<MemRefType>(out->get().getType());
  if (consumer.getMatchingIndexingMap(out) != identity || !outType ||
      outType.getShape() != tileType.getShape())
    return elementwise("does not write the tile's shape through the "
                       "identity map");
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    AffineMap map = consumer.getMatchingIndexingMap(input);
    if (input->get() == tile) {
      if (map != identity)
        return elementwise("reads the tile through a map other than the "
                           "identity");
      continue;
    }
    if (!isa<MemRefType>(input->get().getType()) ||
        !map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return elementwise("reads an input that is not a buffer through a "
                         "projected permutation");
  }
  // Inputs and the output are read (or written) four columns at a time: the
  // column loop, where used, must be the innermost, contiguous dimension.
  for (OpOperand &operand : consumer->getOpOperands()) {
    if (operand.get() == tile)
      continue;
    AffineMap map = consumer.getMatchingIndexingMap(&operand);
    auto type = cast<MemRefType>(operand.get().getType());
    bool usesColumns = map.isFunctionOfDim(1);
    bool alongColumns = map.getNumResults() &&
                        map.getResults().back() == getAffineDimExpr(1, ctx);
    if (usesColumns && (!alongColumns || !type.isLastDimUnitStride()))
      return reject(self, target, RefusalCode::not_contiguous,
                    tirx::irPath(consumer) + " accesses its operand " +
                        Twine(operand.getOperandNumber()) +
                        " along the columns other than as its contiguous "
                        "innermost dimension: the epilogue's accesses are "
                        "vectors of four along a row",
                    "interchange the consumer's loops or transpose the input");
  }
  for (Operation &op : consumer.getBody()->without_terminator()) {
    bool scalar = llvm::all_of(op.getResultTypes(), [](Type t) {
      return t.isIntOrFloat();
    });
    if (!scalar || op.getNumRegions() != 0 ||
        !(op.hasTrait<OpTrait::ConstantLike>() ||
          (op.hasTrait<OpTrait::Elementwise>() && isPure(&op) &&
           llvm::all_of(op.getOperandTypes(),
                        [](Type t) { return t.isIntOrFloat(); }))))
      return elementwise("computes " + op.getName().getStringRef() +
                         ", which is not a pure elementwise op on scalars");
  }
  return DiagnosedSilenceableFailure::success();
}
/// The tail tiles tile_to_blocks split off around the block's full
/// matmul: the outermost scf.if in `blocks` around `matmul`, when every
/// linalg op in it is `matmul` or a tail (tirx.tail) matmul on the same
/// buffers, and everything else in it an scf.if, its yield or free of
/// memory effects (index arithmetic, subviews).
scf::IfOp tailsAround(linalg::MatmulOp matmul, scf::ForallOp blocks) {
  scf::IfOp top;
  for (Operation *p = matmul->getParentOp(); p && p != blocks;
       p = p->getParentOp())
    if (auto i = dyn_cast<scf::IfOp>(p))
      top = i;
    else
      return {};
  if (!top || top->getParentOp() != blocks)
    return {};
  auto root = [](Value v) {
    auto subview = v.getDefiningOp<memref::SubViewOp>();
    return subview ? subview.getSource() : Value();
  };
  bool ok = true;
  unsigned tails = 0;
  top->walk([&](Operation *op) {
    if (op == top.getOperation() || op == matmul.getOperation() ||
        isa<scf::IfOp, scf::YieldOp>(op))
      return;
    if (auto tail = dyn_cast<linalg::MatmulOp>(op)) {
      bool same = tirx::isTail(tail);
      for (unsigned i = 0; i < 3 && same; ++i)
        same = root(tail->getOperand(i)) &&
               root(tail->getOperand(i)) == root(matmul->getOperand(i));
      ok &= same;
      ++tails;
      return;
    }
    ok &= isMemoryEffectFree(op) && op->getNumRegions() == 0;
  });
  // Only tile_to_blocks' tails (at least one tail matmul, C a subview of a
  // static buffer): a condition written by hand is not dropped.
  auto c = matmul.getDpsInitOperand(0)->get().getDefiningOp<memref::SubViewOp>();
  ok &= tails > 0 && c && c.getSourceType().hasStaticShape();
  return ok ? top : scf::IfOp();
}

/// A batch matmul's block tile as a matmul on 2-D views, for use_wgmma:
/// the ops made (to erase if use_wgmma refuses), the matmul and where its
/// tiles lie in the collapsed buffers.
struct BatchTile {
  SmallVector<Operation *> made;
  linalg::MatmulOp matmul;
  tirx::WgmmaSources sources;
};

/// The block tile of `batch` (C[b, M, N] += A[b, M, K] * B[b, K, N], its
/// own maps), one batch a block, as a matmul on views of 2-D buffers:
/// A (batch, M, K) collapsed to (batch * M, K), B (batch, K, N) to
/// (batch * K, N) and C (batch, M, N) to (batch * M, N), made in front of
/// `blocks`; the tile of batch b reads A's and writes C's rows from b * M
/// (plus the tile's row) and B's K rows from b * K
/// (tirx::WgmmaSources::rowK). A refusal when the tile is not one batch
/// of whole static buffers that a block tile of M x N, and TMA's K tiles,
/// divide (a tile past M, N or K would reach into the next batch).
DiagnosedSilenceableFailure
flattenBatchTile(TransformRewriter &rewriter, TransformOpInterface self,
                 linalg::BatchMatmulOp batch, scf::ForallOp blocks,
                 BatchTile &tile) {
  Operation *target = batch;
  const char *hint = "tile_to_blocks with tile sizes [1, 128, 128] (or [1, "
                     "128, 256]) on the batch matmul of whole buffers, then "
                     "use_wgmma";
  if (!batch.hasPureBufferSemantics() || batch.hasUserDefinedMaps())
    return reject(self, target, RefusalCode::not_applicable,
                  "the batch matmul is not on buffers with its own indexing "
                  "maps (A as (b, m, k), B as (b, k, n))",
                  "bufferize first; transpose a transposed operand into a "
                  "buffer of its own");
  // Each operand: a unit-stride subview, one batch of a static 3-D buffer
  // with the identity layout in global memory, defined before the blocks.
  SmallVector<memref::SubViewOp, 3> views;
  for (Value v : batch->getOperands()) {
    auto view = v.getDefiningOp<memref::SubViewOp>();
    MemRefType full = view ? view.getSourceType() : MemRefType();
    if (!view || !view.hasUnitStride() || !full.hasStaticShape() ||
        full.getRank() != 3 || !full.getLayout().isIdentity() ||
        full.getMemorySpace() ||
        blocks->isAncestor(view.getSource().getParentRegion()->getParentOp()) ||
        view.getType().getRank() != 3 || !view.getType().hasStaticShape() ||
        view.getType().getDimSize(0) != 1)
      return reject(self, target, RefusalCode::not_a_tile,
                    "an operand is not one batch (a tile of batch size 1) "
                    "of a static, contiguous 3-D buffer in global memory "
                    "defined before the blocks: TMA loads the tiles through "
                    "tensor maps made on the host",
                    hint);
    views.push_back(view);
  }
  OpFoldResult b = views[0].getMixedOffsets()[0];
  for (memref::SubViewOp view : views)
    if (!isEqualConstantIntOrValue(view.getMixedOffsets()[0], b))
      return reject(self, target, RefusalCode::not_a_tile,
                    "A, B and C are tiles of different batches", hint);
  MemRefType fullA = views[0].getSourceType(), fullB = views[1].getSourceType();
  int64_t m = fullA.getDimSize(1), k = fullA.getDimSize(2),
          n = fullB.getDimSize(2);
  // All of K: A's columns and B's rows from 0.
  for (auto [view, dim] : {std::pair{views[0], 2u}, std::pair{views[1], 1u}})
    if (!isConstantIntValue(view.getMixedOffsets()[dim], 0) ||
        view.getType().getDimSize(dim) != k)
      return reject(self, target, RefusalCode::not_a_tile,
                    "A or B is not a tile of all of K",
                    "apply use_wgmma right after tile_to_blocks, without "
                    "tile_reduction or promote_to_shared (use_wgmma stages "
                    "the tiles itself)");
  int64_t bm = views[2].getType().getDimSize(1),
          bn = views[2].getType().getDimSize(2);
  Type elem = fullA.getElementType();
  int64_t tileK = elem.isIntOrFloat() ? tirx::wgmmaTileK(elem) : 0;
  if (m % bm != 0 || n % bn != 0 || !tileK || k % tileK != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "the " + Twine(bm) + " x " + Twine(bn) + " block tile and "
                  "TMA's tiles of " + Twine(tileK) + " along K do not "
                  "divide M x N x K = " + Twine(m) + " x " + Twine(n) + " x " +
                      Twine(k) +
                      ": in a batch matmul a tile past them would read and "
                      "write the next batch",
                  "pick block tile sizes that divide M and N, or use use_mma "
                  "(K a multiple of " + Twine(tileK) + ")");

  llvm::scope_exit guard([&] {
    for (Operation *op : llvm::reverse(tile.made))
      rewriter.eraseOp(op);
    tile.made.clear();
  });
  Location loc = batch.getLoc();
  auto made = [&](Value v) {
    tile.made.push_back(v.getDefiningOp());
    return v;
  };
  // The 2-D views of the whole buffers, before the blocks.
  rewriter.setInsertionPoint(blocks);
  SmallVector<Value, 3> flat;
  for (memref::SubViewOp view : views)
    flat.push_back(made(memref::CollapseShapeOp::create(
        rewriter, loc, view.getSource(),
        ArrayRef<ReassociationIndices>{{0, 1}, {2}})));
  // The tiles, where the batch matmul is.
  rewriter.setInsertionPoint(batch);
  MLIRContext *ctx = batch.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx);
  auto rowOf = [&](int64_t rows, OpFoldResult within) -> OpFoldResult {
    OpFoldResult r = affine::makeComposedFoldedAffineApply(
        rewriter, loc, d0 * rows + d1, {b, within});
    // Only an op made here (nothing uses it yet) is ours to erase: a
    // folded row may be a value the payload already had.
    if (auto v = dyn_cast<Value>(r); v && v.getDefiningOp() && v.use_empty() &&
                                     !llvm::is_contained(tile.made,
                                                         v.getDefiningOp()))
      tile.made.push_back(v.getDefiningOp());
    return r;
  };
  OpFoldResult rowA = rowOf(m, views[0].getMixedOffsets()[1]);
  OpFoldResult rowK = rowOf(k, rewriter.getIndexAttr(0));
  OpFoldResult rowC = rowOf(m, views[2].getMixedOffsets()[1]);
  OpFoldResult colB = views[1].getMixedOffsets()[2];
  OpFoldResult colC = views[2].getMixedOffsets()[2];
  auto sub = [&](Value full, OpFoldResult row, OpFoldResult col, int64_t rows,
                 int64_t cols) {
    SmallVector<OpFoldResult> one(2, rewriter.getIndexAttr(1));
    return made(memref::SubViewOp::create(
        rewriter, loc, full, ArrayRef<OpFoldResult>{row, col},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rows),
                               rewriter.getIndexAttr(cols)},
        one));
  };
  Value a = sub(flat[0], rowA, rewriter.getIndexAttr(0), bm, k);
  Value bTile = sub(flat[1], rowK, colB, k, bn);
  Value c = sub(flat[2], rowC, colC, bm, bn);
  tile.matmul = linalg::MatmulOp::create(rewriter, loc, ValueRange{a, bTile},
                                         ValueRange{c});
  tile.made.push_back(tile.matmul);
  tile.sources.a = flat[0];
  tile.sources.b = flat[1];
  tile.sources.rowA = rowA;
  tile.sources.colB = colB;
  tile.sources.rowK = rowK;
  guard.release();
  return DiagnosedSilenceableFailure::success();
}

/// Moves `op` and what it uses from inside `top` to just before `top`
/// (all of it free of memory effects: index arithmetic and subviews).
void hoistBefore(RewriterBase &rewriter, Operation *op, scf::IfOp top) {
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && top->isProperAncestor(def))
      hoistBefore(rewriter, def, top);
  rewriter.moveOpBefore(op, top);
}
} // namespace

LogicalResult tirx::UseWgmmaOp::verify() {
  if (getStages() < 2 || getStages() > 8)
    return detail::invalidParameter(
        *this, "stages must lie in [2, 8], got " + Twine(getStages()));
  if (getWarpgroups() < 1 || getWarpgroups() > 2)
    return detail::invalidParameter(
        *this, "warpgroups must be 1 or 2, got " + Twine(getWarpgroups()));
  return success();
}

DiagnosedSilenceableFailure
tirx::UseWgmmaOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                             ApplyToEachResultList &results,
                             TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto batch = dyn_cast<linalg::BatchMatmulOp>(target);
  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!(batch || (matmul && matmul.hasPureBufferSemantics())))
    return wrongTarget(self, target,
                       "a linalg.matmul or linalg.batch_matmul on buffers");
  // B as (n, k) (nn.Linear's x W^T) is K-major, as wgmma reads it without a
  // transpose; A must be (m, k). (A batch matmul's own maps: (b, m, k) and
  // (b, k, n), checked with its tiles.)
  tirx::MmaLayout layout;
  if (matmul) {
    std::string why;
    FailureOr<tirx::MmaLayout> found = tirx::mmaLayout(matmul, why);
    if (failed(found) || found->transposeA)
      return reject(self, target, RefusalCode::not_applicable,
                    (failed(found) ? why
                                   : std::string("A is read as (k, m)")) +
                        "; use_wgmma takes C[m, n] += A[m, k] * B[k, n] with "
                        "A as (m, k) and B as (k, n) or (n, k)",
                    failed(found)
                        ? "copy the broadcast operand into a full buffer first"
                        : "transpose A first (a linalg.transpose into an "
                          "(m, k) buffer)");
    layout = *found;
  }
  scf::ForallOp blocks;
  for (Operation *p = target->getParentOp(); p; p = p->getParentOp())
    if (auto forall = dyn_cast<scf::ForallOp>(p);
        forall && mapsTo(forall, MappingKind::Block))
      blocks = forall;
  if (!blocks)
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: "
                  "wgmma computes a block's tile of C",
                  "apply tile_to_blocks first (tile sizes [128, 128], say)");
  if (insideMapping(target, MappingKind::Thread) ||
      insideMapping(target, MappingKind::Warp))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads or warps; "
                  "wgmma is executed by whole warpgroups",
                  "apply use_wgmma right after tile_to_blocks");
  // A batch matmul's tile (one batch a block) becomes a matmul on 2-D
  // views of its buffers; if use_wgmma then refuses, they go again.
  BatchTile batchTile;
  // The fill that starts C, found before the 2-D views (which use C's
  // buffer) stand between it and the blocks.
  SmallVector<linalg::FillOp, 2> fills =
      tirx::startFills(cast<linalg::LinalgOp>(target));
  llvm::scope_exit undo([&] {
    for (Operation *op : llvm::reverse(batchTile.made))
      rewriter.eraseOp(op);
  });
  if (batch) {
    if (DiagnosedSilenceableFailure flat =
            flattenBatchTile(rewriter, self, batch, blocks, batchTile);
        !flat.succeeded())
      return flat;
    matmul = batchTile.matmul;
  }
  const bool kMajorB = layout.transposeB;
  if (tirx::isTail(target))
    return reject(self, target, RefusalCode::not_divisible,
                  "the target is a tail tile tile_to_blocks split off: "
                  "use_wgmma computes the tails with the full tile's "
                  "schedule",
                  "apply use_wgmma to the full tile's matmul (the first "
                  "linalg.matmul, target index 0), or to all of them");

  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape())
      return reject(self, target, RefusalCode::unsupported_type,
                    "an operand is not a static memref",
                    "tile the op with tile_to_blocks so that its operands "
                    "are static tiles");
  }
  std::optional<WgmmaSources> sources =
      batch ? std::optional(batchTile.sources)
            : findWgmmaSources(matmul, blocks, kMajorB);
  if (!sources)
    return reject(self, target, RefusalCode::not_a_tile,
                  "A and B are not tiles (unit-stride subviews taking all "
                  "of K) of static, contiguous global buffers defined "
                  "before the blocks: TMA loads them through tensor maps "
                  "made on the host",
                  "apply use_wgmma right after tile_to_blocks, without "
                  "tile_reduction or promote_to_shared (use_wgmma stages "
                  "the tiles itself)");
  Type elemA = cast<MemRefType>(a.getType()).getElementType();
  Type elemB = cast<MemRefType>(b.getType()).getElementType();
  Type elemC = cast<MemRefType>(c.getType()).getElementType();
  // The sums are f32; an f16 C (torch's f16 matmul) gets them rounded
  // once, as cuBLAS rounds its f32 accumulators. (A bf16 C is not taken:
  // the reference sums in bf16, whose drift over K terms, about
  // 2^-8 sqrt(K / 2) of the RMS, is more than the check could allow.)
  if (elemA != elemB ||
      !(elemA.isF16() || elemA.isBF16() || elemA.isF32()) ||
      !(elemC.isF32() || (elemC.isF16() && elemA.isF16()))) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "A, B and C are " << elemA << ", " << elemB << " and " << elemC
       << "; use_wgmma takes f16, bf16 or f32 (as tf32) A and B (alike) "
          "summed in f32 into an f32 C (or an f16 C of f16 A and B)";
    return reject(self, target, RefusalCode::unsupported_type, text,
                  "use use_mma for other types");
  }
  // wgmma transposes 16-bit operands only (PTX ISA, wgmma.mma_async:
  // imm-trans-a/b for .f16 and .bf16): an f32 B held as (k, n) is computed
  // as C^T = B^T A^T, B^T from registers (where wgmma takes any layout),
  // A K-major as wgmma's B. Its warpgroups split C's columns, 64 or more
  // each.
  const bool swapped = elemA.isF32() && !kMajorB;
  if (swapped && batch)
    return reject(self, target, RefusalCode::unsupported_type,
                  "an f32 batch matmul: wgmma takes 32-bit operands K-major "
                  "only, and its transposed product (C^T = B^T A^T, B^T from "
                  "registers) takes a linalg.matmul only",
                  "use use_mma, or f16 or bf16 operands");
  const int64_t elemBytes = elemA.getIntOrFloatBitWidth() / 8;

  ArrayRef<int64_t> shapeC = cast<MemRefType>(c.getType()).getShape();
  int64_t bm = shapeC[0], bn = shapeC[1];
  int64_t groups = getWarpgroups(), stages = getStages();
  // The swapped product's rows of C are wgmma's N, shared by the
  // warpgroups (8 to 256, a multiple of 8); otherwise they are wgmma's M,
  // 64 a warpgroup.
  bool rowsFit = swapped ? bm % 8 == 0 && bm <= 256
                 : groups == 1 ? (bm == kWgmmaM || bm == 2 * kWgmmaM)
                               : bm == groups * kWgmmaM;
  if (!rowsFit)
    return reject(
        self, target, RefusalCode::bad_block_size,
        "the block tile has " + Twine(bm) + " rows; " +
            (swapped ? Twine("f32 with B as (k, n) takes a multiple of 8 up "
                             "to 256 (C^T = B^T A^T: C's rows are wgmma's N)")
                     : Twine(groups) + " warpgroup(s) of wgmma (64 rows each) "
                                       "take " +
                           (groups == 1 ? Twine("64 or 128")
                                        : Twine(groups * 64))),
        swapped ? "tile_to_blocks with tile sizes [256, 128] or [128, 256] "
                  "(with warpgroups 2), or [128, 128]"
                : "tile_to_blocks with tile sizes [128, 128] (or [64, ...])");
  if (bn % kWgmmaTileK != 0 || bn > 256 ||
      (swapped && bn % (groups * kWgmmaM) != 0))
    return reject(self, target, RefusalCode::bad_block_size,
                  "the block tile has " + Twine(bn) +
                      " columns; use_wgmma takes 64, 128, 192 or 256 " +
                      (kMajorB ? Twine("(wgmma takes N <= 256)")
                       : swapped
                           ? Twine("(f32 with B as (k, n): each warpgroup "
                                   "computes 64, 128, 192 or 256 of them, "
                                   "wgmma's M is C's columns)")
                           : Twine("(B arrives in 64-column boxes, "
                                   "wgmma takes N <= 256)")),
                  "tile_to_blocks with tile sizes [128, 128] or [128, 256]");
  auto fullA = cast<MemRefType>(sources->a.getType());
  auto fullB = cast<MemRefType>(sources->b.getType());
  int64_t m = fullA.getDimSize(0), k = fullA.getDimSize(1),
          n = fullB.getDimSize(kMajorB ? 0 : 1);
  // Tail tiles: the full tile's schedule computes them too (TMA fills
  // what lies past M and N with zeros), its stores guarded.
  scf::IfOp tails;
  if (m % bm != 0 || n % bn != 0) {
    tails = tailsAround(matmul, blocks);
    if (!tails || inSharedMemory(c.getType()))
      return reject(self, target, RefusalCode::not_divisible,
                    "the " + Twine(bm) + " x " + Twine(bn) +
                        " block tile does not divide M x N = " + Twine(m) +
                        " x " + Twine(n) +
                        (inSharedMemory(c.getType())
                             ? Twine(": the epilogue takes whole tiles only")
                             : Twine(", and the tail tiles are not those "
                                     "tile_to_blocks split off (matmuls on "
                                     "the same buffers)")),
                    "pick block tile sizes that divide M and N");
    // The guarded stores write C four columns at a time.
    if (kMajorB && n % 4 != 0)
      return reject(self, target, RefusalCode::not_divisible,
                    "N = " + Twine(n) + " is not a multiple of 4: the tail "
                    "blocks store C four columns at a time");
    if (!kMajorB && n % (16 / elemBytes) != 0)
      return reject(self, target, RefusalCode::not_divisible,
                    "N = " + Twine(n) + " is not a multiple of " +
                        Twine(16 / elemBytes) + ": the rows of B (" +
                        Twine(n * elemBytes) +
                        " bytes) are not a multiple of 16 bytes, which "
                        "TMA's tensor maps need");
  }
  // A tensor map's rows are a multiple of 16 bytes (cuTensorMapEncodeTiled):
  // A's (and a K-major B's) are K elements. A last tile of K shorter than a
  // staged row is zero-filled by TMA.
  const int64_t kAlign = 16 / elemBytes;
  if (k % kAlign != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "K = " + Twine(k) + " is not a multiple of " +
                      Twine(kAlign) + ": the rows of A (" +
                      Twine(k * elemBytes) +
                      " bytes) are not a multiple of 16 bytes, which TMA's "
                      "tensor maps need",
                  "pad K to a multiple of " + Twine(kAlign) +
                      " (zeros in A and B), or use use_mma");
  if (bm * bn / (128 * groups) > kMaxSumsPerThread)
    return reject(self, target, RefusalCode::too_wide,
                  "each thread would hold " + Twine(bm * bn / (128 * groups)) +
                      " f32 sums, more than " + Twine(kMaxSumsPerThread) +
                      " (wgmma's accumulators live in registers)",
                  groups == 1 && (bm == 128 || swapped)
                      ? "use warpgroups 2"
                      : "use a smaller block tile");
  int64_t bytes = wgmmaSharedBytes(bm, bn, stages);
  if (bytes > kMaxSharedBytes) {
    int64_t fit = 0;
    for (int64_t s = 2; s < stages; ++s)
      if (wgmmaSharedBytes(bm, bn, s) <= kMaxSharedBytes)
        fit = s;
    return reject(self, target, RefusalCode::exceeds_smem,
                  Twine(stages) + " stages take " + Twine(bytes) +
                      " bytes of shared memory, more than " +
                      Twine(kMaxSharedBytes),
                  fit ? "try " + Twine(fit) + " stages"
                      : Twine("use a smaller block tile"));
  }
  // C in shared memory: fuse_into's tile, whose consumer the epilogue
  // computes.
  UseWgmmaOptions options{stages, groups, std::nullopt, bool(tails)};
  if (inSharedMemory(c.getType())) {
    tirx::WgmmaEpilogue epilogue;
    if (DiagnosedSilenceableFailure found = findEpilogue(self, matmul, epilogue);
        !found.succeeded())
      return found;
    options.epilogue = epilogue;
  }
  // C (global) started by a fill of its whole buffer that the blocks' tiles
  // cover once each and nothing else reads: the blocks store the fill's
  // value plus the sums, C is never read, and the fill (a kernel of its
  // own) goes.
  linalg::FillOp startFill;
  if (!options.epilogue && !tails) {
    if (fills.size() == 1) {
      startFill = fills.front();
      options.start = startFill.getInputs().front();
    }
  }
  if (tails) {
    // Every block runs the full tile's schedule: it leaves the branches,
    // and the tail matmuls go (in this op's handle they become null and
    // are skipped).
    hoistBefore(rewriter, matmul, tails);
    Operation *condition = tails.getCondition().getDefiningOp();
    rewriter.eraseOp(tails);
    if (condition && condition->use_empty() && isMemoryEffectFree(condition))
      rewriter.eraseOp(condition);
  }
  FailureOr<scf::ForallOp> forall =
      useWgmma(rewriter, matmul, blocks, *sources, options);
  if (failed(forall))
    return reject(self, target, RefusalCode::not_applicable,
                  "the matmul could not be rewritten");
  undo.release();
  if (startFill)
    rewriter.eraseOp(startFill);
  if (batch) {
    // The batch matmul and its 3-D tiles, replaced by the 2-D ones.
    SmallVector<Value, 3> views(batch->getOperands());
    rewriter.eraseOp(batch);
    for (Value v : views)
      if (Operation *view = v.getDefiningOp(); view && view->use_empty())
        rewriter.eraseOp(view);
  }
  results.push_back(*forall);
  return DiagnosedSilenceableFailure::success();
}
