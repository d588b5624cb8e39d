//===- Bufferize.cpp - transform.tirx.bufferize -----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The legal step from a front end's tensor payload to the buffers the GPU
// schedules need. The rewrite is tirx::bufferizePayload (shared with the
// reference and the views); this op checks that there is something to
// bufferize and that it bufferizes, on a copy, before it changes anything.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "tirx/Dialect/TIRx/Transforms/Bufferize.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::transform;
using namespace mlir::tirx::detail;

DiagnosedSilenceableFailure
tirx::BufferizeOp::applyToOne(TransformRewriter &rewriter, Operation *target,
                              ApplyToEachResultList &results,
                              TransformState &state) {
  auto self = cast<TransformOpInterface>(getOperation());
  auto module = dyn_cast<ModuleOp>(target);
  if (!module)
    return wrongTarget(self, target, "a builtin.module (the payload)");
  if (!tirx::findTensorUse(module)) {
    // A module nested in the payload was bufferized with it.
    if (module->getParentOfType<ModuleOp>()) {
      results.push_back(target);
      return DiagnosedSilenceableFailure::success();
    }
    return reject(self, target, RefusalCode::not_applicable,
                  "the payload has no tensors: it is on buffers already",
                  "schedule it: tile_to_blocks is the first step");
  }
  // On a copy first: a refusal leaves the payload as it was.
  OwningOpRef<ModuleOp> trial = module.clone();
  if (llvm::Error e = tirx::bufferizePayload(*trial))
    return reject(self, target, RefusalCode::not_bufferizable,
                  "the payload does not bufferize: " +
                      llvm::toString(std::move(e)),
                  "rewrite the op named into linalg, tensor, arith or scf "
                  "ops, or give the payload on buffers");
  if (llvm::Error e = tirx::bufferizePayload(module))
    return reject(self, target, RefusalCode::not_bufferizable,
                  "the payload does not bufferize: " +
                      llvm::toString(std::move(e)));
  results.push_back(target);
  return DiagnosedSilenceableFailure::success();
}
