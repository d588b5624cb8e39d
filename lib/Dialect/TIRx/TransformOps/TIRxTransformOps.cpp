//===- TIRxTransformOps.cpp - legal transforms ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Every op checks, then rewrites. Preconditions are checked on the payload
// before anything changes, so a refusal leaves the payload as it was.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"
#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/GPU/TransformOps/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::transform;

#define GET_OP_CLASSES
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.cpp.inc"

namespace {
class TIRxTransformExtension
    : public TransformDialectExtension<TIRxTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TIRxTransformExtension)
  using Base::Base;
  void init() {
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<mlir::gpu::GPUDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.cpp.inc"
        >();
  }
};

template <typename... OpTs> std::vector<tirx::ActionInfo> infosOf() {
  return {tirx::ActionInfo{OpTs::getActionName().str(),
                           OpTs::getActionTarget().str(),
                           OpTs::getActionSchema().str()}...};
}

/// A refusal: "<code>: <message>", a note on the payload op, a hint.
DiagnosedSilenceableFailure reject(TransformOpInterface op, Operation *target,
                                   StringRef code, const Twine &message,
                                   const Twine &hint = "") {
  DiagnosedSilenceableFailure diag = op.emitSilenceableError()
                                     << code << ": " << message;
  diag.attachNote(target->getLoc()) << "payload op: " << tirx::irPath(target);
  if (!hint.isTriviallyEmpty())
    diag.attachNote(op->getLoc()) << "hint: " << hint;
  return diag;
}

/// The refusal of a payload op of the wrong kind: "the target is X, not
/// <expected>".
DiagnosedSilenceableFailure wrongTarget(TransformOpInterface op,
                                        Operation *target,
                                        StringRef expected) {
  return reject(op, target, "not_applicable",
                "the target is " + target->getName().getStringRef() +
                    ", not " + expected);
}

/// A copy into or out of shared memory, fenced by barriers, as a
/// linalg.copy: the lowering turns it into loops (upstream's memref.copy
/// would call a host runtime function from device code).
LogicalResult copyThroughBarriers(OpBuilder &b, Value src, Value dst) {
  Location loc = src.getLoc();
  mlir::gpu::BarrierOp::create(b, loc);
  linalg::CopyOp::create(b, loc, src, dst);
  mlir::gpu::BarrierOp::create(b, loc);
  return success();
}

/// "try 2, 4 or 8"; "" for no options.
std::string tryHint(std::vector<std::string> options) {
  if (options.empty())
    return "";
  std::string last = options.back();
  options.pop_back();
  return "try " + (options.empty() ? last : llvm::join(options, ", ") + " or " + last);
}

/// Sizes near `bad` that divide `extent`, for a hint: "try 2 or 4".
std::string divisorsHint(int64_t extent, int64_t bad, int64_t limit,
                         bool powersOfTwo) {
  std::vector<std::string> options;
  // A vector width of 1 is no vector: start at 2 for widths.
  for (int64_t d = powersOfTwo ? 2 : 1; d <= std::min(extent, limit); ++d) {
    if (extent % d != 0 || (powersOfTwo && (d & (d - 1))))
      continue;
    if (d * 8 < bad || d > bad * 8)
      continue;
    options.push_back(std::to_string(d));
  }
  return tryHint(std::move(options));
}

/// The mapping of an enclosing forall ("block", "thread") or "".
bool insideMapping(Operation *op, StringRef kind) {
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>())
    if (auto mapping = forall.getMapping())
      for (Attribute a : *mapping)
        if ((kind == "block" && isa<mlir::gpu::GPUBlockMappingAttr>(a)) ||
            (kind == "thread" && isa<mlir::gpu::GPUThreadMappingAttr>(a)))
          return true;
  if (kind == "block" && op->getParentOfType<mlir::gpu::LaunchOp>())
    return true;
  return false;
}

/// GPU mapping attributes for `count` tiled loops: innermost -> x.
SmallVector<Attribute> mappingFor(MLIRContext *ctx, unsigned count,
                                  bool threads) {
  SmallVector<Attribute> mapping;
  mlir::gpu::MappingId ids[] = {mlir::gpu::MappingId::DimZ, mlir::gpu::MappingId::DimY,
                          mlir::gpu::MappingId::DimX};
  for (unsigned i = 0; i < count; ++i) {
    mlir::gpu::MappingId id = ids[3 - count + i];
    if (threads)
      mapping.push_back(mlir::gpu::GPUThreadMappingAttr::get(ctx, id));
    else
      mapping.push_back(mlir::gpu::GPUBlockMappingAttr::get(ctx, id));
  }
  return mapping;
}

/// Tiles `target` into a forall with `sizes` (0: untiled) mapped to blocks
/// or threads; returns the tiled op and the forall.
FailureOr<std::pair<Operation *, Operation *>>
tileToForall(RewriterBase &rewriter, TilingInterface target,
             ArrayRef<int64_t> sizes, bool threads) {
  unsigned tiled = llvm::count_if(sizes, [](int64_t s) { return s != 0; });
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  options.setMapping(mappingFor(rewriter.getContext(), tiled, threads));
  rewriter.setInsertionPoint(target);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, target, options);
  if (failed(result) || result->loops.empty())
    return failure();
  if (target->getNumResults())
    rewriter.replaceOp(target, result->replacements);
  else
    rewriter.eraseOp(target);
  // Zero-based, unit-step loops: what the GPU mapping expects.
  auto forall = cast<scf::ForallOp>(result->loops.front().getOperation());
  FailureOr<scf::ForallOp> normalized = mlir::normalizeForallOp(rewriter, forall);
  if (failed(normalized))
    return failure();
  return std::make_pair(result->tiledOps.front(), normalized->getOperation());
}

/// Shared checks of the tiling ops: a linalg op, parallel tiled loops,
/// sizes dividing static extents.
DiagnosedSilenceableFailure checkTiling(TransformOpInterface op,
                                        Operation *target,
                                        ArrayRef<int64_t> sizes,
                                        StringRef what) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return wrongTarget(op, target, "a linalg op");
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  if (sizes.size() > ranges.size())
    return reject(op, target, "invalid_parameter",
                  Twine(sizes.size()) + " " + what + " for an op with " +
                      Twine(ranges.size()) + " loops");
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size == 0)
      continue;
    if (iterators[i] != utils::IteratorType::parallel)
      return reject(op, target, "not_parallel",
                    "loop " + Twine(i) + " is a reduction; only parallel "
                    "loops map to blocks and threads",
                    "tile the reduction with tile_reduction instead");
    if (!ShapedType::isDynamic(ranges[i]) && ranges[i] % size != 0)
      return reject(op, target, "not_divisible",
                    Twine(what) + " " + Twine(size) +
                        " does not divide the extent " + Twine(ranges[i]) +
                        " of loop " + Twine(i),
                    divisorsHint(ranges[i], size, 1 << 30, false));
  }
  return DiagnosedSilenceableFailure::success();
}
} // namespace

void mlir::tirx::registerTransformDialectExtension(DialectRegistry &registry) {
  registry.addExtensions<TIRxTransformExtension>();
}

