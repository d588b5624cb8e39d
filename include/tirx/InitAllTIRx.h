//===- InitAllTIRx.h - register everything of TIRx --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The one registration point: every tool (tirx-opt, the plugin, tests) calls
// these, so that all of them see the same dialects, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_INITALLTIRX_H
#define TIRX_INITALLTIRX_H

#include "tirx/Dialect/TIRx/IR/TIRxAttrs.h"
#include "tirx/Dialect/TIRx/IR/TIRxDialect.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

namespace mlir {
namespace tirx {

/// Adds the TIRx dialects and extensions to `registry`.
inline void registerAllTIRxDialects(DialectRegistry &registry) {
  registry.insert<TIRxDialect>();
  registerTransformDialectExtension(registry);
}

/// Everything a TIRx tool needs to read, transform and lower a payload:
/// every upstream dialect and extension, the GPU-to-LLVM-IR translations
/// (without them gpu-module-to-binary fails) and TIRx.
inline void registerTIRxToolDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  registerAllTIRxDialects(registry);
}

/// Registers the TIRx passes (and so the tirx-lower-to-nvvm pipeline) with
/// the global pass registry.
inline void registerAllTIRxPasses() { registerTIRxPasses(); }

} // namespace tirx
} // namespace mlir

#endif // TIRX_INITALLTIRX_H
