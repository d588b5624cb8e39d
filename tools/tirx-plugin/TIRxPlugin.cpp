//===- TIRxPlugin.cpp - TIRx as a plugin of mlir-opt-22 ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//   mlir-opt-22 --load-dialect-plugin=libTIRxPlugin.so file.mlir
//   mlir-opt-22 --load-pass-plugin=libTIRxPlugin.so \
//               --pass-pipeline='builtin.module(tirx-lower-to-nvvm)' file.mlir
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TIRx", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            tirx::registerAllTIRxDialects(*registry);
            tirx::registerAllTIRxPasses();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TIRxPasses", LLVM_VERSION_STRING,
          []() { tirx::registerAllTIRxPasses(); }};
}