std::vector<mlir::tirx::ActionInfo> mlir::tirx::actionInfos() {
  return infosOf<
#define GET_OP_LIST
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// tile_to_blocks
//===----------------------------------------------------------------------===//

LogicalResult tirx::TileToBlocksOp::verify() {
  if (getTileSizes().empty() || getTileSizes().size() > 3)
    return emitOpError() << "invalid_parameter: give 1 to 3 tile sizes";
  if (llvm::any_of(getTileSizes(), [](int64_t s) { return s < 0; }) ||
      llvm::all_of(getTileSizes(), [](int64_t s) { return s == 0; }))
    return emitOpError() << "invalid_parameter: tile sizes must be "
                            "non-negative with at least one positive";
  return success();
}

DiagnosedSilenceableFailure tirx::TileToBlocksOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  if (insideMapping(target, "block"))
    return reject(self, target, "bad_order",
                  "the target is already inside a block mapping");
  DiagnosedSilenceableFailure check =
      checkTiling(self, target, getTileSizes(), "tile size");
  if (!check.succeeded())
    return check;
  auto tiled = tileToForall(rewriter, cast<TilingInterface>(target),
                            getTileSizes(), /*threads=*/false);
  if (failed(tiled))
    return reject(self, target, "not_applicable", "tiling failed");
  results.push_back(tiled->first);
  results.push_back(tiled->second);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// tile_to_threads
//===----------------------------------------------------------------------===//

LogicalResult tirx::TileToThreadsOp::verify() {
  if (getElementsPerThread().empty() || getElementsPerThread().size() > 3)
    return emitOpError() << "invalid_parameter: give 1 to 3 counts";
  if (llvm::any_of(getElementsPerThread(), [](int64_t s) { return s < 0; }) ||
      llvm::all_of(getElementsPerThread(), [](int64_t s) { return s == 0; }))
    return emitOpError() << "invalid_parameter: elements per thread must be "
                            "non-negative with at least one positive";
  if (getMaxThreads() < 32 || getMaxThreads() > 1024)
    return emitOpError() << "invalid_parameter: max_threads must lie in "
                            "[32, 1024], got "
                         << getMaxThreads();
  return success();
}

DiagnosedSilenceableFailure tirx::TileToThreadsOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  if (!insideMapping(target, "block"))
    return reject(self, target, "bad_order",
                  "the target is not inside a forall mapped to blocks",
                  "apply tile_to_blocks first");
  if (insideMapping(target, "thread"))
    return reject(self, target, "bad_order",
                  "the target is already mapped to threads");
  ArrayRef<int64_t> elements = getElementsPerThread();
  DiagnosedSilenceableFailure check =
      checkTiling(self, target, elements, "elements per thread");
  if (!check.succeeded())
    return check;
  SmallVector<int64_t> ranges =
      cast<linalg::LinalgOp>(target).getStaticLoopRanges();
  int64_t threads = 1;
  for (auto [i, e] : llvm::enumerate(elements)) {
    if (e == 0)
      continue;
    if (ShapedType::isDynamic(ranges[i]))
      return reject(self, target, "not_applicable",
                    "loop " + Twine(i) + " has no static extent in the block");
    threads *= ranges[i] / e;
  }
  int64_t maxThreads = getMaxThreads();
  if (threads % 32 != 0 || threads > maxThreads) {
    int64_t tile = 1;
    for (auto [i, e] : llvm::enumerate(elements))
      if (e)
        tile *= ranges[i];
    std::vector<std::string> options;
    for (int64_t e = 1; e <= tile; e *= 2)
      if (tile % e == 0 && (tile / e) % 32 == 0 && tile / e <= maxThreads)
        options.push_back(std::to_string(e));
    return reject(self, target, "bad_block_size",
                  Twine(threads) + " threads per block: a block needs a "
                  "multiple of 32 threads and at most " +
                      Twine(maxThreads),
                  options.empty()
                      ? "change the block's tile size"
                      : "elements per thread giving a legal block: " +
                            llvm::join(options, ", "));
  }
  auto tiled = tileToForall(rewriter, cast<TilingInterface>(target), elements,
                            /*threads=*/true);
  if (failed(tiled))
    return reject(self, target, "not_applicable", "tiling failed");
  results.push_back(tiled->first);
  results.push_back(tiled->second);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// vectorize
//===----------------------------------------------------------------------===//

LogicalResult tirx::VectorizeOp::verify() {
  int64_t w = getWidth();
  if (w < 1 || w > 16 || (w & (w - 1)))
    return emitOpError() << "invalid_parameter: width must be 1, 2, 4, 8 or "
                            "16, got "
                         << w;
  return success();
}

DiagnosedSilenceableFailure
tirx::VectorizeOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                              ApplyToEachResultList &results,
                              TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return wrongTarget(self, target, "a linalg op");
  if (!insideMapping(target, "thread"))
    return reject(self, target, "bad_order",
                  "vectorize only after thread mapping: the target is not "
                  "inside a forall mapped to threads",
                  "apply tile_to_threads first");
  if (linalgOp.getNumReductionLoops() != 0)
    return reject(self, target, "not_applicable",
                  "the op has reduction loops");
  unsigned loops = linalgOp.getNumLoops();
  if (loops == 0)
    return reject(self, target, "not_applicable", "the op has no loops");
  unsigned inner = loops - 1;
  int64_t width = getWidth();
  // The innermost loop must be the contiguous axis of every operand.
  unsigned maxElementBytes = 1;
  for (OpOperand &operand : linalgOp->getOpOperands()) {
    auto memref = dyn_cast<MemRefType>(operand.get().getType());
    if (!memref)
      continue; // scalars are broadcast
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    std::string name = "operand #" + std::to_string(operand.getOperandNumber());
    if (map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(inner, getContext()))
      return reject(self, target, "not_contiguous",
                    "the innermost loop is not the last index of " + name,
                    "interchange the loops so that the contiguous axis is "
                    "innermost");
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return reject(self, target, "not_contiguous",
                    name + " is not contiguous in its last dimension");
    if (memref.getElementType().isIntOrFloat())
      maxElementBytes = std::max(
          maxElementBytes, memref.getElementType().getIntOrFloatBitWidth() / 8);
  }
  if (width * maxElementBytes > 16)
    return reject(self, target, "too_wide",
                  "width " + Twine(width) + " of " + Twine(maxElementBytes) +
                      "-byte elements is " + Twine(width * maxElementBytes) +
                      " bytes; a vector access is at most 16",
                  "try width " + Twine(16 / maxElementBytes));
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return reject(self, target, "not_applicable",
                  "the per-thread op has a dynamic extent");
  if (ranges[inner] % width != 0)
    return reject(self, target, "not_divisible",
                  "width " + Twine(width) +
                      " does not divide the per-thread extent " +
                      Twine(ranges[inner]),
                  divisorsHint(ranges[inner], width, 16 / maxElementBytes,
                               true));

  auto func = target->getParentOfType<FunctionOpInterface>();
  Operation *toVectorize = target;
  if (ranges[inner] > width) {
    // One vector per step of an scf.for along the innermost loop.
    SmallVector<int64_t> sizes(loops, 1);
    sizes[inner] = width;
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(getContext(), sizes));
    rewriter.setInsertionPoint(target);
    auto tiled =
        scf::tileUsingSCF(rewriter, cast<TilingInterface>(target), options);
    if (failed(tiled))
      return reject(self, target, "not_applicable", "tiling by width failed");
    rewriter.eraseOp(target);
    toVectorize = tiled->tiledOps.front();
  }
  SmallVector<int64_t> vectorSizes = llvm::to_vector(
      cast<linalg::LinalgOp>(toVectorize).getStaticLoopRanges());
  // One scalable flag per size: linalg::vectorize reads as many flags as
  // sizes (an empty list is read out of bounds in a build without asserts).
  SmallVector<bool> scalable(vectorSizes.size(), false);
  if (failed(linalg::vectorize(rewriter, toVectorize, vectorSizes, scalable)))
    return reject(self, target, "not_applicable", "vectorization failed");
  if (toVectorize->getNumResults() == 0 && toVectorize->getBlock())
    rewriter.eraseOp(toVectorize);

  // Loads and stores, then their alignment where it is proven.
  if (func) {
    RewritePatternSet patterns(getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns, 1);
    memref::populateFoldMemRefAliasOpPatterns(patterns);
    // Through the transform rewriter's listener: ops the patterns replace
    // or erase must leave the transform state's handles too.
    GreedyRewriteConfig config;
    config.setListener(
        static_cast<RewriterBase::Listener *>(rewriter.getListener()));
    (void)applyPatternsGreedily(func, std::move(patterns), config);
    func->walk([](Operation *op) {
      auto annotate = [](auto access, Value base, ValueRange indices,
                         VectorType type) {
        if (access.getAlignment() || !type.getElementType().isIntOrFloat())
          return;
        uint64_t element =
            std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
        uint64_t bytes = llvm::PowerOf2Ceil(element * type.getNumElements());
        uint64_t proven =
            std::min(tirx::proveAccessAlignment(base, indices), bytes);
        if (proven > element)
          access.setAlignment(proven);
      };
      if (auto load = dyn_cast<vector::LoadOp>(op))
        annotate(load, load.getBase(), load.getIndices(), load.getVectorType());
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        annotate(store, store.getBase(), store.getIndices(),
                 store.getVectorType());
    });
  }
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// unroll
//===----------------------------------------------------------------------===//

