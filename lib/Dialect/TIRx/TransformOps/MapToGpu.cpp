//===- MapToGpu.cpp - map_to_gpu --------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tirx/Analysis/Access.h"
#include "tirx/Runtime/Manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/TransformOps/GPUTransformOps.h"
#include "mlir/Dialect/GPU/TransformOps/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

//===----------------------------------------------------------------------===//
// map_to_gpu
//===----------------------------------------------------------------------===//

LogicalResult mlir::tirx::MapToGpuOp::verify() {
  ArrayRef<int64_t> dims = getBlockDims();
  int64_t total = 1;
  for (int64_t d : dims)
    total *= std::max<int64_t>(d, 1);
  if (dims.empty())
    return success(); // each kernel gets the threads its foralls need
  if (dims.size() > 3 ||
      llvm::any_of(dims, [](int64_t d) { return d < 1 || d > 1024; }) ||
      total > 1024)
    return detail::invalidParameter(*this, "block_dims must be 1 to 3 "
                            "sizes in [1, 1024], at most 1024 threads in all "
                            "(or none)");
  return success();
}

namespace {
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
    if (mapsTo(nested, MappingKind::Warp)) {
      need.warpThreads = 32;
      for (int64_t ub : ubs)
        need.warpThreads *= ub;
    } else if (mapsTo(nested, MappingKind::Thread)) {
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

/// Maps `block`, a normalized forall whose iteration counts may be known
/// at run time only, onto the blocks of `launch`: each index becomes the
/// block id of its mapping's dimension, the body is inlined in its place.
/// Returns the grid (x, y, z), or failure where the forall is not a
/// one-to-one mapping of normalized dimensions.
FailureOr<SmallVector<Value>> mapDynamicBlocks(RewriterBase &rewriter,
                                               scf::ForallOp block,
                                               mlir::gpu::LaunchOp launch) {
  if (!block.isNormalized() || !block.getMapping() ||
      block.getNumResults() != 0)
    return failure();
  Location loc = block.getLoc();
  rewriter.setInsertionPoint(launch);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> grid = {one, one, one};
  SmallVector<std::optional<mlir::gpu::Dimension>> dims;
  bool seen[3] = {false, false, false};
  for (auto [ub, attr] :
       llvm::zip(block.getMixedUpperBound(), *block.getMapping())) {
    auto id = dyn_cast<mlir::gpu::GPUBlockMappingAttr>(attr);
    if (!id || id.getMappingId() > int64_t(mlir::gpu::MappingId::DimZ))
      return failure();
    unsigned d = unsigned(id.getMappingId());
    if (seen[d])
      return failure();
    seen[d] = true;
    grid[d] = getValueOrCreateConstantIndexOp(rewriter, loc, ub);
    dims.push_back(static_cast<mlir::gpu::Dimension>(d));
  }
  rewriter.setInsertionPoint(block);
  SmallVector<Value> ids;
  for (std::optional<mlir::gpu::Dimension> d : dims)
    ids.push_back(mlir::gpu::BlockIdOp::create(rewriter, loc, *d));
  rewriter.eraseOp(block.getBody()->getTerminator());
  rewriter.inlineBlockBefore(block.getBody(), block, ids);
  rewriter.eraseOp(block);
  return grid;
}

std::string dimsText(ArrayRef<int64_t> d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
         std::to_string(d[2]);
}

/// CUDA's limits on a grid, which tirx-run checks a bundle against: up to
/// 2^31 - 1 blocks along x, 65535 along y and z.
constexpr const int64_t (&kGridLimit)[3] = ::tirx::runtime::kGridMax;
constexpr const char *kGridDimName[3] = {"x", "y", "z"};

/// The mapping under which the grid of `block` keeps to CUDA's limits: its
/// own, or, where one of its loops has more blocks than y or z take, that
/// loop on x and x's loop on its dimension (tile_to_blocks puts the
/// innermost loop on x, a 131072 x 1024 op tiled [1, 1024] its 131072
/// rows on y). A loop's dimension decides which block id it reads, not
/// what a block computes. Refuses, before anything changes, where no such
/// exchange fits: two loops of more than 65535 blocks, one of more than
/// 2^31 - 1, or x's loop of run-time count. Loops of run-time count are
/// checked by tirx-run when the sizes are bound; a linear mapping is
/// upstream's.
DiagnosedSilenceableFailure fitGridLimits(TransformOpInterface self,
                                          scf::ForallOp block,
                                          ArrayAttr &mapping) {
  mapping = block.getMappingAttr();
  if (!mapping || block.usesLinearMapping())
    return DiagnosedSilenceableFailure::success();
  SmallVector<int64_t> dims; // per loop: 0, 1, 2 for x, y, z
  for (Attribute attr : mapping) {
    // Another mapping: upstream says what it cannot map.
    auto id = dyn_cast<mlir::gpu::GPUBlockMappingAttr>(attr);
    if (!id || id.getMappingId() > int64_t(mlir::gpu::MappingId::DimZ))
      return DiagnosedSilenceableFailure::success();
    dims.push_back(int64_t(id.getMappingId()));
  }
  SmallVector<std::optional<int64_t>> counts;
  for (auto [lb, ub, step] :
       llvm::zip(block.getMixedLowerBound(), block.getMixedUpperBound(),
                 block.getMixedStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb),
                           u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (l && u && s && *s > 0)
      counts.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
    else
      counts.push_back(std::nullopt);
  }
  auto loopText = [&](size_t i) {
    return "loop " + std::to_string(i) + " (block " + kGridDimName[dims[i]] +
           ")";
  };
  // The loops with more blocks than y and z take: at most one, on x.
  SmallVector<size_t> large;
  for (auto [i, count] : llvm::enumerate(counts))
    if (count && *count > kGridLimit[1])
      large.push_back(i);
  if (large.empty())
    return DiagnosedSilenceableFailure::success();
  size_t big = large.front();
  std::string limits = "CUDA launches at most " +
                       std::to_string(kGridLimit[1]) +
                       " blocks along y and z, " +
                       std::to_string(kGridLimit[0]) + " along x";
  if (*counts[big] > kGridLimit[0])
    return reject(self, block, RefusalCode::too_many_blocks,
                  mlir::tirx::irPath(block) + " has " +
                      std::to_string(*counts[big]) + " blocks along its " +
                      loopText(big) + ": " + limits,
                  "use larger tiles along that loop (tile_to_blocks)");
  if (large.size() > 1)
    return reject(self, block, RefusalCode::too_many_blocks,
                  mlir::tirx::irPath(block) + " has " +
                      std::to_string(*counts[large[0]]) +
                      " blocks along its " + loopText(large[0]) + " and " +
                      std::to_string(*counts[large[1]]) + " along its " +
                      loopText(large[1]) + ": " + limits +
                      ", and one loop only can go to x",
                  "use larger tiles along one of those loops "
                  "(tile_to_blocks)");
  if (dims[big] == 0)
    return DiagnosedSilenceableFailure::success();
  auto onX = llvm::find(dims, 0);
  if (onX != dims.end()) {
    size_t x = onX - dims.begin();
    if (!counts[x])
      return reject(self, block, RefusalCode::too_many_blocks,
                    mlir::tirx::irPath(block) + " has " +
                        std::to_string(*counts[big]) + " blocks along its " +
                        loopText(big) + ": " + limits + "; x holds its " +
                        loopText(x) + ", whose count is known at run time "
                        "only, and may be more than y takes",
                    "use larger tiles along " + loopText(big) +
                        " (tile_to_blocks)");
    *onX = dims[big];
  }
  dims[big] = 0;
  SmallVector<Attribute> attrs;
  for (int64_t d : dims)
    attrs.push_back(mlir::gpu::GPUBlockMappingAttr::get(
        block.getContext(), static_cast<mlir::gpu::MappingId>(d)));
  mapping = ArrayAttr::get(block.getContext(), attrs);
  return DiagnosedSilenceableFailure::success();
}
} // namespace

DiagnosedSilenceableFailure
mlir::tirx::MapToGpuOp::applyToOne(TransformRewriter &rewriter, Operation *target,
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
    if (mapsTo(forall, MappingKind::Block))
      blocks.push_back(forall);
    return WalkResult::skip();
  });
  if (blocks.empty())
    return reject(self, target, RefusalCode::bad_order,
                  "no scf.forall mapped to blocks in the target",
                  "apply tile_to_blocks first");
  // Outside the foralls mapped to threads or warps, every thread of the
  // block runs an op: one that reads what it writes (a reduction's
  // accumulator in shared memory, an in-place update of global memory)
  // would have them all update the same elements at once. (One that only
  // writes, a row's epilogue on the block's result, writes the same values
  // from every thread.)
  for (scf::ForallOp block : blocks) {
    Operation *racy = nullptr;
    block.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto nested = dyn_cast<scf::ForallOp>(op))
        if (mapsTo(nested, MappingKind::Thread) || mapsTo(nested, MappingKind::Warp))
          return WalkResult::skip();
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      if (!linalgOp || !linalgOp.hasPureBufferSemantics())
        return WalkResult::advance();
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        if (linalgOp.payloadUsesValueFromOperand(&init)) {
          racy = op;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (racy)
      return reject(self, racy, RefusalCode::shared_race,
                    mlir::tirx::irPath(racy) + " reads and writes its output "
                                         "outside a forall mapped to threads: "
                                         "every thread of the block would "
                                         "update the same elements at once",
                    "tile it with tile_to_threads (a thread per output "
                    "element)");
  }

  // Each kernel's block: the given dims, or by default what its thread or
  // warp foralls need. Everything is checked before anything changes.
  SmallVector<SmallVector<int64_t>> blockDims;
  SmallVector<ArrayAttr> gridMappings;
  for (scf::ForallOp block : blocks) {
    ArrayAttr gridMapping;
    if (DiagnosedSilenceableFailure fits =
            fitGridLimits(self, block, gridMapping);
        !fits.succeeded())
      return fits;
    gridMappings.push_back(gridMapping);
    SmallVector<ThreadsNeeded> needs = threadsNeeded(block);
    SmallVector<int64_t> dims(getBlockDims());
    if (dims.empty()) {
      if (needs.empty())
        return reject(self, block, RefusalCode::bad_order,
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
        return reject(self, block, RefusalCode::block_too_small,
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
        problem = mlir::tirx::irPath(n.forall) + " has " +
                  std::to_string(n.warpThreads / 32) + " warps: " +
                  std::to_string(n.warpThreads) + " threads, the block " +
                  std::to_string(total);
        hint = "block_dims [" + std::to_string(n.warpThreads) + "]";
      } else if (n.dims[0] > dims[0] || n.dims[1] > dims[1] ||
                 n.dims[2] > dims[2]) {
        problem = mlir::tirx::irPath(n.forall) + " needs " + dimsText(n.dims) +
                  " threads; block_dims give " + dimsText(dims);
        hint = "block_dims [" + std::to_string(std::max(n.dims[0], dims[0])) +
               ", " + std::to_string(std::max(n.dims[1], dims[1])) + ", " +
               std::to_string(std::max(n.dims[2], dims[2])) +
               "], or none (each kernel its own)";
      }
      if (!problem.empty())
        return reject(self, block, RefusalCode::block_too_small, problem, "try " + hint);
    }
    blockDims.push_back(dims);
  }

  MLIRContext *ctx = getContext();
  for (auto [block, dims, gridMapping] :
       llvm::zip(blocks, blockDims, gridMappings)) {
    if (gridMapping != block.getMappingAttr())
      rewriter.modifyOpInPlace(block,
                               [&] { block.setMappingAttr(gridMapping); });
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
    DiagnosedSilenceableFailure mapped = DiagnosedSilenceableFailure::success();
    if (llvm::any_of(block.getStaticUpperBound(), ShapedType::isDynamic)) {
      // A grid of run-time size (a forall over ceil(N / tile) blocks):
      // upstream maps static foralls only.
      FailureOr<SmallVector<Value>> grid = mapDynamicBlocks(rewriter, block,
                                                           launch);
      if (failed(grid))
        return reject(self, block, RefusalCode::not_applicable,
                      "the block forall of run-time size is not normalized, "
                      "or maps a dimension twice");
      rewriter.modifyOpInPlace(launch, [&] {
        launch.getGridSizeXMutable().assign((*grid)[0]);
        launch.getGridSizeYMutable().assign((*grid)[1]);
        launch.getGridSizeZMutable().assign((*grid)[2]);
      });
      // Where the thread mapping creates values every kernel op may use.
      rewriter.setInsertionPoint(launch);
    } else {
      FailureOr<DeviceMaskingAttrInterface> mask = block.getDeviceMaskingAttr();
      if (failed(mask))
        return reject(self, block, RefusalCode::not_applicable,
                      "the block forall's mapping has an invalid mask");
      transform::gpu::GpuBlockIdBuilder ids(ctx, block.usesLinearMapping(),
                                            *mask);
      SmallVector<int64_t> grid;
      mapped = transform::gpu::mapForallToBlocksImpl(rewriter, self, block,
                                                     grid, ids);
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
    }
    mapped = transform::gpu::mapNestedForallToThreadsImpl(
        rewriter, self, launch, dims, /*warpSize=*/32,
        /*syncAfterDistribute=*/false);
    if (!mapped.succeeded())
      return mapped;
  }
  return DiagnosedSilenceableFailure::success();
}
