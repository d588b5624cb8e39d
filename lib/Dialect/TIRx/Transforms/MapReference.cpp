//===- MapReference.cpp - tirx-map-reference --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The reference a candidate is checked against must not share the
// candidate's schedule: it is the seed payload mapped one element per
// thread by upstream's parallel-loop-to-GPU conversion, the innermost
// dimension on x (upstream's greedy mapper puts the outermost on x, which
// gives a 3-D nest a block of 1 x 1 x 256 threads: over the z limit of 64). A tensor seed is bufferized first,
// as the bufferize action does it, so that the reference's parameters are
// those of the candidates made from it.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "tirx/Dialect/TIRx/Transforms/Sizes.h"
#include "tirx/Runtime/Manifest.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXMAPREFERENCE
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
/// The trip count of each dimension of \p loop, where it is constant.
SmallVector<std::optional<int64_t>> tripCounts(scf::ParallelOp loop) {
  SmallVector<std::optional<int64_t>> counts;
  for (unsigned i = 0, e = loop.getNumLoops(); i < e; ++i) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[i]);
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[i]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i]);
    counts.push_back(std::nullopt);
    if (lb && ub && step && *step > 0)
      counts.back() = std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
  }
  return counts;
}

/// Maps the dimensions of \p loop (of trip counts \p counts) from the
/// innermost out onto x, y, z of blocks (or threads); the others, and a
/// dimension over the hardware's limit or of unknown trip count (but for
/// the blocks' x), run sequentially, as do nested parallel loops.
void mapInnermostOnX(scf::ParallelOp loop,
                     ArrayRef<std::optional<int64_t>> counts, bool threads) {
  MLIRContext *ctx = loop.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  unsigned n = loop.getNumLoops();
  SmallVector<gpu::ParallelLoopDimMappingAttr> dims;
  for (unsigned i = 0; i < n; ++i) {
    unsigned fromInner = n - 1 - i;
    auto processor = gpu::Processor::Sequential;
    if (fromInner < 3) {
      // CUDA's limits along x, y and z (x the innermost loop).
      int64_t limit = threads ? ::tirx::runtime::kBlockMax[fromInner]
                              : ::tirx::runtime::kGridMax[fromInner];
      bool fits = counts[i] ? *counts[i] <= limit : (!threads && fromInner == 0);
      if (fits)
        processor = static_cast<gpu::Processor>(
            (threads ? unsigned(gpu::Processor::ThreadX) : 0u) + fromInner);
    }
    dims.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, processor, id, id));
  }
  (void)gpu::setMappingAttr(loop, dims);
}

/// Marks tirx.role = "out" on each buffer argument of `func` whose first
/// use, in the order the function runs, is a linalg.fill of all of it: the
/// seed never reads what the caller put there (a fresh output, as front
/// ends emit one). The reference reads it back after its fill, so its
/// memory effects alone would say inout; a schedule that starts its
/// outputs itself (reduce_in_block taking the fill over) only writes it.
void markWrittenFirst(func::FuncOp func) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<MemRefType>(arg.getType()) || func.getArgAttr(arg.getArgNumber(),
                                                           "tirx.role"))
      continue;
    Operation *first = nullptr;
    for (Operation *user : arg.getUsers()) {
      Operation *at = entry.findAncestorOpInBlock(*user);
      if (at && (!first || at->isBeforeInBlock(first)))
        first = at;
    }
    auto fill = dyn_cast_or_null<linalg::FillOp>(first);
    if (fill && fill.hasPureBufferSemantics() &&
        fill.getDpsInitOperand(0)->get() == arg)
      func.setArgAttr(arg.getArgNumber(), "tirx.role",
                      StringAttr::get(func.getContext(), "out"));
  }
}