LogicalResult tirx::UnrollOp::verify() {
  if (getFactor() < 2 || getFactor() > 64)
    return emitOpError() << "invalid_parameter: factor must lie in [2, 64], "
                            "got "
                         << getFactor();
  return success();
}

void tirx::UnrollOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  onlyReadsHandle(getTargetMutable(), effects);
  modifiesPayload(effects);
}

DiagnosedSilenceableFailure
tirx::UnrollOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                           ApplyToEachResultList &results,
                           TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return wrongTarget(self, target, "an scf.for");
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return reject(self, target, "unknown_trip_count",
                  "the loop's trip count is not static: a tail could remain");
  int64_t trips = std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  if (trips % getFactor() != 0)
    return reject(self, target, "not_divisible",
                  "factor " + Twine(getFactor()) +
                      " does not divide the trip count " + Twine(trips) +
                      ": a tail would be left",
                  divisorsHint(trips, getFactor(), 64, false));
  if (failed(loopUnrollByFactor(loop, getFactor())))
    return reject(self, target, "not_applicable", "unrolling failed");
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// interchange
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tirx::InterchangeOp::applyToOne(TransformRewriter &rewriter,
                                Operation *target,
                                ApplyToEachResultList &results,
                                TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto generic = dyn_cast<linalg::GenericOp>(target);
  if (!generic)
    return wrongTarget(self, target, "a linalg.generic");
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<bool> seen(generic.getNumLoops(), false);
  bool valid = perm.size() == generic.getNumLoops();
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= int64_t(seen.size()) || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return reject(self, target, "bad_permutation",
                  "the permutation must order all " +
                      Twine(generic.getNumLoops()) + " loops exactly once");
  SmallVector<unsigned> order(perm.begin(), perm.end());
  FailureOr<linalg::GenericOp> result =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(result))
    return reject(self, target, "not_applicable", "interchange failed");
  results.push_back(*result);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// remove_barrier
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tirx::RemoveBarrierOp::applyToOne(TransformRewriter &rewriter,
                                  Operation *target,
                                  ApplyToEachResultList &results,
                                  TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  if (!isa<mlir::gpu::BarrierOp>(target))
    return wrongTarget(self, target, "a gpu.barrier");
  Operation *kernel = target->getParentOfType<mlir::gpu::LaunchOp>();
  if (!kernel)
    kernel = target->getParentOfType<mlir::gpu::GPUFuncOp>();
  if (!kernel)
    kernel = target->getParentOfType<FunctionOpInterface>();
  // Any shared memory in the kernel may be written by one thread and read
  // by another: then the barrier may be needed.
  Operation *shared = nullptr;
  kernel->walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (tirx::memorySpaceName(v.getType()) == "workgroup") {
        shared = op;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (auto launch = dyn_cast<mlir::gpu::LaunchOp>(kernel))
    if (!launch.getWorkgroupAttributions().empty())
      shared = launch;
  if (shared)
    return reject(self, target, "barrier_needed",
                  "the kernel uses shared memory (" + tirx::irPath(shared) +
                      "): the barrier may order its accesses");
  rewriter.eraseOp(target);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// peel
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tirx::PeelOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                         ApplyToEachResultList &results,
                         TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return wrongTarget(self, target, "an scf.for");
  scf::ForOp remainder;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, remainder)))
    return reject(self, target, "nothing_to_peel",
                  "the step divides the loop's range: no partial iteration");
  results.push_back(loop);
  results.push_back(remainder);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// tile_reduction
//===----------------------------------------------------------------------===//

DiagnosedSilenceableFailure
tirx::TileReductionOp::applyToOne(TransformRewriter &rewriter,
                                  Operation *target,
                                  ApplyToEachResultList &results,
                                  TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return wrongTarget(self, target, "a linalg op");
  ArrayRef<int64_t> sizes = getTileSizes();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  if (sizes.size() > ranges.size() ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return reject(self, target, "invalid_parameter",
                  "give one non-negative size per loop (" +
                      Twine(ranges.size()) + " loops), at least one positive");
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size == 0)
      continue;
    if (iterators[i] != utils::IteratorType::reduction)
      return reject(self, target, "not_reduction",
                    "loop " + Twine(i) + " is parallel",
                    "tile parallel loops with tile_to_blocks or "
                    "tile_to_threads");
    if (!ShapedType::isDynamic(ranges[i]) && ranges[i] % size != 0)
      return reject(self, target, "not_divisible",
                    "tile size " + Twine(size) +
                        " does not divide the extent " + Twine(ranges[i]) +
                        " of loop " + Twine(i),
                    divisorsHint(ranges[i], size, 1 << 30, false));
  }
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(getContext(), sizes));
  rewriter.setInsertionPoint(target);
  auto tiled = scf::tileUsingSCF(rewriter, cast<TilingInterface>(target),
                                 options);
  if (failed(tiled) || tiled->loops.empty())
    return reject(self, target, "not_applicable", "tiling failed");
  if (target->getNumResults())
    rewriter.replaceOp(target, tiled->replacements);
  else
    rewriter.eraseOp(target);
  results.push_back(tiled->tiledOps.front());
  results.push_back(tiled->loops.front().getOperation());
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// promote_to_shared
//===----------------------------------------------------------------------===//

LogicalResult tirx::PromoteToSharedOp::verify() {
  int64_t padding = static_cast<int64_t>(getPadding());
  if (padding < 0 || padding > 64)
    return emitOpError() << "invalid_parameter: padding must lie in [0, 64], "
                            "got "
                         << padding;
  return success();
}

