//===- MapReference.cpp - tirx-map-reference --------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The reference a candidate is checked against must not share the
// candidate's schedule: it is the seed payload mapped by upstream's greedy
// loop mapper, one element per thread. A tensor seed is bufferized first,
// as the bufferize action does it, so that the reference's parameters are
// those of the candidates made from it.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
struct MapReferencePass
    : public mlir::tirx::impl::TIRxMapReferenceBase<MapReferencePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, scf::SCFDialect, func::FuncDialect,
                    bufferization::BufferizationDialect, memref::MemRefDialect,
                    linalg::LinalgDialect>();
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createConvertLinalgToParallelLoopsPass());
    pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
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

    if (tirx::findTensorUse(module))
      if (llvm::Error e = tirx::bufferizePayload(module)) {
        module.emitError() << "tirx-map-reference: the tensor seed does not "
                              "bufferize: "
                           << llvm::toString(std::move(e));
        return signalPassFailure();
      }

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
      scf::tileParallelLoop(loop, sizes, /*noMinMaxBounds=*/true);
    }

    OpPassManager toGpu(ModuleOp::getOperationName());
    toGpu.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
    toGpu.addPass(createConvertParallelLoopToGpuPass());
    toGpu.addPass(createCanonicalizerPass());
    if (failed(runPipeline(toGpu, module)))
      return signalPassFailure();

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
