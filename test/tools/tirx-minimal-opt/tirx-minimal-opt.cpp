//===- tirx-minimal-opt.cpp - TIRx over a minimal registry ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A test tool: mlir-opt with only the payload dialects of a plain linalg
// program (func, arith, linalg, memref), the transform dialect with
// transform.structured.match, and TIRx's transform ops. It checks that the
// transform.tirx ops work, or refuse clearly, in a tool that registers far
// less than tirx-opt's registerTIRxToolDialects.
//
// --tirx-ops-only registers the ops without the external interface models
// that tirx::registerTransformDialectExtension adds, as a tool that builds
// its registry by hand might: the ops then refuse with missing_interface.
//
//===----------------------------------------------------------------------===//

#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/TransformOps/DialectExtension.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cstring>

int main(int argc, char **argv) {
  bool opsOnly = false;
  // The flag is ours, not MlirOptMain's: take it out of argv.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tirx-ops-only") == 0)
      opsOnly = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;

  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::linalg::LinalgDialect, mlir::memref::MemRefDialect,
                  mlir::transform::TransformDialect>();
  mlir::linalg::registerTransformDialectExtension(registry);
  if (opsOnly)
    mlir::tirx::registerTransformOps(registry);
  else
    mlir::tirx::registerTransformDialectExtension(registry);
  mlir::transform::registerTransformPasses();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "TIRx over a minimal registry (a test tool)\n", registry));
}
