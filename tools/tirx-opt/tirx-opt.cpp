//===- tirx-opt.cpp - mlir-opt with everything of TIRx ----------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"
#include "tirx/Version.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

// The multicall binary of `make pack` compiles this file with
// TIRX_OPT_MAIN=tirxOptMain and dispatches to it (tools/pack/multicall.cpp).
#ifndef TIRX_OPT_MAIN
#define TIRX_OPT_MAIN main
#endif

int TIRX_OPT_MAIN(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tirx::registerTIRxToolDialects(registry);
  mlir::registerAllPasses();
  mlir::tirx::registerAllTIRxPasses();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tirx-opt (TIRx) " TIRX_VERSION_STRING "\n"
       << "  built with LLVM/MLIR " LLVM_VERSION_STRING "\n";
  });

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TIRx optimizer driver\n", registry));
}
