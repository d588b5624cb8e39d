//===- Bufferize.h - the payload from tensors to buffers --------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Front ends (torch-mlir, StableHLO -> linalg, IREE's input) emit linalg on
// tensors; TIRx schedules linalg on buffers. One function turns the one into
// the other the same way wherever it is needed (transform.tirx.bufferize,
// the correctness reference, the views), so that a bufferized candidate and
// the reference made from its tensor seed have the same parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_BUFFERIZE_H
#define TIRX_DIALECT_TIRX_TRANSFORMS_BUFFERIZE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir {
namespace tirx {

/// Where a payload works on tensors: the op (a function, for its signature)
/// and the tensor type it has there.
struct TensorUse {
  Operation *op = nullptr;
  Type type;
  /// "argument #0 of @f", "result #0 of linalg.generic", ...
  std::string what;
};

/// The first use of a tensor in `root` (itself included), if any: a function
/// argument or result, or an operand or result of an op.
std::optional<TensorUse> findTensorUse(Operation *root);

/// Whether `op` itself works on tensors (a tensor operand or result, or a
/// function with tensors in its signature).
bool worksOnTensors(Operation *op);

/// One-shot bufferization of the whole module, function boundaries included
/// (identity layouts); function arguments are never written in place (a
/// value is an input); returned buffers become out-parameters appended to the
/// signature (statically shaped ones without a copy); copies are
/// linalg.copy. Fails, with the reason and where, on an op that does not
/// bufferize; the module may then be partly rewritten: run it on a copy to
/// check first. `foldBroadcasts`: a linalg.broadcast read by linalg.generic
/// inputs is folded into their indexing maps (no broadcast copy); the
/// reference (tirx-map-reference) keeps the broadcast, so that a candidate
/// is checked against a reference that does not share the fold.
llvm::Error bufferizePayload(ModuleOp module, bool foldBroadcasts = true);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_BUFFERIZE_H
