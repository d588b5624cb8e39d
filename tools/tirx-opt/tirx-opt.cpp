//===- tirx-opt.cpp - mlir-opt with everything of TIRx ----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // Without these, gpu-module-to-binary cannot translate to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::registerAllPasses();

  mlir::tirx::registerAllTIRxDialects(registry);
  mlir::tirx::registerAllTIRxPasses();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TIRx optimizer driver\n", registry));
}
