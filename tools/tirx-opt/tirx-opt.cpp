//===- tirx-opt.cpp - mlir-opt with everything of TIRx ----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tirx::registerTIRxToolDialects(registry);
  mlir::registerAllPasses();
  mlir::tirx::registerAllTIRxPasses();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TIRx optimizer driver\n", registry));
}
