//===- ReduceInBlock.cpp - reduce_in_block ----------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The preconditions of reduce_in_block; the rewrite is tirx::reduceInBlock.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

LogicalResult tirx::ReduceInBlockOp::verify() {
  int64_t threads = static_cast<int64_t>(getThreads());
  if (threads < 32 || threads > 1024 || (threads & (threads - 1)))
    return detail::invalidParameter(*this, "threads must be a power of "
                            "two in [32, 1024], got " + Twine(threads));
  return success();
}

namespace {
/// The reduction's shape: static loops and output, no linalg.index, an
/// output indexed by the parallel loops alone.
DiagnosedSilenceableFailure checkShape(TransformOpInterface self,
                                       linalg::LinalgOp op) {
  Operation *target = op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A row of run-time length: the tree needs its static extent.
  if (DiagnosedSilenceableFailure check = requireStaticLoops(self, target);
      !check.succeeded())
    return check;
  auto outType = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  auto lastType = dyn_cast<MemRefType>(
      op.getDpsInitOperand(op.getNumDpsInits() - 1)->get().getType());
  if (!outType || !outType.hasStaticShape() || !lastType ||
      !lastType.hasStaticShape() ||
      llvm::any_of(ranges, ShapedType::isDynamic) ||
      !outType.getElementType().isIntOrFloat())
    return reject(self, target, RefusalCode::not_applicable,
                  "the op's loops or output are not static");
  bool usesIndex = false;
  op.getBlock()->walk([&](linalg::IndexOp) { usesIndex = true; });
  // An argmax reads the reduction's position: matchIndexReduction took it.
  if (usesIndex && op.getNumDpsInits() == 1)
    return reject(self, target, RefusalCode::not_applicable,
                  "the body reads its loop indices (linalg.index)");
  // Each output element is one tuple of the parallel loops: the output map
  // lists them (in any order), nothing else.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != op.getNumParallelLoops())
    return reject(self, target, RefusalCode::not_applicable,
                  "the output is not indexed by the parallel loops alone");
  return DiagnosedSilenceableFailure::success();
}

/// A thread per output in the last step; the partials in shared memory.
DiagnosedSilenceableFailure checkResources(TransformOpInterface self,
                                           linalg::LinalgOp op,
                                           int64_t threads,
                                           int64_t maxSharedBytes,
                                           std::optional<tirx::IndexReduction> indexed) {
  auto outType = cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  int64_t outputs = outType.getNumElements();
  // A value and its index: a slot per warp or thread in each of two arrays.
  int64_t indexBytes = 0;
  bool shuffles = tirx::reduceInBlockUsesShuffles(outType.getElementType());
  if (op.getNumDpsInits() == 2) {
    Type index = getElementTypeOrSelf(op.getDpsInitOperand(1)->get().getType());
    indexBytes = index.isIndex()
                     ? 8
                     : std::max<int64_t>(1, index.getIntOrFloatBitWidth() / 8);
    shuffles = indexed && tirx::reduceIndexInBlockUsesShuffles(
                              outType.getElementType(), index,
                              op.getStaticLoopRanges()[indexed->loop]);
  }
  if (outputs > threads)
    return reject(self, op, RefusalCode::too_many_outputs,
                  Twine(outputs) + " outputs for " + Twine(threads) +
                      " threads: the last step gives each output a thread",
                  "use smaller block tiles");
  int64_t elementBytes =
      llvm::divideCeil(outType.getElementTypeBitWidth(), 8);
  // Shuffles leave a slot per warp; the tree a slot per thread; outputs
  // spread over the threads a slot per thread in all.
  int64_t slots = shuffles ? threads / 32 : threads;
  int64_t bytes =
      !indexed && tirx::reduceInBlockByOutputs(op, threads)
          ? threads * elementBytes
          : outputs * slots * (elementBytes + indexBytes);
  if (bytes > maxSharedBytes)
    return reject(self, op, RefusalCode::exceeds_smem,
                  "the partial results need " + Twine(bytes) +
                      " bytes of shared memory; a block has " +
                      Twine(maxSharedBytes),
                  "use fewer threads or smaller block tiles");
  return DiagnosedSilenceableFailure::success();
}
} // namespace

