//===- InferDomains.cpp - tirx-infer-domains --------------------*- C++ -*-===//
//-*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The pass form of tirx::annotateDomains (tirx/Analysis/Domains.h), for
// tirx-opt and mlir-opt with the plugin; the harness calls the function.
//
//===----------------------------------------------------------------------===//

#include "tirx/Analysis/Domains.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"

namespace mlir {
namespace tirx {
#define GEN_PASS_DEF_TIRXINFERDOMAINS
#include "tirx/Dialect/TIRx/Transforms/Passes.h.inc"
} // namespace tirx
} // namespace mlir

using namespace mlir;

namespace {
struct InferDomainsPass
    : public mlir::tirx::impl::TIRxInferDomainsBase<InferDomainsPass> {
  void runOnOperation() override {
    if (failed(mlir::tirx::annotateDomainsUnder(getOperation())))
      signalPassFailure();
  }
};
} // namespace
