//===- TIRxTransformOps.cpp - legal transforms ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Every op checks, then rewrites. Preconditions are checked on the payload
// before anything changes, so a refusal leaves the payload as it was.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Analysis/Access.h"
#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"
#include "tirx/Dialect/TIRx/Transforms/Tails.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::transform;

#define GET_OP_CLASSES
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.cpp.inc"

namespace mlir::tirx::detail {
/// A refusal: "<code>: <message>", a note on the payload op, a hint.
DiagnosedSilenceableFailure reject(TransformOpInterface op, Operation *target,
                                   RefusalCode code, const Twine &message,
                                   const Twine &hint) {
  // On a front end's tensor payload the real reason is the tensors.
  if (code != RefusalCode::invalid_parameter &&
      code != RefusalCode::bad_permutation &&
      code != RefusalCode::missing_interface &&
      code != RefusalCode::on_tensors &&
      code != RefusalCode::not_bufferizable &&
      !isa<tirx::BufferizeOp>(op.getOperation()) &&
      tirx::worksOnTensors(target))
    return requireBuffers(op, target);
  Refusal refusal(code, message.str(), hint.str());
  refusal.payloadOp = tirx::irPath(target);
  refusal.location = tirx::locationText(target->getLoc());
  reportRefusal(op->getContext(), refusal);
  DiagnosedSilenceableFailure diag = op.emitSilenceableError()
                                     << codeName(code) << ": "
                                     << refusal.message;
  diag.attachNote(target->getLoc()) << "payload op: " << refusal.payloadOp;
  if (!refusal.hint.empty())
    diag.attachNote(op->getLoc()) << "hint: " << refusal.hint;
  return diag;
}

std::optional<int64_t> staticTripCount(scf::ForOp loop) {
  auto lb = getConstantIntValue(loop.getLowerBound());
  auto ub = getConstantIntValue(loop.getUpperBound());
  auto step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
}

LogicalResult invalidParameter(Operation *op, const Twine &message) {
  Refusal refusal(RefusalCode::invalid_parameter, message.str());
  refusal.location = tirx::locationText(op->getLoc());
  reportRefusal(op->getContext(), refusal);
  return op->emitOpError() << "invalid_parameter: " << refusal.message;
}

LogicalResult verifyMaxSharedBytes(Operation *op, int64_t bytes) {
  if (bytes >= 1 && bytes <= kMaxSharedBytes)
    return success();
  return invalidParameter(op, "max_shared_bytes must lie in [1, " +
                                  Twine(kMaxSharedBytes) +
                                  "] (227 KiB of shared memory per block), "
                                  "got " +
                                  Twine(bytes));
}

/// The refusal of a payload op of the wrong kind: "the target is X, not
/// <expected>".
DiagnosedSilenceableFailure wrongTarget(TransformOpInterface op,
                                        Operation *target,
                                        StringRef expected) {
  return reject(op, target, RefusalCode::not_applicable,
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

bool insideMapping(Operation *op, MappingKind kind) {
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>())
    if (mapsTo(forall, kind))
      return true;
  if (kind == MappingKind::Block && op->getParentOfType<mlir::gpu::LaunchOp>())
    return true;
  return false;
}

DiagnosedSilenceableFailure requireTiling(TransformOpInterface op,
                                          Operation *target) {
  if (isa<TilingInterface>(target)) {
    // A dimension of size 0 (torch's empty batch, x[:, :0]): the op has
    // nothing to compute. Upstream's tiling crashed on a loop of extent 0
    // left whole (Debian's LLVM has no assertions), and one tiled gave an
    // empty grid that no launch takes. Here, so that every tiling op
    // (tile_to_blocks, tile_to_threads, tile_reduction, fuse_into...)
    // refuses it.
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(target))
      for (auto [i, range] : llvm::enumerate(linalgOp.getStaticLoopRanges()))
        if (range == 0)
          return reject(
              op, target, RefusalCode::not_applicable,
              "loop " + Twine(i) +
                  " has extent 0 (an operand has a dimension of size 0): "
                  "the op computes nothing, and a kernel of no elements "
                  "cannot be launched",
              "remove the op from the payload (its outputs keep their "
              "initial values), or give the dimension a nonzero size");
    return DiagnosedSilenceableFailure::success();
  }
  return reject(op, target, RefusalCode::missing_interface,
                target->getName().getStringRef() +
                    " does not implement TilingInterface: its external "
                    "models are not registered in this tool",
                "register them (linalg::registerTilingInterfaceExternalModels"
                " or tirx::registerTransformDialectExtension), or all of "
                "TIRx's dialects with tirx::registerTIRxToolDialects");
}

DiagnosedSilenceableFailure matchSingleReduction(TransformOpInterface self,
                                                 linalg::LinalgOp op,
                                                 StringRef transform,
                                                 unsigned &loop,
                                                 Operation *&combiner) {
  Operation *target = op.getOperation();
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.empty())
    return reject(self, target, RefusalCode::not_reduction,
                  "the op has no reduction loop");
  if (reductions.size() > 1)
    return reject(self, target, RefusalCode::several_reductions,
                  "the op has " + Twine(reductions.size()) +
                      " reduction loops; " + transform + " takes one",
                  "collapse them into one first");
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners.front()))
    return reject(self, target, RefusalCode::unknown_combiner,
                  "the body does not combine into the output with one of "
                  "add, mul, max, min, and, or, xor",
                  transform + " needs an associative combiner with a "
                              "neutral element");
  loop = reductions.front();
  combiner = combiners.front();
  return DiagnosedSilenceableFailure::success();
}

} // namespace mlir::tirx::detail