DiagnosedSilenceableFailure
tirx::PromoteToSharedOp::applyToOne(TransformRewriter &rewriter,
                                    Operation *target,
                                    ApplyToEachResultList &results,
                                    TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return wrongTarget(self, target, "a linalg op");
  if (!insideMapping(target, "block"))
    return reject(self, target, "bad_order",
                  "shared memory belongs to a block: the target is not "
                  "inside a forall mapped to blocks",
                  "apply tile_to_blocks first");
  int64_t total = 0;
  int64_t limit = getMaxSharedBytes();
  for (int64_t index : getOperands()) {
    if (index < 0 || index >= int64_t(target->getNumOperands()))
      return reject(self, target, "invalid_parameter",
                    "operand " + Twine(index) + " does not exist (the op has " +
                        Twine(target->getNumOperands()) + ")");
    Value operand = target->getOperand(index);
    auto subview = operand.getDefiningOp<memref::SubViewOp>();
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!subview || !type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return reject(self, target, "not_a_tile",
                    "operand " + Twine(index) +
                        " is not a static tile (a memref.subview of static "
                        "shape)",
                    "tile the op with tile_to_blocks first");
    int64_t rows = type.getRank() ? type.getNumElements() /
                                        type.getShape().back()
                                  : 1;
    total += (type.getNumElements() + rows * getPadding()) *
             (type.getElementTypeBitWidth() / 8);
  }
  if (total > limit)
    return reject(self, target, "exceeds_smem",
                  "the tiles need " + Twine(total) +
                      " bytes of shared memory; a block has " + Twine(limit),
                  "use smaller block tiles, or raise max_shared_bytes up to "
                  "the device's opt-in limit (227 KiB on the H200)");
  // Workgroup buffers at the function's entry (moved into the block loop
  // below), each row `padding` elements longer than the tile's; the op
  // reads the tile-sized view.
  int64_t padding = getPadding();
  linalg::AllocBufferCallbackFn allocate =
      [padding](OpBuilder &b, memref::SubViewOp subview, ArrayRef<Value>,
                DataLayout &) -> std::optional<Value> {
    auto type = cast<MemRefType>(subview.getType());
    OpBuilder::InsertionGuard guard(b);
    auto func = subview->getParentOfType<FunctionOpInterface>();
    if (!func)
      return std::nullopt;
    b.setInsertionPointToStart(&func.getFunctionBody().front());
    SmallVector<int64_t> shape(type.getShape());
    if (!shape.empty())
      shape.back() += padding;
    auto space = mlir::gpu::AddressSpaceAttr::get(
        b.getContext(), mlir::gpu::AddressSpace::Workgroup);
    Value buffer = memref::AllocOp::create(
        b, subview.getLoc(),
        MemRefType::get(shape, type.getElementType(),
                        MemRefLayoutAttrInterface(), space));
    if (padding == 0 || shape.empty())
      return buffer;
    SmallVector<OpFoldResult> zeros(shape.size(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(shape.size(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : type.getShape())
      sizes.push_back(b.getIndexAttr(d));
    return memref::SubViewOp::create(b, subview.getLoc(), buffer, zeros,
                                     sizes, ones)
        .getResult();
  };
  linalg::LinalgPromotionOptions options;
  options.setOperandsToPromote(getOperands())
      .setAllocationDeallocationFns(allocate,
                                    linalg::deallocateWorkgroupMemory)
      .setCopyInOutFns(copyThroughBarriers, copyThroughBarriers)
      .setUseFullTileBuffersByDefault(false)
      .setUseOriginalSubviewSize(true); // static views: threads can tile them
  if (failed(linalg::promoteSubviewsPrecondition(target, options)))
    return reject(self, target, "not_applicable",
                  "the op's operands cannot be promoted");
  rewriter.setInsertionPoint(target);
  // The block's forall: the buffers belong inside it (inside the launch
  // once mapped), not at the function entry where upstream puts them.
  scf::ForallOp blockLoop;
  for (auto f = target->getParentOfType<scf::ForallOp>(); f;
       f = f->getParentOfType<scf::ForallOp>())
    if (f.getMapping() && llvm::any_of(*f.getMapping(), [](Attribute a) {
          return isa<mlir::gpu::GPUBlockMappingAttr>(a);
        }))
      blockLoop = f;
  auto func = target->getParentOfType<FunctionOpInterface>();
  llvm::SmallPtrSet<Operation *, 8> before;
  if (func)
    func->walk([&](memref::AllocOp a) { before.insert(a); });
  FailureOr<linalg::LinalgOp> promoted =
      linalg::promoteSubViews(rewriter, linalgOp, options);
  if (failed(promoted))
    return reject(self, target, "not_applicable", "promotion failed");
  if (func && blockLoop) {
    SmallVector<memref::AllocOp> created;
    func->walk([&](memref::AllocOp a) {
      if (!before.count(a) && tirx::memorySpaceName(a.getType()) == "workgroup")
        created.push_back(a);
    });
    for (memref::AllocOp a : created) {
      rewriter.moveOpBefore(a, &blockLoop.getBody()->front());
      // The padded buffer's tile-sized view goes with it.
      for (Operation *user : llvm::make_early_inc_range(a->getUsers()))
        if (isa<memref::SubViewOp>(user) && !blockLoop->isAncestor(user))
          rewriter.moveOpAfter(user, a);
    }
    // Constant view sizes become static, and the op folds the casts: the
    // promoted operands have static shapes again.
    RewritePatternSet patterns(getContext());
    memref::SubViewOp::getCanonicalizationPatterns(patterns, getContext());
    memref::CastOp::getCanonicalizationPatterns(patterns, getContext());
    GreedyRewriteConfig config;
    config.setListener(
        static_cast<RewriterBase::Listener *>(rewriter.getListener()));
    (void)applyPatternsGreedily(blockLoop, std::move(patterns), config);
  }
  results.push_back(promoted->getOperation());
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// fuse_into
//===----------------------------------------------------------------------===//

namespace {
/// The buffer a view is taken of (through subviews, casts and other views).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

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
      if (!written || llvm::is_contained(roots, rootBuffer(written))) {
        writer = op;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return writer;
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
  if (producer.getNumReductionLoops() != 0 ||
      !producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
           .isIdentity())
    return reject(self, target, "not_elementwise",
                  "the producer has a reduction loop or writes its output "
                  "through a non-identity map",
                  "tile its reductions with tile_reduction instead");
  Value buffer = producer.getDpsInitOperand(0)->get();
  Operation *alloc = buffer.getDefiningOp();
  if (!alloc || !isa<memref::AllocOp, memref::AllocaOp>(alloc))
    return reject(self, target, "not_intermediate",
                  "the producer's output is not a buffer allocated in the "
                  "function: it is observable, and fusing would compute only "
                  "the tiles the consumer reads");

  // The intermediate's uses: the producer, deallocations, one subview in a
  // loop after the producer in the same block.
  memref::SubViewOp tile;
  SmallVector<Operation *> deallocs;
  for (Operation *user : buffer.getUsers()) {
    if (user == target)
      continue;
    if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
      continue;
    }
    if (isa<linalg::LinalgOp>(user))
      return reject(self, target, "no_consumer_loop",
                    tirx::irPath(user) + " reads the whole intermediate: it "
                                         "is not tiled",
                    "tile the consumer first (tile_to_blocks or "
                    "tile_to_threads)");
    auto subview = dyn_cast<memref::SubViewOp>(user);
    if (!subview || tile)
      return reject(self, target, "other_use",
                    "the intermediate buffer is also used by " +
                        tirx::irPath(user) +
                        ": only one tiled read (a memref.subview) can be fused");
    tile = subview;
  }
  Operation *loop = nullptr;
  if (tile)
    for (Operation *p = tile->getParentOp(); p; p = p->getParentOp())
      if (p->getBlock() == target->getBlock()) {
        if (isa<scf::ForallOp, scf::ForOp>(p))
          loop = p;
        break;
      }
  if (!loop || !target->isBeforeInBlock(loop))
    return reject(self, target, "no_consumer_loop",
                  "no scf.forall or scf.for after the producer reads its "
                  "output through a memref.subview",
                  "tile the consumer first (tile_to_blocks or tile_to_threads)");
  for (Operation *op = target->getNextNode(); op != loop; op = op->getNextNode())
    if (!isMemoryEffectFree(op))
      return reject(self, target, "bad_order",
                    tirx::irPath(op) + " between the producer and the loop "
                                       "touches memory",
                    "move it after the loop, or fuse nothing");
  SmallVector<Value> guarded{buffer};
  for (OpOperand *input : producer.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      guarded.push_back(rootBuffer(input->get()));
  if (Operation *writer = firstWriterOf(loop->getRegion(0), guarded))
    return reject(self, target, "input_written",
                  tirx::irPath(writer) + " in the loop may write an input of "
                                         "the producer or the intermediate",
                  "fusing would read values the loop has changed");
  auto tileType = tile.getType();
  if (tileType.getRank() != producer.getNumLoops() ||
      !tileType.hasStaticShape() ||
      llvm::any_of(tile.getMixedStrides(),
                   [](OpFoldResult s) { return !isConstantIntValue(s, 1); }))
    return reject(self, target, "dynamic_tile",
                  "the loop reads a tile that is not static, full-rank and "
                  "unit-stride: " + tirx::irPath(tile),
                  "tile with sizes that divide the extents");

  // In a loop over blocks the tile is the block's: it lives in shared
  // memory, between barriers, since its threads may split the producer and
  // the consumer differently. Elsewhere (a thread's loop, an scf.for) it is
  // the iteration's own.
  auto forall = dyn_cast<scf::ForallOp>(loop);
  bool perBlock = forall && forall.getMapping() &&
                  llvm::any_of(*forall.getMapping(), [](Attribute a) {
                    return isa<mlir::gpu::GPUBlockMappingAttr>(a);
                  });
  Attribute space;
  if (perBlock)
    space = mlir::gpu::AddressSpaceAttr::get(getContext(),
                                       mlir::gpu::AddressSpace::Workgroup);
  auto privateType =
      MemRefType::get(tileType.getShape(), tileType.getElementType(),
                      MemRefLayoutAttrInterface(), space);
  // The consumer reads the new buffer through a cast to the tile's type
  // where the types allow, else directly (linalg ops take any layout).
  bool castable = memref::CastOp::areCastCompatible(privateType, tileType);
  if (!castable)
    for (Operation *user : tile->getUsers())
      if (!isa<linalg::LinalgOp>(user))
        return reject(self, target, "other_use",
                      "the tile is read by " + tirx::irPath(user) +
                          ", which needs the tile's strided layout");

  // The producer, tiled to the consumer's tile, writing the new buffer.
  Value privateTile;
  if (perBlock) {
    rewriter.setInsertionPointToStart(forall.getBody());
    privateTile = memref::AllocOp::create(rewriter, tile.getLoc(), privateType);
    rewriter.setInsertionPoint(tile);
    mlir::gpu::BarrierOp::create(rewriter, tile.getLoc());
  } else {
    rewriter.setInsertionPoint(tile);
    privateTile = memref::AllocaOp::create(rewriter, tile.getLoc(), privateType);
  }
  FailureOr<TilingResult> tiled =
      cast<TilingInterface>(target).getTiledImplementation(
          rewriter, tile.getMixedOffsets(), tile.getMixedSizes());
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return reject(self, target, "not_applicable", "tiling the producer failed");
  auto fused = cast<linalg::LinalgOp>(tiled->tiledOps.front());
  OpOperand *init = fused.getDpsInitOperand(0);
  Operation *oldOut = init->get().getDefiningOp();
  rewriter.modifyOpInPlace(fused, [&] { init->set(privateTile); });
  if (oldOut && oldOut->use_empty())
    rewriter.eraseOp(oldOut);
  if (perBlock)
    mlir::gpu::BarrierOp::create(rewriter, tile.getLoc());
  Value replacement = privateTile;
  if (privateType != tileType && castable)
    replacement = memref::CastOp::create(rewriter, tile.getLoc(), tileType,
                                         privateTile);
  rewriter.replaceOp(tile, replacement);
  rewriter.eraseOp(target);
  if (llvm::all_of(alloc->getUsers(),
                   [](Operation *u) { return isa<memref::DeallocOp>(u); })) {
    for (Operation *d : deallocs)
      rewriter.eraseOp(d);
    rewriter.eraseOp(alloc);
  }
  results.push_back(fused);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// use_mma
//===----------------------------------------------------------------------===//

LogicalResult tirx::UseMmaOp::verify() {
  ArrayRef<int64_t> warps = getWarps();
  if (warps.size() != 2 || warps[0] < 1 || warps[1] < 1 ||
      warps[0] * warps[1] > 32)
    return emitOpError() << "invalid_parameter: warps takes two counts (along "
                            "M and N), each at least 1, at most 32 in all "
                            "(1024 threads)";
  return success();
}

namespace {
/// The shape of one mma.sync step: 16x8x8, tf32 operands, f32 sums.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 8;

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Warp counts `w` along an extent that leave whole fragments: "try 1, 2 or 4".
std::string warpCountHint(int64_t extent, int64_t fragment) {
  std::vector<std::string> options;
  for (int64_t w = 1; w <= 32; w *= 2)
    if (extent % (w * fragment) == 0)
      options.push_back(std::to_string(w));
  return tryHint(std::move(options));
}
} // namespace

DiagnosedSilenceableFailure
tirx::UseMmaOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                           ApplyToEachResultList &results,
                           TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto matmul = dyn_cast<linalg::MatmulOp>(target);
  if (!matmul || !matmul.hasPureBufferSemantics())
    return wrongTarget(self, target, "a linalg.matmul on buffers");
  if (matmul.hasUserDefinedMaps())
    return reject(self, target, "not_applicable",
                  "the matmul has its own indexing maps (a transposed or "
                  "broadcast operand); use_mma takes C[m, n] += A[m, k] * "
                  "B[k, n]");
  if (!insideMapping(target, "block"))
    return reject(self, target, "bad_order",
                  "the target is not inside a forall mapped to blocks: "
                  "mma.sync computes a block's tile with its warps",
                  "apply tile_to_blocks first");
  if (insideMapping(target, "thread"))
    return reject(self, target, "bad_order",
                  "the target is already split among threads; mma.sync is "
                  "executed by a whole warp",
                  "apply use_mma instead of tile_to_threads");
  Value a = matmul.getDpsInputOperand(0)->get();
  Value b = matmul.getDpsInputOperand(1)->get();
  Value c = matmul.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c}) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return reject(self, target, "unsupported_type",
                    "operand of type " + typeText(v.getType()) +
                        " is not a static memref of f32; mma.sync here "
                        "multiplies f32 as tf32",
                    "tile the op with tile_to_blocks so that its operands "
                    "are static tiles");
  }
  ArrayRef<int64_t> shapeA = cast<MemRefType>(a.getType()).getShape();
  ArrayRef<int64_t> shapeC = cast<MemRefType>(c.getType()).getShape();
  int64_t m = shapeC[0], n = shapeC[1], k = shapeA[1];
  ArrayRef<int64_t> warps = getWarps();
  if (m % (warps[0] * kMmaM) != 0)
    return reject(self, target, "not_divisible",
                  Twine(warps[0]) + " warps of 16-row fragments do not divide "
                  "M = " + Twine(m),
                  warpCountHint(m, kMmaM));
  if (n % (warps[1] * kMmaN) != 0)
    return reject(self, target, "not_divisible",
                  Twine(warps[1]) + " warps of 8-column fragments do not "
                  "divide N = " + Twine(n),
                  warpCountHint(n, kMmaN));
  if (k % kMmaK != 0)
    return reject(self, target, "not_divisible",
                  "K = " + Twine(k) + " is not a multiple of 8, the K of one "
                  "mma.sync step",
                  "tile the reduction with tile_reduction to a multiple of 8");

  // The warps' forall; innermost (x) along N.
  MLIRContext *ctx = getContext();
  Location loc = target->getLoc();
  rewriter.setInsertionPoint(target);
  SmallVector<Attribute> mapping{
      mlir::gpu::GPUWarpMappingAttr::get(ctx, mlir::gpu::MappingId::LinearDim1),
      mlir::gpu::GPUWarpMappingAttr::get(ctx, mlir::gpu::MappingId::LinearDim0)};
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(warps[0]),
                                            rewriter.getIndexAttr(warps[1])},
      ValueRange{}, rewriter.getArrayAttr(mapping));
  rewriter.setInsertionPointToStart(forall.getBody());
  // One constant of each value, at the top of the warp's body.
  llvm::DenseMap<int64_t, Value> constants;
  auto cst = [&](int64_t v) -> Value {
    Value &c = constants[v];
    if (!c) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(forall.getBody());
      c = arith::ConstantIndexOp::create(rewriter, loc, v);
    }
    return c;
  };
  auto add = [&](Value x, int64_t v) -> Value {
    return v == 0 ? x : arith::AddIOp::create(rewriter, loc, x, cst(v)).getResult();
  };
  int64_t warpM = m / warps[0], warpN = n / warps[1];
  int64_t tilesM = warpM / kMmaM, tilesN = warpN / kMmaN;
  Value lane = mlir::gpu::LaneIdOp::create(rewriter, loc,
                                     rewriter.getIndexAttr(32));
  // PTX fragment layout: lane = 4 * group + thread-in-group.
  Value group = arith::DivUIOp::create(rewriter, loc, lane, cst(4));
  Value inGroup = arith::RemUIOp::create(rewriter, loc, lane, cst(4));
  Value rowBase = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, forall.getInductionVar(0),
                            cst(warpM)),
      group);
  Value colBase = arith::MulIOp::create(rewriter, loc,
                                        forall.getInductionVar(1), cst(warpN));
  Value colC = arith::AddIOp::create(
      rewriter, loc, colBase,
      arith::MulIOp::create(rewriter, loc, inGroup, cst(2)));
  Value colB = arith::AddIOp::create(rewriter, loc, colBase, group);

  auto load = [&](Value buf, Value i, Value j) -> Value {
    return memref::LoadOp::create(rewriter, loc, buf, ValueRange{i, j});
  };
  auto pack = [&](ArrayRef<int64_t> shape, ArrayRef<Value> elems) -> Value {
    return vector::FromElementsOp::create(
        rewriter, loc, VectorType::get(shape, rewriter.getF32Type()), elems);
  };
  // C fragment (mi, ni): rows r, r + 8; columns q, q + 1.
  auto cIndex = [&](int64_t mi, int64_t ni, int64_t e) {
    Value row = add(rowBase, mi * kMmaM + (e / 2) * 8);
    Value col = add(colC, ni * kMmaN + e % 2);
    return std::make_pair(row, col);
  };
  SmallVector<Value> accs;
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t ni = 0; ni < tilesN; ++ni) {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < 4; ++e) {
        auto [row, col] = cIndex(mi, ni, e);
        elems.push_back(load(c, row, col));
      }
      accs.push_back(pack({2, 2}, elems));
    }
  auto loop = scf::ForOp::create(
      rewriter, loc, cst(0), cst(k), cst(kMmaK), accs,
      // The body builder is the rewriter, placed in the loop's body.
      [&](OpBuilder &, Location l, Value kk, ValueRange iters) {
        Value kA = arith::AddIOp::create(rewriter, l, kk, inGroup);
        SmallVector<Value> fragA, fragB;
        for (int64_t mi = 0; mi < tilesM; ++mi) {
          // A: rows r, r + 8; columns kk + t, kk + t + 4 (a0..a3).
          Value r0 = add(rowBase, mi * kMmaM), r1 = add(r0, 8);
          Value k4 = add(kA, 4);
          fragA.push_back(pack({4, 1}, {load(a, r0, kA), load(a, r1, kA),
                                        load(a, r0, k4), load(a, r1, k4)}));
        }
        for (int64_t ni = 0; ni < tilesN; ++ni) {
          // B: rows kk + t, kk + t + 4; column g (b0, b1).
          Value col = add(colB, ni * kMmaN);
          fragB.push_back(pack({2, 1}, {load(b, kA, col),
                                        load(b, add(kA, 4), col)}));
        }
        SmallVector<Value> next;
        for (int64_t mi = 0; mi < tilesM; ++mi)
          for (int64_t ni = 0; ni < tilesN; ++ni)
            next.push_back(nvgpu::MmaSyncOp::create(
                rewriter, l, fragA[mi], fragB[ni], iters[mi * tilesN + ni],
                ArrayRef<int64_t>{kMmaM, kMmaN, kMmaK},
                /*tf32Enabled=*/true));
        scf::YieldOp::create(rewriter, l, next);
      });
  rewriter.setInsertionPointAfter(loop);
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t ni = 0; ni < tilesN; ++ni)
      for (int64_t e = 0; e < 4; ++e) {
        auto [row, col] = cIndex(mi, ni, e);
        Value v = vector::ExtractOp::create(
            rewriter, loc, loop.getResult(mi * tilesN + ni),
            ArrayRef<int64_t>{e / 2, e % 2});
        memref::StoreOp::create(rewriter, loc, v, c, ValueRange{row, col});
      }
  rewriter.eraseOp(target);
  results.push_back(forall);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// split_reduction
