//===- TIRxPlugin.cpp - TIRx as a plugin of mlir-opt-22 ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//   mlir-opt-22 --load-dialect-plugin=libTIRxPlugin.so file.mlir
//   mlir-opt-22 --load-pass-plugin=libTIRxPlugin.so \
//               --tirx-lower-to-nvvm='cubin-chip=sm_90' file.mlir
//   mlir-opt-22 --load-pass-plugin=libTIRxPlugin.so \
//               --pass-pipeline='builtin.module(tirx-lower-to-nvvm)' file.mlir
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"
#include "tirx/Version.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Compiler.h"

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
/// The passes of TIRx that a tool loading the plugin accepts as flags.
const char *const kPassFlags[] = {
    "tirx-lower-to-nvvm",        "tirx-export-bundle",
    "tirx-attach-feedback",      "tirx-map-reference",
    "tirx-view",                 "tirx-check-bounds",
    "tirx-lower-vector-transfers", "tirx-workgroup-allocs",
    "tirx-distribute-copies",    "tirx-promote-accumulators",
    "tirx-sink-constants",       "tirx-prove-vector-alignment",
    "tirx-prepare-launches",     "tirx-emulate-launches",
    "tirx-infer-domains",
};

/// The textual pipeline the flags have built so far.
std::string &flagPipeline() {
  static std::string pipeline;
  return pipeline;
}

/// mlir-opt parses its command line before it loads a plugin, and its pass
/// flags are the passes registered by then: a plugin's pass is listed by
/// --help but refused as a flag. A plugin loads during that parse, though,
/// so an option it registers is seen by the arguments after
/// --load-pass-plugin. Register `--<pass>[=OPTIONS]` as such an option; each
/// occurrence appends `<pass>{OPTIONS}` to the textual pipeline, the tool's
/// --pass-pipeline. (So in mlir-opt-22 these flags combine with each other
/// but not with --pass-pipeline or upstream pass flags.)
void exposePassAsFlag(llvm::StringRef passArg) {
  auto &options = llvm::cl::getRegisteredOptions();
  // Already a flag: a tool that registered the pass before parsing
  // (tirx-opt), or the other plugin entry point.
  if (options.count(passArg) || !PassInfo::lookup(passArg))
    return;
  llvm::cl::Option *pipelineOption = options.lookup("pass-pipeline");
  if (!pipelineOption)
    return;
  // Lives as long as the process, as the plugin does.
  auto *flag = new llvm::cl::list<std::string>(
      passArg, llvm::cl::desc("Run the TIRx pass of that name"),
      llvm::cl::ValueOptional, llvm::cl::ReallyHidden);
  std::string name = passArg.str();
  flag->setCallback([flag, name, pipelineOption](const std::string &value) {
    std::string &pipeline = flagPipeline();
    bool first = pipeline.empty();
    if (first && pipelineOption->getNumOccurrences()) {
      flag->error("cannot be combined with --pass-pipeline: write it as " +
                  name + "{...} inside the pipeline");
      std::exit(1);
    }
    if (!first)
      pipeline += ",";
    pipeline += name;
    if (!value.empty())
      pipeline += "{" + value + "}";
    // One occurrence of --pass-pipeline, whose value grows with each flag.
    (void)pipelineOption->addOccurrence(
        flag->getPosition(flag->size() - 1), "pass-pipeline",
        "builtin.module(" + pipeline + ")", /*MultiArg=*/!first);
  });
}

void registerPassesAndFlags() {
  tirx::registerAllTIRxPasses();
  for (const char *passArg : kPassFlags)
    exposePassAsFlag(passArg);
}
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TIRx", TIRX_VERSION_STRING,
          [](DialectRegistry *registry) {
            tirx::registerAllTIRxDialects(*registry);
            registerPassesAndFlags();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "TIRxPasses", TIRX_VERSION_STRING,
          []() { registerPassesAndFlags(); }};
}