using namespace mlir::tirx::detail;

namespace {
class TIRxTransformExtension
    : public TransformDialectExtension<TIRxTransformExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TIRxTransformExtension)
  using Base::Base;
  void init() {
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<mlir::gpu::GPUDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
    declareGeneratedDialect<bufferization::BufferizationDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
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

/// The loops `sizes` tiles (its nonzero entries): at most 3, the GPU's x,
/// y and z.
size_t tiledCount(ArrayRef<int64_t> sizes) {
  return llvm::count_if(sizes, [](int64_t s) { return s != 0; });
}

/// Tiles `target` into a forall with `sizes` (0: untiled) mapped to blocks
/// or threads; returns the tiled op and the forall.
FailureOr<std::pair<Operation *, Operation *>>
tileToForall(RewriterBase &rewriter, TilingInterface target,
             ArrayRef<int64_t> sizes, bool threads) {
  unsigned tiled = tiledCount(sizes);
  auto linalgOp = cast<linalg::LinalgOp>(target.getOperation());
  if (tirx::leavesTail(linalgOp.getStaticLoopRanges(), sizes) ||
      linalgOp->hasAttr(tirx::kTailBoundsAttrName)) {
    // Static tiles, the last one along a loop no size divides a tail op
    // (tirx::tileWithTails).
    FailureOr<tirx::TiledWithTails> withTails = tirx::tileWithTails(
        rewriter, linalgOp, sizes,
        mappingFor(rewriter.getContext(), tiled, threads));
    if (failed(withTails))
      return failure();
    return std::make_pair(withTails->ops.front(),
                          withTails->forall.getOperation());
  }
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
/// static extents.
DiagnosedSilenceableFailure checkTiling(TransformOpInterface op,
                                        Operation *target,
                                        ArrayRef<int64_t> sizes,
                                        StringRef what) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  if (!linalgOp)
    return wrongTarget(op, target, "a linalg op");
  if (DiagnosedSilenceableFailure check = requireTiling(op, target);
      !check.succeeded())
    return check;
  if (DiagnosedSilenceableFailure check = requireBuffers(op, target);
      !check.succeeded())
    return check;
  // Loops of run-time extent tile with guarded tails (tileWithTails).
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  if (sizes.size() > ranges.size())
    return reject(op, target, RefusalCode::invalid_parameter,
                  Twine(sizes.size()) + " " + what + " for an op with " +
                      Twine(ranges.size()) + " loops");
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size == 0)
      continue;
    if (iterators[i] != utils::IteratorType::parallel)
      return reject(op, target, RefusalCode::not_parallel,
                    "loop " + Twine(i) + " is a reduction; only parallel "
                    "loops map to blocks and threads",
                    "tile the reduction with tile_reduction instead");
    // A size that does not divide its extent leaves a tail: tileToForall
    // gives the last tile its own static op.
  }
  return DiagnosedSilenceableFailure::success();
}
} // namespace

void mlir::tirx::registerTransformOps(DialectRegistry &registry) {
  registry.addExtensions<TIRxTransformExtension>();
}

void mlir::tirx::registerTransformOpsInterfaceModels(
    DialectRegistry &registry) {
  linalg::registerTilingInterfaceExternalModels(registry);
  // What transform.tirx.bufferize rewrites.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
}

void mlir::tirx::registerTransformDialectExtension(DialectRegistry &registry) {
  registerTransformOps(registry);
  registerTransformOpsInterfaceModels(registry);
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
  // Zeros leave loops untiled: a 4-D op can tile any 3 of its loops.
  if (getTileSizes().empty() || tiledCount(getTileSizes()) > 3)
    return detail::invalidParameter(*this, "give 1 to 3 nonzero tile sizes "
                                           "(0 leaves a loop untiled)");
  if (llvm::any_of(getTileSizes(), [](int64_t s) { return s < 0; }) ||
      llvm::all_of(getTileSizes(), [](int64_t s) { return s == 0; }))
    return detail::invalidParameter(*this, "tile sizes must be "
                            "non-negative with at least one positive");
  return success();
}