//===----------------------------------------------------------------------===//

LogicalResult tirx::SplitReductionOp::verify() {
  if (getParts() < 2 || getParts() > 65536)
    return emitOpError() << "invalid_parameter: parts must lie in [2, 65536], "
                            "got "
                         << getParts();
  return success();
}

DiagnosedSilenceableFailure
tirx::SplitReductionOp::applyToOne(TransformRewriter &rewriter,
                                   Operation *target,
                                   ApplyToEachResultList &results,
                                   TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto op = dyn_cast<linalg::LinalgOp>(target);
  if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return wrongTarget(self, target, "a linalg op on buffers with one output");
  Value out = op.getDpsInitOperand(0)->get();
  auto outType = dyn_cast<MemRefType>(out.getType());
  if (!outType || !outType.hasStaticShape())
    return reject(self, target, "not_applicable",
                  "the output is not a memref of static shape");
  if (insideMapping(target, "block") ||
      target->getParentOfType<mlir::gpu::LaunchOp>() ||
      target->getParentOfType<scf::ForallOp>() ||
      target->getParentOfType<scf::ForOp>())
    return reject(self, target, "bad_order",
                  "the target is already tiled or inside a kernel: the "
                  "partial results need a buffer of the function",
                  "split the reduction first, then tile each part");
  auto iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.empty())
    return reject(self, target, "not_reduction",
                  "the op has no reduction loop");
  if (reductions.size() > 1)
    return reject(self, target, "several_reductions",
                  "the op has " + Twine(reductions.size()) +
                      " reduction loops; split_reduction splits one",
                  "collapse them into one, or split an op with one");
  unsigned k = reductions.front();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = ranges[k];
  int64_t parts = getParts();
  if (ShapedType::isDynamic(extent))
    return reject(self, target, "not_applicable",
                  "the reduction loop has no static extent");
  if (extent % parts != 0)
    return reject(self, target, "not_divisible",
                  Twine(parts) + " parts do not divide the reduction's extent " +
                      Twine(extent),
                  divisorsHint(extent, parts, extent, false));
  // The combiner: one op between the output's block argument and the
  // yielded value, with a neutral element to start each part from.
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return reject(self, target, "unknown_combiner",
                  "the body does not combine into the output with one of "
                  "add, mul, max, min, and, or, xor",
                  "split_reduction needs an associative combiner with a "
                  "neutral element");
  Operation *combiner = combiners.front();
  TypedAttr neutral = *arith::getNeutralElement(combiner);

  // The new domain: loop k becomes (r parallel, kk reduction). An input
  // indexed by k gets that dimension expanded in two, (kk, r) or, chunked,
  // (r, kk): its maps stay projections (linalg must infer loop ranges from
  // the operands' shapes).
  MLIRContext *ctx = getContext();
  Location loc = target->getLoc();
  unsigned n = op.getNumLoops();
  int64_t chunk = extent / parts;
  AffineExpr r = getAffineDimExpr(k, ctx), kk = getAffineDimExpr(k + 1, ctx);
  SmallVector<AffineExpr> shift;
  for (unsigned i = 0; i < n; ++i)
    shift.push_back(getAffineDimExpr(i < k ? i : i + 1, ctx));
  struct Expanded {
    Value value;
    MemRefType type;
    SmallVector<ReassociationIndices> groups;
  };
  SmallVector<Expanded> expanded;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    Expanded e{input->get(), {}, {}};
    SmallVector<AffineExpr> results;
    auto type = dyn_cast<MemRefType>(input->get().getType());
    for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
      if (!expr.isFunctionOfDim(k)) {
        e.groups.push_back({int64_t(results.size())});
        results.push_back(expr.replaceDims(shift));
        continue;
      }
      if (expr != getAffineDimExpr(k, ctx) || !type)
        return reject(self, target, "not_applicable",
                      "input " + Twine(input->getOperandNumber()) +
                          " is indexed by an expression of the reduction "
                          "loop, not the loop itself");
      e.groups.push_back(
          {int64_t(results.size()), int64_t(results.size()) + 1});
      if (getChunked())
        results.append({r, kk});
      else
        results.append({kk, r});
    }
    maps.push_back(AffineMap::get(n + 1, 0, results, ctx));
    if (type && map.isFunctionOfDim(k)) {
      SmallVector<int64_t> shape;
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(k)) {
          shape.push_back(type.getDimSize(pos));
        } else if (getChunked()) {
          shape.append({parts, chunk});
        } else {
          shape.append({chunk, parts});
        }
      }
      FailureOr<MemRefType> to =
          memref::ExpandShapeOp::computeExpandedType(type, shape, e.groups);
      if (failed(to))
        return reject(self, target, "not_applicable",
                      "input " + Twine(input->getOperandNumber()) +
                          " cannot be viewed with its reduction dimension "
                          "split (its layout is not contiguous there)");
      e.type = *to;
    }
    expanded.push_back(std::move(e));
  }
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0))
                         .replaceDimsAndSymbols(shift, {}, n + 1, 0);
  SmallVector<AffineExpr> partialResults(outMap.getResults());
  partialResults.push_back(r);
  maps.push_back(AffineMap::get(n + 1, 0, partialResults, ctx));
  SmallVector<utils::IteratorType> newIterators;
  for (unsigned i = 0; i < n; ++i) {
    if (i == k) {
      newIterators.push_back(utils::IteratorType::parallel);
      newIterators.push_back(utils::IteratorType::reduction);
    } else {
      newIterators.push_back(iterators[i]);
    }
  }

  rewriter.setInsertionPoint(target);
  SmallVector<int64_t> partialShape(outType.getShape());
  partialShape.push_back(parts);
  auto partialType = MemRefType::get(partialShape, outType.getElementType());
  Value partial = memref::AllocOp::create(rewriter, loc, partialType);
  Value init = arith::ConstantOp::create(rewriter, loc, neutral);
  auto fill = linalg::FillOp::create(rewriter, loc, ValueRange{init},
                                     ValueRange{partial});
  SmallVector<Value> inputs;
  for (Expanded &e : expanded)
    inputs.push_back(e.type ? memref::ExpandShapeOp::create(
                                  rewriter, loc, e.type, e.value, e.groups)
                                  .getResult()
                            : e.value);
  auto split = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, inputs, ValueRange{partial}, maps,
      newIterators);
  rewriter.cloneRegionBefore(target->getRegion(0), split.getRegion(),
                             split.getRegion().end());

  // The combine: out = combine(out, reduce_r partial).
  unsigned m = outType.getRank();
  SmallVector<utils::IteratorType> combineIterators(
      m, utils::IteratorType::parallel);
  combineIterators.push_back(utils::IteratorType::reduction);
  // The partial buffer is read whole; the output takes the first m dims.
  SmallVector<AffineExpr> firstM;
  for (unsigned i = 0; i < m; ++i)
    firstM.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> combineMaps{
      AffineMap::getMultiDimIdentityMap(m + 1, ctx),
      AffineMap::get(m + 1, 0, firstM, ctx)};
  auto combine = linalg::GenericOp::create(
      rewriter, loc, TypeRange{}, ValueRange{partial}, ValueRange{out},
      combineMaps, combineIterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        OperationState state(l, combiner->getName());
        state.addOperands({args[1], args[0]});
        state.addTypes(combiner->getResultTypes());
        state.addAttributes(combiner->getAttrs());
        Operation *c = b.create(state);
        linalg::YieldOp::create(b, l, c->getResult(0));
      });
  memref::DeallocOp::create(rewriter, loc, partial);
  rewriter.eraseOp(target);
  results.push_back(fill);
  results.push_back(split);
  results.push_back(combine);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// map_to_gpu