DiagnosedSilenceableFailure
tirx::ReduceInBlockOp::applyToOne(TransformRewriter &rewriter,
                                  Operation *target,
                                  ApplyToEachResultList &results,
                                  TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto op = dyn_cast<linalg::LinalgOp>(target);
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() < 1 ||
      op.getNumDpsInits() > 2)
    return wrongTarget(self, target, "a linalg op on buffers with one output");
  if (!insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks: the "
                  "threads that share the reduction are a block's",
                  "apply tile_to_blocks (or fuse_into a block loop) first");
  if (insideMapping(target, MappingKind::Thread))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already split among threads",
                  "apply reduce_in_block instead of tile_to_threads");
  // Two outputs: a value and its index (an argmax), or nothing.
  std::optional<IndexReduction> indexed;
  if (op.getNumDpsInits() == 2) {
    SmallVector<unsigned> reductions;
    op.getReductionDims(reductions);
    if (reductions.empty())
      return reject(self, target, RefusalCode::not_reduction,
                    "the op has no reduction loop");
    indexed = matchIndexReduction(op);
    if (!indexed)
      return reject(
          self, target, RefusalCode::unknown_combiner,
          "the body's two outputs are not a value and its index (cmpf "
          "ogt or olt of the input and the value, then selects of the "
          "input and of linalg.index of the reduction loop)",
          "reduce_in_block takes one output combined by add, mul, max, min, "
          "and, or, xor, or the pair of an argmax or argmin");
    // The first-index rule compares positions: the index type must hold
    // every position of the reduction, or they wrap and compare wrong.
    Type index = getElementTypeOrSelf(op.getDpsInitOperand(1)->get().getType());
    int64_t extent = op.getStaticLoopRanges()[indexed->loop];
    if (index.isSignlessInteger() && !ShapedType::isDynamic(extent) &&
        index.getIntOrFloatBitWidth() < 64 &&
        extent - 1 > (int64_t(1) << (index.getIntOrFloatBitWidth() - 1)) - 1)
      return reject(self, target, RefusalCode::not_applicable,
                    "the index output's type i" +
                        Twine(index.getIntOrFloatBitWidth()) +
                        " cannot hold the reduction's positions 0 to " +
                        Twine(extent - 1) +
                        ": they would wrap, and the first of equal extremes "
                        "would be chosen among wrapped positions",
                    "use a wider index type (i32, i64 or index)");
  } else {
    unsigned k;
    Operation *combiner;
    if (DiagnosedSilenceableFailure check =
            matchSingleReduction(self, op, "reduce_in_block", k, combiner);
        !check.succeeded())
      return check;
  }
  if (DiagnosedSilenceableFailure check = checkShape(self, op);
      !check.succeeded())
    return check;
  int64_t threads = static_cast<int64_t>(getThreads());
  if (DiagnosedSilenceableFailure check = checkResources(
          self, op, threads, static_cast<int64_t>(getMaxSharedBytes()),
          indexed);
      !check.succeeded())
    return check;
  // A fill that only starts the outputs' tiles is taken over: each block
  // starts its own from the fill's value, one kernel less.
  ReduceInBlockOptions options{threads, {}};
  SmallVector<linalg::FillOp, 2> fills = startFills(op);
  for (linalg::FillOp fill : fills)
    options.starts.push_back(fill.getInputs().front());
  FailureOr<scf::ForallOp> first =
      indexed ? tirx::reduceIndexInBlock(rewriter, op, *indexed, options)
              : tirx::reduceInBlock(rewriter, op, options);
  if (failed(first))
    return reject(self, target, RefusalCode::not_applicable,
                  "the reduction could not be rewritten");
  for (linalg::FillOp fill : fills)
    rewriter.eraseOp(fill);
  results.push_back(*first);
  return DiagnosedSilenceableFailure::success();
}