DiagnosedSilenceableFailure tirx::TileToBlocksOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  if (insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already inside a block mapping");
  DiagnosedSilenceableFailure check =
      checkTiling(self, target, getTileSizes(), "tile size");
  if (!check.succeeded())
    return check;
  // Run-time sizes: named before the payload's ops leave its arguments
  // (the bundle declares them by these names).
  if (auto module = target->getParentOfType<ModuleOp>())
    tirx::nameDynamicSizes(module);
  auto tiled = tileToForall(rewriter, cast<TilingInterface>(target),
                            getTileSizes(), /*threads=*/false);
  if (failed(tiled))
    return reject(self, target, RefusalCode::not_applicable, "tiling failed");
  results.push_back(tiled->first);
  results.push_back(tiled->second);
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// tile_to_threads
//===----------------------------------------------------------------------===//

LogicalResult tirx::TileToThreadsOp::verify() {
  if (getElementsPerThread().empty() || tiledCount(getElementsPerThread()) > 3)
    return detail::invalidParameter(*this, "give 1 to 3 nonzero counts (0 "
                                           "leaves a loop untiled)");
  if (llvm::any_of(getElementsPerThread(), [](int64_t s) { return s < 0; }) ||
      llvm::all_of(getElementsPerThread(), [](int64_t s) { return s == 0; }))
    return detail::invalidParameter(*this, "elements per thread must be "
                            "non-negative with at least one positive");
  if (getMaxThreads() < 32 || getMaxThreads() > 1024)
    return detail::invalidParameter(*this, "max_threads must lie in "
                            "[32, 1024], got " + Twine(getMaxThreads()));
  if (getChunkAttr().getInt() < 0)
    return detail::invalidParameter(*this, "chunk must be 0 (blocked) or "
                            "positive, got " + Twine(getChunkAttr().getInt()));
  return success();
}

namespace {
/// Checks of a cyclic distribution (tile_to_threads `chunk`): static tiled
/// extents that their elements per thread divide, and a chunk dividing the
/// innermost tiled loop's elements per thread.
DiagnosedSilenceableFailure checkChunk(TransformOpInterface self,
                                       linalg::LinalgOp op,
                                       ArrayRef<int64_t> elements,
                                       int64_t chunk) {
  Operation *target = op.getOperation();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // The cyclic tiling sizes every loop it leaves whole by its static extent.
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return requireStaticLoops(self, target);
  unsigned inner = 0;
  for (auto [i, e] : llvm::enumerate(elements)) {
    if (e == 0)
      continue;
    inner = i;
    if (ShapedType::isDynamic(ranges[i]))
      return requireStaticLoops(self, target, elements);
    if (ranges[i] % e != 0)
      return reject(self, target, RefusalCode::not_divisible,
                    "loop " + Twine(i) + " of extent " + Twine(ranges[i]) +
                        " is not a multiple of its " + Twine(e) +
                        " elements per thread: a chunked distribution has "
                        "no tail thread",
                    "use chunk 0 (blocked) here, or elements per thread "
                    "that divide " + Twine(ranges[i]));
  }
  int64_t per = elements[inner];
  if (per % chunk != 0) {
    std::vector<std::string> options;
    for (int64_t c = 1; c <= per; c *= 2)
      if (per % c == 0)
        options.push_back(std::to_string(c));
    return reject(self, target, RefusalCode::not_divisible,
                  "chunk " + Twine(chunk) + " does not divide the " +
                      Twine(per) + " elements per thread of loop " +
                      Twine(inner),
                  tryHint(std::move(options)));
  }
  return DiagnosedSilenceableFailure::success();
}

/// The thread forall of a cyclic distribution: along the innermost tiled
/// loop, thread t of T computes the runs of `chunk` elements at
/// (r T + t) chunk for r < elements / chunk (an scf.for when more than
/// one); the other tiled loops blocked. Returns the tiled op and the forall.
FailureOr<std::pair<Operation *, Operation *>>
tileToThreadsCyclic(RewriterBase &rewriter, linalg::LinalgOp op,
                    ArrayRef<int64_t> elements, int64_t chunk) {
  MLIRContext *ctx = rewriter.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> counts;
  SmallVector<unsigned> tiledLoops;
  for (auto [i, e] : llvm::enumerate(elements))
    if (e) {
      tiledLoops.push_back(i);
      counts.push_back(rewriter.getIndexAttr(ranges[i] / e));
    }
  unsigned inner = tiledLoops.back();
  int64_t threads = ranges[inner] / elements[inner];
  int64_t rounds = elements[inner] / chunk;
  rewriter.setInsertionPoint(op);
  auto forall = scf::ForallOp::create(
      rewriter, loc, counts, ValueRange{},
      rewriter.getArrayAttr(mappingFor(ctx, tiledLoops.size(), true)));
  rewriter.setInsertionPointToStart(forall.getBody());
  Value round;
  if (rounds > 1) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value end = arith::ConstantIndexOp::create(rewriter, loc, rounds);
    auto loop = scf::ForOp::create(rewriter, loc, zero, end, one);
    round = loop.getInductionVar();
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  SmallVector<OpFoldResult> offsets, sizes;
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  for (unsigned i = 0, t = 0; i < ranges.size(); ++i) {
    if (i < elements.size() && elements[i]) {
      Value iv = forall.getInductionVars()[t++];
      if (i != inner) {
        offsets.push_back(affine::makeComposedFoldedAffineApply(
            rewriter, loc, d0 * elements[i], {OpFoldResult(iv)}));
        sizes.push_back(rewriter.getIndexAttr(elements[i]));
        continue;
      }
      offsets.push_back(
          round ? affine::makeComposedFoldedAffineApply(
                      rewriter, loc, d0 * chunk + d1 * (threads * chunk),
                      {OpFoldResult(iv), OpFoldResult(round)})
                : affine::makeComposedFoldedAffineApply(
                      rewriter, loc, d0 * chunk, {OpFoldResult(iv)}));
      sizes.push_back(rewriter.getIndexAttr(chunk));
      continue;
    }
    offsets.push_back(rewriter.getIndexAttr(0));
    sizes.push_back(rewriter.getIndexAttr(ranges[i]));
  }
  FailureOr<TilingResult> tiled =
      cast<TilingInterface>(op.getOperation())
          .getTiledImplementation(rewriter, offsets, sizes);
  if (failed(tiled) || tiled->tiledOps.empty()) {
    rewriter.eraseOp(forall);
    return failure();
  }
  rewriter.eraseOp(op);
  return std::make_pair(tiled->tiledOps.front(), forall.getOperation());
}
} // namespace

DiagnosedSilenceableFailure tirx::TileToThreadsOp::applyToOne(
    TransformRewriter &rewriter, Operation *target,
    ApplyToEachResultList &results, TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  if (!insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is not inside a forall mapped to blocks",
                  "apply tile_to_blocks first");
  if (insideMapping(target, MappingKind::Thread))
    return reject(self, target, RefusalCode::bad_order,
                  "the target is already mapped to threads");
  ArrayRef<int64_t> elements = getElementsPerThread();
  DiagnosedSilenceableFailure check =
      checkTiling(self, target, elements, "elements per thread");
  if (!check.succeeded())
    return check;
  // The largest extent of each loop: static, or a run-time tail's bound.
  SmallVector<int64_t> ranges = tirx::tailBounds(target);
  int64_t threads = 1;
  for (auto [i, e] : llvm::enumerate(elements)) {
    if (e == 0)
      continue;
    if (ranges[i] <= 0)
      return requireStaticLoops(self, target, elements);
    threads *= llvm::divideCeil(ranges[i], e);
  }
  int64_t maxThreads = getMaxThreads();
  // A tail's op (the partial last tile of a block tiling) runs on part of
  // the block its full tiles set: any count up to the limit.
  bool tail = tirx::isTail(target);
  if ((!tail && threads % 32 != 0) || threads > maxThreads) {
    int64_t tile = 1;
    for (auto [i, e] : llvm::enumerate(elements))
      if (e)
        tile *= ranges[i];
    std::vector<std::string> options;
    for (int64_t e = 1; e <= tile; e *= 2) {
      int64_t n = llvm::divideCeil(tile, e);
      if ((tail || n % 32 == 0) && n <= maxThreads)
        options.push_back(std::to_string(e));
    }
    return reject(self, target, RefusalCode::bad_block_size,
                  Twine(threads) + " threads per block: a block needs " +
                      (tail ? "" : "a multiple of 32 threads and ") +
                      "at most " + Twine(maxThreads),
                  options.empty()
                      ? "change the block's tile size to a multiple of 32 "
                        "times the elements per thread"
                      : "elements per thread giving a legal block: " +
                            llvm::join(options, ", "));
  }
  // A cyclic distribution needs whole runs: checked before anything changes.
  int64_t chunk = getChunkAttr().getInt();
  if (chunk > 0) {
    auto linalgOp = cast<linalg::LinalgOp>(target);
    if (DiagnosedSilenceableFailure check =
            checkChunk(self, linalgOp, elements, chunk);
        !check.succeeded())
      return check;
  }
  // A reduction whose outputs a fill starts (the fill in front of the block
  // loop, the blocks' tiles covering its buffer once: startFills) takes the
  // fill over: each thread starts its own outputs from the fill's value
  // (a column reduction's partials and result: a kernel less each).
  SmallVector<linalg::FillOp, 2> fills;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
      linalgOp && chunk == 0 && linalgOp.getNumReductionLoops() > 0)
    fills = tirx::startFills(linalgOp);
  auto tiled =
      chunk > 0
          ? tileToThreadsCyclic(rewriter, cast<linalg::LinalgOp>(target),
                                elements, chunk)
          : tileToForall(rewriter, cast<TilingInterface>(target), elements,
                         /*threads=*/true);
  if (failed(tiled))
    return reject(self, target, RefusalCode::not_applicable, "tiling failed");
  if (!fills.empty()) {
    // Every piece of the target (a tail's too) fills the tile it reduces
    // into, in front of it; a thread's tiles are its own.
    SmallVector<linalg::LinalgOp> pieces;
    tiled->second->walk([&](linalg::LinalgOp piece) {
      if (piece.getNumReductionLoops() > 0)
        pieces.push_back(piece);
    });
    for (linalg::LinalgOp piece : pieces) {
      rewriter.setInsertionPoint(piece);
      for (auto [fill, init] : llvm::zip_equal(fills, piece.getDpsInits()))
        linalg::FillOp::create(rewriter, fill.getLoc(),
                               fill.getInputs().front(), init);
    }
    for (linalg::FillOp fill : fills)
      rewriter.eraseOp(fill);
  }
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
    return detail::invalidParameter(*this, "width must be 1, 2, 4, 8 or "
                            "16, got " + Twine(w));
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
  if (DiagnosedSilenceableFailure check = requireTiling(self, target);
      !check.succeeded())
    return check;
  if (!insideMapping(target, MappingKind::Thread))
    return reject(self, target, RefusalCode::bad_order,
                  "vectorize only after thread mapping: the target is not "
                  "inside a forall mapped to threads",
                  "apply tile_to_threads first");
  unsigned loops = linalgOp.getNumLoops();
  if (loops == 0)
    return reject(self, target, RefusalCode::not_applicable, "the op has no loops");
  unsigned inner = loops - 1;
  // A reduction's vectors run along a parallel loop (a column reduction: a
  // thread's adjacent columns, each lane its own sum); the reduction loops
  // stay loops of the thread, the vector of partial results carried.
  if (linalgOp.getNumReductionLoops() != 0 &&
      linalgOp.getIteratorTypesArray()[inner] !=
          utils::IteratorType::parallel)
    return reject(self, target, RefusalCode::not_applicable,
                  "the innermost loop is a reduction: a vector runs along a "
                  "parallel loop",
                  "interchange the loops so that a parallel, contiguous "
                  "loop is innermost (a column reduction), or use "
                  "reduce_in_block or split_reduction for a row reduction");
  int64_t width = getWidth();
  // The innermost loop must be the contiguous axis of every operand.
  unsigned maxElementBytes = 1;
  for (OpOperand &operand : linalgOp->getOpOperands()) {
    auto memref = dyn_cast<MemRefType>(operand.get().getType());
    if (!memref)
      continue; // scalars are broadcast
    AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
    std::string name = "operand #" + std::to_string(operand.getOperandNumber());
    // An input that does not vary along the innermost loop is broadcast:
    // one scalar per vector (a row's statistic in a normalization).
    if (linalgOp.isDpsInput(&operand) && !map.isFunctionOfDim(inner))
      continue;
    if (map.getNumResults() == 0 ||
        map.getResults().back() != getAffineDimExpr(inner, getContext()))
      return reject(self, target, RefusalCode::not_contiguous,
                    "the innermost loop is not the last index of " + name,
                    "interchange the loops so that the contiguous axis is "
                    "innermost");
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return reject(self, target, RefusalCode::not_contiguous,
                    name + " is not contiguous in its last dimension");
    if (memref.getElementType().isIntOrFloat())
      maxElementBytes = std::max(
          maxElementBytes, memref.getElementType().getIntOrFloatBitWidth() / 8);
  }
  if (width * maxElementBytes > 16)
    return reject(self, target, RefusalCode::too_wide,
                  "width " + Twine(width) + " of " + Twine(maxElementBytes) +
                      "-byte elements is " + Twine(width * maxElementBytes) +
                      " bytes; a vector access is at most 16",
                  "try width " + Twine(16 / maxElementBytes));
  if (DiagnosedSilenceableFailure check = requireStaticLoops(self, target);
      !check.succeeded())
    return check;
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  bool tail = tirx::isTail(target);
  if (ranges[inner] < width && !tail)
    return reject(self, target, RefusalCode::not_divisible,
                  "width " + Twine(width) +
                      " is wider than the per-thread extent " +
                      Twine(ranges[inner]) + ": no vector of that width fits",
                  divisorsHint(ranges[inner], width, 16 / maxElementBytes,
                               true));
  // Vectors of `width` must be vector accesses: every operand read or
  // written along the vector proven aligned to the vector's size (the bundle
  // ABI aligns the payload's buffers; the tile's offsets must be multiples
  // of the width). Never silently scalar.
  if (ranges[inner] >= width)
    for (OpOperand &operand : linalgOp->getOpOperands()) {
      auto memref = dyn_cast<MemRefType>(operand.get().getType());
      // Global memory: the bundle's buffers. (A tile staged in shared
      // memory is read as alignment allows.)
      if (!memref || !memref.getElementType().isIntOrFloat() ||
          tirx::memorySpaceName(memref) != "global" ||
          (linalgOp.isDpsInput(&operand) &&
           !linalgOp.getMatchingIndexingMap(&operand).isFunctionOfDim(inner)))
        continue;
      uint64_t element =
          std::max(1u, memref.getElementType().getIntOrFloatBitWidth() / 8);
      uint64_t need = std::min<uint64_t>(16, element * width);
      uint64_t have = tirx::proveViewAlignment(operand.get(), width);
      if (have >= need)
        continue;
      int64_t fits = int64_t(llvm::bit_floor(have / element));
      return reject(
          self, target, RefusalCode::misaligned,
          "operand #" + Twine(operand.getOperandNumber()) + ": a vector of " +
              Twine(width) + " x " + Twine(element) + " bytes needs " +
              Twine(need) + "-byte alignment; the thread's accesses are "
              "proven " + Twine(have) + "-byte aligned (a tile or row "
              "offset that is no multiple of the width)",
          fits >= 2 ? "try width " + Twine(fits)
                    : Twine("tile so that every row and tile offset is a "
                            "multiple of the width, or leave the op scalar"));
    }

  auto func = target->getParentOfType<FunctionOpInterface>();
  auto threadLoop = target->getParentOfType<scf::ForallOp>();
  // The fills in front of a reduction that start its outputs (tile_to_threads
  // took them over) store vectors too, once the reduction is vectorized:
  // its loop then starts from the stored vector (tirx-promote-accumulators),
  // not a load.
  SmallVector<linalg::FillOp> starts;
  if (linalgOp.getNumReductionLoops() != 0)
    for (Operation *prev = target->getPrevNode(); prev;
         prev = prev->getPrevNode()) {
      auto fill = dyn_cast<linalg::FillOp>(prev);
      if (!fill)
        break;
      if (fill.hasPureBufferSemantics() &&
          llvm::is_contained(linalgOp.getDpsInits(),
                             fill.getDpsInitOperand(0)->get()) &&
          !cast<linalg::LinalgOp>(prev).hasDynamicShape())
        starts.push_back(fill);
    }
  // The thread's piece: vectors of `width`, then what is left (a tail of
  // fewer elements, one shorter vector).
  SmallVector<std::pair<Operation *, int64_t>> pieces;
  if (ranges[inner] < width) {
    pieces.push_back({target, ranges[inner]});
  } else {
    auto [main, rest] = tirx::peelTail(rewriter, linalgOp, inner, width);
    if (main)
      pieces.push_back({main, width});
    if (rest)
      pieces.push_back(
          {rest, cast<linalg::LinalgOp>(rest).getStaticLoopRanges()[inner]});
  }
  for (auto [piece, w] : pieces) {
    Operation *toVectorize = piece;
    SmallVector<int64_t> extents =
        cast<linalg::LinalgOp>(piece).getStaticLoopRanges();
    // A reduction's other loops become the thread's loops too: one vector
    // of each row combined a step (a whole [rows x w] tile would be one
    // transfer of all its rows).
    bool rowsLeft = linalgOp.getNumReductionLoops() != 0 &&
                    llvm::any_of(ArrayRef(extents).drop_back(),
                                 [](int64_t e) { return e != 1; });
    if (extents[inner] > w || rowsLeft) {
      // One vector per step of an scf.for along the innermost loop.
      SmallVector<int64_t> sizes(loops, 1);
      sizes[inner] = w;
      scf::SCFTilingOptions options;
      options.setTileSizes(getAsIndexOpFoldResult(getContext(), sizes));
      rewriter.setInsertionPoint(piece);
      auto tiled =
          scf::tileUsingSCF(rewriter, cast<TilingInterface>(piece), options);
      if (failed(tiled))
        return reject(self, target, RefusalCode::not_applicable,
                      "tiling by width failed");
      rewriter.eraseOp(piece);
      toVectorize = tiled->tiledOps.front();
    }
    SmallVector<int64_t> vectorSizes = llvm::to_vector(
        cast<linalg::LinalgOp>(toVectorize).getStaticLoopRanges());
    // One scalable flag per size: linalg::vectorize reads as many flags as
    // sizes (an empty list is read out of bounds in a build without
    // asserts).
    SmallVector<bool> scalable(vectorSizes.size(), false);
    if (failed(linalg::vectorize(rewriter, toVectorize, vectorSizes, scalable)))
      return reject(self, target, RefusalCode::not_applicable,
                    "vectorization failed");
    if (toVectorize->getNumResults() == 0 && toVectorize->getBlock())
      rewriter.eraseOp(toVectorize);
  }
  for (linalg::FillOp fill : starts) {
    SmallVector<int64_t> sizes = fill.getStaticLoopRanges();
    SmallVector<bool> flags(sizes.size(), false);
    if (succeeded(linalg::vectorize(rewriter, fill, sizes, flags)))
      rewriter.eraseOp(fill);
  }

  // Loads and stores, then their alignment where it is proven.
  if (func) {
    RewritePatternSet patterns(getContext());
    // A per-thread op of several loops (1 x 4 of a 2-D tile) vectorizes to
    // vector<1x4xf32>: its unit dimensions go first, so that the 1-D
    // lowering below turns the transfers into vector.load and store.
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    // A reduction's step of one row (a unit reduction dimension) is the
    // combiner on the vectors: no reduction left.
    vector::MultiDimReductionOp::getCanonicalizationPatterns(patterns,
                                                             getContext());
    vector::populateVectorTransferDropUnitDimsPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorTransferLoweringPatterns(patterns, 1);
    tirx::populateFoldViewPatterns(patterns);
    // Through the transform rewriter's listener: ops the patterns replace
    // or erase must leave the transform state's handles too.
    GreedyRewriteConfig config;
    config.setListener(
        static_cast<RewriterBase::Listener *>(rewriter.getListener()));
    (void)applyPatternsGreedily(func, std::move(patterns), config);
    // A broadcast input (one scalar per vector) is read as a 0-d vector,
    // which the LLVM lowering lacks: a scalar load, broadcast.
    SmallVector<vector::LoadOp> scalarLoads;
    func->walk([&](vector::LoadOp load) {
      if (load.getVectorType().getRank() == 0 &&
          llvm::all_of(load->getUsers(), [](Operation *u) {
            return isa<vector::BroadcastOp>(u);
          }))
        scalarLoads.push_back(load);
    });
    for (vector::LoadOp load : scalarLoads) {
      rewriter.setInsertionPoint(load);
      Value scalar = memref::LoadOp::create(rewriter, load.getLoc(),
                                            load.getBase(), load.getIndices());
      for (Operation *user : llvm::make_early_inc_range(load->getUsers())) {
        auto broadcast = cast<vector::BroadcastOp>(user);
        rewriter.setInsertionPoint(broadcast);
        rewriter.replaceOp(broadcast,
                           vector::BroadcastOp::create(
                               rewriter, broadcast.getLoc(),
                               broadcast.getResultVectorType(), scalar));
      }
      rewriter.eraseOp(load);
    }
    // A row's statistic reaches the row's vectors as a broadcast: the
    // arithmetic on broadcasts alone (RMSNorm's rsqrt(sum / n + eps), layer
    // norm's rstd) runs once on the scalar and is broadcast after, not once
    // per lane (rmsnorm_bf16: eight rsqrt a thread instead of one).
    {
      RewritePatternSet sink(getContext());
      vector::populateSinkVectorOpsPatterns(sink);
      (void)applyPatternsGreedily(func, std::move(sink), config);
    }
    tirx::annotateVectorAlignment(func);
    // The promise kept: every full-width access of the thread's loop has
    // the alignment of its size.
    Operation *unaligned = nullptr;
    if (threadLoop && ranges[inner] >= width)
      threadLoop->walk([&](Operation *op) {
        auto check = [&](auto access, VectorType type) {
          if (type.getNumElements() != width ||
              !type.getElementType().isIntOrFloat() ||
              tirx::memorySpaceName(access.getBase().getType()) != "global")
            return;
          uint64_t element =
              std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
          uint64_t need = std::min<uint64_t>(16, element * width);
          if (need > element && access.getAlignment().value_or(element) < need)
            unaligned = op;
        };
        if (auto load = dyn_cast<vector::LoadOp>(op))
          check(load, load.getVectorType());
        else if (auto store = dyn_cast<vector::StoreOp>(op))
          check(store, store.getVectorType());
      });
    // The target itself is gone (vectorized): the refusal names the
    // access's thread loop.
    if (unaligned)
      return reject(self, threadLoop, RefusalCode::misaligned,
                    tirx::irPath(unaligned) +
                        " is a vector access of unproven alignment: it "
                        "would lower to scalar accesses",
                    "use a smaller width, or tile so that offsets are "
                    "multiples of the width");
  }
  return DiagnosedSilenceableFailure::success();
}

