//===- TensorMapParams.cpp - tirx-tensor-map-params -------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Kernel parameters of type !nvgpu.tensormap.descriptor as !llvm.ptr (see
// Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXTENSORMAPPARAMS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
struct TensorMapParamsPass
    : public tirx::impl::TIRxTensorMapParamsBase<TensorMapParamsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    SymbolTableCollection symbols;
    // The launches first: each casts its descriptors to pointers.
    module.walk([&](gpu::LaunchFuncOp launch) {
      OpBuilder b(launch);
      for (OpOperand &operand : launch.getKernelOperandsMutable())
        if (isa<nvgpu::TensorMapDescriptorType>(operand.get().getType()))
          operand.set(UnrealizedConversionCastOp::create(
                          b, launch.getLoc(), TypeRange{ptr}, operand.get())
                          .getResult(0));
    });
    module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      Block &entry = func.getBody().front();
      OpBuilder b = OpBuilder::atBlockBegin(&entry);
      SmallVector<Type> inputs(func.getArgumentTypes());
      for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
        auto type = dyn_cast<nvgpu::TensorMapDescriptorType>(arg.getType());
        if (!type)
          continue;
        arg.setType(ptr);
        inputs[i] = ptr;
        auto cast = UnrealizedConversionCastOp::create(b, func.getLoc(),
                                                       TypeRange{type}, arg);
        arg.replaceAllUsesExcept(cast.getResult(0), cast);
      }
      func.setFunctionType(
          FunctionType::get(&getContext(), inputs,
                            func.getFunctionType().getResults()));
    });
  }
};
} // namespace
