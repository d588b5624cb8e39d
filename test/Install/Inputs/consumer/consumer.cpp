//===- consumer.cpp - a program built against the installed TIRx ---------===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//   tirx-consumer PAYLOAD.mlir SCHEDULE.transform.mlir
//
// Registers TIRx in its own registry, schedules the payload with the
// transform interpreter, lowers it with tirx-lower-to-nvvm and prints the
// PTX of each kernel module.
//
//===----------------------------------------------------------------------===//

#include "tirx/InitAllTIRx.h"
#include "tirx/Version.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: tirx-consumer PAYLOAD SCHEDULE\n";
    return 2;
  }
  llvm::outs() << "TIRx " << TIRX_VERSION_STRING << "\n";

  DialectRegistry registry;
  tirx::registerTIRxToolDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  PassManager pm(&context);
  transform::PreloadLibraryPassOptions preload;
  preload.transformLibraryPaths.push_back(argv[2]);
  pm.addPass(transform::createPreloadLibraryPass(preload));
  pm.addPass(transform::createInterpreterPass());
  tirx::TIRxLowerToNVVMOptions lowering;
  lowering.format = "isa";
  pm.addPass(tirx::createTIRxLowerToNVVM(lowering));
  if (failed(pm.run(*module)))
    return 1;

  module->walk([](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        llvm::outs() << "// binary @" << binary.getSymName() << "\n"
                     << object.getObject().getValue() << "\n";
  });
  return 0;
}