//===----------------------------------------------------------------------===//
// unroll
//===----------------------------------------------------------------------===//

LogicalResult tirx::UnrollOp::verify() {
  if (getFactor() < 2 || getFactor() > 64)
    return detail::invalidParameter(*this, "factor must lie in [2, 64], "
                            "got " + Twine(getFactor()));
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
  std::optional<int64_t> tripCount = staticTripCount(loop);
  if (!tripCount)
    return reject(self, target, RefusalCode::unknown_trip_count,
                  "the loop's trip count is not static: a tail could remain");
  int64_t trips = *tripCount;
  if (trips % getFactor() != 0)
    return reject(self, target, RefusalCode::not_divisible,
                  "factor " + Twine(getFactor()) +
                      " does not divide the trip count " + Twine(trips) +
                      ": a tail would be left",
                  divisorsHint(trips, getFactor(), 64, false));
  if (failed(loopUnrollByFactor(loop, getFactor())))
    return reject(self, target, RefusalCode::not_applicable, "unrolling failed");
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
  if (!isa<linalg::LinalgOp>(target))
    return wrongTarget(self, target, "a linalg op");
  auto linalgOp = cast<linalg::LinalgOp>(target);
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<bool> seen(linalgOp.getNumLoops(), false);
  bool valid = perm.size() == linalgOp.getNumLoops();
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= int64_t(seen.size()) || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return reject(self, target, RefusalCode::bad_permutation,
                  "the permutation must order all " +
                      Twine(linalgOp.getNumLoops()) + " loops exactly once");
  // A named op (linalg.matmul, linalg.transpose) has fixed maps: its
  // generic form is what gets its loops reordered.
  auto generic = dyn_cast<linalg::GenericOp>(generalized(rewriter, target));
  if (!generic)
    return reject(self, target, RefusalCode::not_applicable,
                  "the named op has no linalg.generic form");
  SmallVector<unsigned> order(perm.begin(), perm.end());
  FailureOr<linalg::GenericOp> result =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(result))
    return reject(self, target, RefusalCode::not_applicable, "interchange failed");
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
    return reject(self, target, RefusalCode::barrier_needed,
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
    return reject(self, target, RefusalCode::nothing_to_peel,
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
  if (DiagnosedSilenceableFailure check = requireTiling(self, target);
      !check.succeeded())
    return check;
  ArrayRef<int64_t> sizes = getTileSizes();
  SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
  auto iterators = linalgOp.getIteratorTypesArray();
  if (sizes.size() > ranges.size() ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return reject(self, target, RefusalCode::invalid_parameter,
                  "give one non-negative size per loop (" +
                      Twine(ranges.size()) + " loops), at least one positive");
  for (auto [i, size] : llvm::enumerate(sizes)) {
    if (size == 0)
      continue;
    if (iterators[i] != utils::IteratorType::reduction)
      return reject(self, target, RefusalCode::not_reduction,
                    "loop " + Twine(i) + " is parallel",
                    "tile parallel loops with tile_to_blocks or "
                    "tile_to_threads");
  }
  // A size that does not divide its extent leaves a tail: the op is split
  // into the whole tiles (tiled) and the rest (one op after the loop), in
  // that order, so the reduction combines in the same order. One such loop,
  // on buffers, with a tile no larger than the extent.
  SmallVector<unsigned> tails;
  for (auto [i, size] : llvm::enumerate(sizes))
    if (size && !ShapedType::isDynamic(ranges[i]) && ranges[i] % size != 0)
      tails.push_back(i);
  if (!tails.empty() &&
      (tails.size() > 1 || !linalgOp.hasPureBufferSemantics() ||
       ranges[tails.front()] < sizes[tails.front()])) {
    unsigned i = tails.front();
    return reject(self, target, RefusalCode::not_divisible,
                  "tile size " + Twine(sizes[i]) +
                      " does not divide the extent " + Twine(ranges[i]) +
                      " of loop " + Twine(i) +
                      (tails.size() > 1
                           ? ", nor do others: a tail is taken in one loop"
                           : ranges[i] < sizes[i]
                                 ? ", and is larger than it"
                                 : ", and the op is not on buffers"),
                  divisorsHint(ranges[i], sizes[i], 1 << 30, false));
  }
  Operation *toTile = target;
  if (!tails.empty())
    toTile = tirx::peelTail(rewriter, linalgOp, tails.front(),
                            sizes[tails.front()], /*markTail=*/false)
                 .first;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(getContext(), sizes));
  rewriter.setInsertionPoint(toTile);
  auto tiled = scf::tileUsingSCF(rewriter, cast<TilingInterface>(toTile),
                                 options);
  if (failed(tiled) || tiled->loops.empty())
    return reject(self, target, RefusalCode::not_applicable, "tiling failed");
  if (toTile->getNumResults())
    rewriter.replaceOp(toTile, tiled->replacements);
  else
    rewriter.eraseOp(toTile);
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
    return detail::invalidParameter(*this, "padding must lie in [0, 64], "
                            "got " + Twine(padding));
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
  if (!insideMapping(target, MappingKind::Block))
    return reject(self, target, RefusalCode::bad_order,
                  "shared memory belongs to a block: the target is not "
                  "inside a forall mapped to blocks",
                  "apply tile_to_blocks first");
  int64_t total = 0;
  int64_t limit = getMaxSharedBytes();
  for (int64_t index : getOperands()) {
    if (index < 0 || index >= int64_t(target->getNumOperands()))
      return reject(self, target, RefusalCode::invalid_parameter,
                    "operand " + Twine(index) + " does not exist (the op has " +
                        Twine(target->getNumOperands()) + ")");
    Value operand = target->getOperand(index);
    auto subview = operand.getDefiningOp<memref::SubViewOp>();
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!subview || !type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return reject(self, target, RefusalCode::not_a_tile,
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
    return reject(self, target, RefusalCode::exceeds_smem,
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
    return reject(self, target, RefusalCode::not_applicable,
                  "the op's operands cannot be promoted");
  rewriter.setInsertionPoint(target);
  // The block's forall: the buffers belong inside it (inside the launch
  // once mapped), not at the function entry where upstream puts them.
  scf::ForallOp blockLoop;
  for (auto f = target->getParentOfType<scf::ForallOp>(); f;
       f = f->getParentOfType<scf::ForallOp>())
    if (mapsTo(f, MappingKind::Block))
      blockLoop = f;
  auto func = target->getParentOfType<FunctionOpInterface>();
  llvm::SmallPtrSet<Operation *, 8> before;
  if (func)
    func->walk([&](memref::AllocOp a) { before.insert(a); });
  // linalg.transpose, broadcast, reduce and map verify their operands'
  // sizes against each other (dim(result, 0) = dim(input, permutation[0])),
  // which the promoted views of dynamic size fail until canonicalized:
  // promote their generic form. (A matmul stays one: use_mma needs it.)
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::ReduceOp,
          linalg::MapOp>(target)) {
    linalgOp = cast<linalg::LinalgOp>(generalized(rewriter, target));
    rewriter.setInsertionPoint(linalgOp);
  }
  FailureOr<linalg::LinalgOp> promoted =
      linalg::promoteSubViews(rewriter, linalgOp, options);
  if (failed(promoted))
    return reject(self, target, RefusalCode::not_applicable, "promotion failed");
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
