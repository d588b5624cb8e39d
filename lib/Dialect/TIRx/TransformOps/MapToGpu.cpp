//===- MapToGpu.cpp - map_to_gpu --------------------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

#include "tirx/Analysis/Access.h"

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
                    tirx::irPath(racy) + " reads and writes its output "
                                         "outside a forall mapped to threads: "
                                         "every thread of the block would "
                                         "update the same elements at once",
                    "tile it with tile_to_threads (a thread per output "
                    "element)");
  }

  // Each kernel's block: the given dims, or by default what its thread or
  // warp foralls need. Everything is checked before anything changes.
  SmallVector<SmallVector<int64_t>> blockDims;
  for (scf::ForallOp block : blocks) {
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
        return reject(self, block, RefusalCode::block_too_small, problem, "try " + hint);
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