struct MapReferencePass
    : public mlir::tirx::impl::TIRxMapReferenceBase<MapReferencePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, scf::SCFDialect, func::FuncDialect,
                    bufferization::BufferizationDialect, memref::MemRefDialect,
                    linalg::LinalgDialect>();
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createConvertLinalgToParallelLoopsPass());
    pm.addPass(createConvertParallelLoopToGpuPass());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (blockSize < 1 || blockSize > 1024) {
      module.emitError() << "tirx-map-reference: block-size must be 1 to "
                            "1024, got "
                         << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    bool mapped = false;
    module.walk([&](Operation *op) {
      if (isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op))
        mapped = true;
    });
    if (mapped) {
      module.emitError() << "tirx-map-reference: the payload is already "
                            "mapped to the GPU; the reference is made from "
                            "the seed (unmapped) version";
      return signalPassFailure();
    }

    // The broadcasts kept: the candidates' fold is not shared.
    if (mlir::tirx::findTensorUse(module))
      if (llvm::Error e = mlir::tirx::bufferizePayload(module,
                                                 /*foldBroadcasts=*/false)) {
        module.emitError() << "tirx-map-reference: the tensor seed does not "
                              "bufferize: "
                           << llvm::toString(std::move(e));
        return signalPassFailure();
      }

    // A buffer seed of dynamic shape: its sizes named as the candidates'.
    mlir::tirx::nameDynamicSizes(module);
    module.walk([](func::FuncOp func) { markWrittenFirst(func); });

    // The longest sum of the payload, for the check's tolerance (the
    // bundle's manifest carries it as reduction_length).
    int64_t terms = 0;
    module.walk([&](linalg::LinalgOp op) {
      int64_t product = 1;
      for (auto [range, kind] : llvm::zip(op.getStaticLoopRanges(),
                                          op.getIteratorTypesArray()))
        if (kind == utils::IteratorType::reduction)
          product = ShapedType::isDynamic(range) ? product : product * range;
      terms = std::max(terms, product);
    });
    if (terms > 1)
      module->setAttr("tirx.reduction_length",
                      IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                       terms));

    OpPassManager toLoops(ModuleOp::getOperationName());
    toLoops.addPass(createConvertLinalgToParallelLoopsPass());
    if (failed(runPipeline(toLoops, module)))
      return signalPassFailure();

    // Tile the innermost dimension of each outermost nest by blockSize.
    SmallVector<scf::ParallelOp> outermost;
    module.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost) {
      SmallVector<int64_t> sizes(loop.getNumLoops(), 1);
      sizes.back() = blockSize;
      // Constant inner bounds and an scf.if guard: the GPU mapping needs a
      // static thread count.
      SmallVector<std::optional<int64_t>> blocks = tripCounts(loop);
      for (auto [count, size] : llvm::zip(blocks, sizes))
        if (count)
          *count = (*count + size - 1) / size;
      auto [outer, inner] =
          scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
      mapInnermostOnX(outer, blocks, /*threads=*/false);
      // The tile loop runs `size` iterations of the original step.
      SmallVector<std::optional<int64_t>> threads(sizes.begin(), sizes.end());
      mapInnermostOnX(inner, threads, /*threads=*/true);
      inner.getBody()->walk([&](scf::ParallelOp nested) {
        SmallVector<gpu::ParallelLoopDimMappingAttr> seq(
            nested.getNumLoops(),
            gpu::ParallelLoopDimMappingAttr::get(
                nested.getContext(), gpu::Processor::Sequential,
                AffineMap::getMultiDimIdentityMap(1, nested.getContext()),
                AffineMap::getMultiDimIdentityMap(1, nested.getContext())));
        (void)gpu::setMappingAttr(nested, seq);
      });
    }

    OpPassManager toGpu(ModuleOp::getOperationName());
    toGpu.addPass(createConvertParallelLoopToGpuPass());
    toGpu.addPass(createCanonicalizerPass());
    if (failed(runPipeline(toGpu, module)))
      return signalPassFailure();

    // A view of a buffer (a reshape) is read inside the kernel, not passed
    // to it: the bundle passes the payload's buffers.
    mlir::tirx::sinkViewsIntoLaunches(module);

    // convert-parallel-loops-to-gpu leaves what it cannot map in place.
    WalkResult left = module.walk([&](scf::ParallelOp loop) {
      loop.emitError() << "tirx-map-reference: this loop nest could not be "
                          "mapped to the GPU";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