//===----------------------------------------------------------------------===//

LogicalResult tirx::MapToGpuOp::verify() {
  ArrayRef<int64_t> dims = getBlockDims();
  int64_t total = 1;
  for (int64_t d : dims)
    total *= std::max<int64_t>(d, 1);
  if (dims.empty())
    return success(); // each kernel gets the threads its foralls need
  if (dims.size() > 3 ||
      llvm::any_of(dims, [](int64_t d) { return d < 1 || d > 1024; }) ||
      total > 1024)
    return emitOpError() << "invalid_parameter: block_dims must be 1 to 3 "
                            "sizes in [1, 1024], at most 1024 threads in all "
                            "(or none)";
  return success();
}

namespace {
bool mapsTo(scf::ForallOp forall, StringRef kind) {
  if (!forall.getMapping())
    return false;
  return llvm::any_of(*forall.getMapping(), [&](Attribute a) {
    return (kind == "block" && isa<mlir::gpu::GPUBlockMappingAttr>(a)) ||
           (kind == "thread" && isa<mlir::gpu::GPUThreadMappingAttr>(a)) ||
           (kind == "warp" && isa<mlir::gpu::GPUWarpMappingAttr>(a));
  });
}

/// The threads a forall nested in a block forall needs: per dimension for
/// one mapped to threads, in all (32 per warp) for one mapped to warps.
struct ThreadsNeeded {
  scf::ForallOp forall;
  int64_t dims[3] = {1, 1, 1};
  int64_t warpThreads = 0; // > 0: a warp forall
};

SmallVector<ThreadsNeeded> threadsNeeded(scf::ForallOp block) {
  SmallVector<ThreadsNeeded> needs;
  block.getBody()->walk([&](scf::ForallOp nested) {
    ArrayRef<int64_t> ubs = nested.getStaticUpperBound();
    if (llvm::any_of(ubs, ShapedType::isDynamic) || !nested.getMapping())
      return; // upstream says what it cannot map
    ThreadsNeeded need{nested};
    if (mapsTo(nested, "warp")) {
      need.warpThreads = 32;
      for (int64_t ub : ubs)
        need.warpThreads *= ub;
    } else if (mapsTo(nested, "thread")) {
      for (auto [ub, attr] : llvm::zip(ubs, *nested.getMapping()))
        if (auto t = dyn_cast<mlir::gpu::GPUThreadMappingAttr>(attr))
          if (t.getMappingId() <= 2)
            need.dims[t.getMappingId()] = ub;
    } else {
      return;
    }
    needs.push_back(need);
  });
  return needs;
}

std::string dimsText(ArrayRef<int64_t> d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}
} // namespace

