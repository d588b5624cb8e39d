//===- Common.h - shared by the transform.tirx ops --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The refusal builders and payload queries every transform.tirx op uses.
// Internal to the TIRxTransformOps library.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_LIB_TRANSFORMOPS_COMMON_H
#define TIRX_LIB_TRANSFORMOPS_COMMON_H

#include "tirx/Dialect/TIRx/TransformOps/TIRxTransformOps.h"
#include "tirx/Dialect/TIRx/Transforms/Rewrites.h"
#include "tirx/Support/Refusal.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tirx::detail {

using ::mlir::tirx::Refusal;
using ::mlir::tirx::MappingKind;
using ::mlir::tirx::mapsTo;
using ::mlir::tirx::RefusalCode;

/// Shared memory a block may take on Hopper (227 KiB; past 48 KiB as
/// dynamic shared memory, which the lowering and the runner opt in to).
constexpr int64_t kMaxSharedBytes = 232448;

/// A refusal: "<code>: <message>", a note on the payload op, a hint; the
/// same as data to the context's RefusalSink.
DiagnosedSilenceableFailure reject(transform::TransformOpInterface op,
                                   Operation *target, RefusalCode code,
                                   const Twine &message,
                                   const Twine &hint = "");

/// A verifier's refusal of a parameter: "invalid_parameter: <message>" on
/// `op`, and as data to the context's RefusalSink.
LogicalResult invalidParameter(Operation *op, const Twine &message);

/// A `max_shared_bytes` parameter: in [1, kMaxSharedBytes], else
/// invalidParameter.
LogicalResult verifyMaxSharedBytes(Operation *op, int64_t bytes);

/// The refusal of a payload op of the wrong kind: "the target is X, not
/// <expected>".
DiagnosedSilenceableFailure wrongTarget(transform::TransformOpInterface op,
                                        Operation *target,
                                        StringRef expected);

/// The target as a linalg.matmul on buffers (any indexing maps); else
/// null, with the refusal in `refusal`. (UseMma.cpp)
linalg::MatmulOp bufferMatmul(transform::TransformOpInterface op,
                              Operation *target,
                              DiagnosedSilenceableFailure &refusal);

/// A copy into or out of shared memory, fenced by barriers.
LogicalResult copyThroughBarriers(OpBuilder &b, Value src, Value dst);

/// "try 2, 4 or 8"; "" for no options.
std::string tryHint(std::vector<std::string> options);

/// Sizes near `bad` that divide `extent`, for a hint: "try 2 or 4".
std::string divisorsHint(int64_t extent, int64_t bad, int64_t limit,
                         bool powersOfTwo);

/// The trip count of `loop` when its bounds and a positive step are
/// constants; nullopt otherwise.
std::optional<int64_t> staticTripCount(scf::ForOp loop);

/// Whether `op` is inside a forall mapped to `kind` (or, for blocks, a
/// gpu.launch).
bool insideMapping(Operation *op, MappingKind kind);

/// A missing_interface refusal unless `target` implements TilingInterface
/// (linalg's external models may not be registered in the tool).
DiagnosedSilenceableFailure requireTiling(transform::TransformOpInterface op,
                                          Operation *target);

/// The one reduction loop of `op` and the op of its body that combines into
/// the output (add, mul, max, min, and, or, xor: one with a neutral
/// element), or a refusal naming `transform`: not_reduction,
/// several_reductions, unknown_combiner.
DiagnosedSilenceableFailure matchSingleReduction(
    transform::TransformOpInterface self, linalg::LinalgOp op,
    StringRef transform, unsigned &loop, Operation *&combiner);

/// An on_tensors refusal when `target` works on tensors (a front end's
/// payload, not bufferized yet); success otherwise. (PayloadForm.cpp)
DiagnosedSilenceableFailure requireBuffers(transform::TransformOpInterface op,
                                           Operation *target);

/// A dynamic_shape refusal naming the first loop of `target` (a linalg op)
/// with a size known only at run time among `loops` (all loops when
/// empty); success otherwise. (PayloadForm.cpp)
DiagnosedSilenceableFailure
requireStaticLoops(transform::TransformOpInterface op, Operation *target,
                   ArrayRef<int64_t> loops = {});

/// The linalg.generic form of a named linalg op (linalg.matmul,
/// linalg.transpose, ...), in place, for the transforms whose rewrite reads
/// a generic's maps and body; `target` itself when it is a generic or not a
/// linalg op. (PayloadForm.cpp)
Operation *generalized(RewriterBase &rewriter, Operation *target);

} // namespace mlir::tirx::detail

#endif // TIRX_LIB_TRANSFORMOPS_COMMON_H