DiagnosedSilenceableFailure
tirx::MapToGpuOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                             ApplyToEachResultList &results,
                             TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  // The block foralls not nested in another forall or a launch.
  SmallVector<scf::ForallOp> blocks;
  target->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<mlir::gpu::LaunchOp>(op))
      return WalkResult::skip();
    auto forall = dyn_cast<scf::ForallOp>(op);
    if (!forall)
      return WalkResult::advance();
    if (mapsTo(forall, "block"))
      blocks.push_back(forall);
    return WalkResult::skip();
  });
  if (blocks.empty())
    return reject(self, target, "bad_order",
                  "no scf.forall mapped to blocks in the target",
                  "apply tile_to_blocks first");
  // Each kernel's block: the given dims, or by default what its thread or
  // warp foralls need. Everything is checked before anything changes.
  SmallVector<SmallVector<int64_t>> blockDims;
  for (scf::ForallOp block : blocks) {
    SmallVector<ThreadsNeeded> needs = threadsNeeded(block);
    SmallVector<int64_t> dims(getBlockDims());
    if (dims.empty()) {
      if (needs.empty())
        return reject(self, block, "bad_order",
                      "nothing in the block is mapped to threads or warps, "
                      "and no block_dims are given",
                      "apply tile_to_threads or use_mma first");
      dims = {1, 1, 1};
      for (const ThreadsNeeded &n : needs)
        for (int d = 0; d < 3; ++d)
          dims[d] = std::max(dims[d], d == 0 ? std::max(n.dims[0],
                                                         n.warpThreads)
                                             : n.dims[d]);
      if (dims[0] * dims[1] * dims[2] > 1024)
        return reject(self, block, "block_too_small",
                      "the block's foralls need " + dimsText(dims) +
                          " threads, above 1024",
                      "use fewer threads per block (tile_to_threads)");
    }
    dims.resize(3, 1);
    int64_t total = dims[0] * dims[1] * dims[2];
    for (const ThreadsNeeded &n : needs) {
      std::string problem;
      std::string hint;
      if (n.warpThreads > total) {
        problem = tirx::irPath(n.forall) + " has " +
                  std::to_string(n.warpThreads / 32) + " warps: " +
                  std::to_string(n.warpThreads) + " threads, the block " +
                  std::to_string(total);
        hint = "block_dims [" + std::to_string(n.warpThreads) + "]";
      } else if (n.dims[0] > dims[0] || n.dims[1] > dims[1] ||
                 n.dims[2] > dims[2]) {
        problem = tirx::irPath(n.forall) + " needs " + dimsText(n.dims) +
                  " threads; block_dims give " + dimsText(dims);
        hint = "block_dims [" + std::to_string(std::max(n.dims[0], dims[0])) +
               ", " + std::to_string(std::max(n.dims[1], dims[1])) + ", " +
               std::to_string(std::max(n.dims[2], dims[2])) +
               "], or none (each kernel its own)";
      }
      if (!problem.empty())
        return reject(self, block, "block_too_small", problem, "try " + hint);
    }
    blockDims.push_back(dims);
  }

  MLIRContext *ctx = getContext();
  for (auto [block, dims] : llvm::zip(blocks, blockDims)) {
    Location loc = block.getLoc();
    rewriter.setInsertionPoint(block);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value one = cst(1);
    auto launch = mlir::gpu::LaunchOp::create(rewriter, loc, one, one, one,
                                        cst(dims[0]), cst(dims[1]),
                                        cst(dims[2]));
    rewriter.setInsertionPointToEnd(&launch.getBody().front());
    auto terminator = mlir::gpu::TerminatorOp::create(rewriter, loc);
    rewriter.moveOpBefore(block, terminator);
    FailureOr<DeviceMaskingAttrInterface> mask = block.getDeviceMaskingAttr();
    if (failed(mask))
      return reject(self, block, "not_applicable",
                    "the block forall's mapping has an invalid mask");
    transform::gpu::GpuBlockIdBuilder ids(ctx, block.usesLinearMapping(),
                                          *mask);
    SmallVector<int64_t> grid;
    DiagnosedSilenceableFailure mapped =
        transform::gpu::mapForallToBlocksImpl(rewriter, self, block, grid,
                                              ids);
    if (!mapped.succeeded())
      return mapped;
    grid.resize(3, 1);
    rewriter.setInsertionPoint(launch);
    Value gx = cst(grid[0]), gy = cst(grid[1]), gz = cst(grid[2]);
    rewriter.modifyOpInPlace(launch, [&] {
      launch.getGridSizeXMutable().assign(gx);
      launch.getGridSizeYMutable().assign(gy);
      launch.getGridSizeZMutable().assign(gz);
    });
    mapped = transform::gpu::mapNestedForallToThreadsImpl(
        rewriter, self, launch, dims, /*warpSize=*/32,
        /*syncAfterDistribute=*/false);
    if (!mapped.succeeded())
      return mapped;
  }
  return DiagnosedSilenceableFailure::success();
}
