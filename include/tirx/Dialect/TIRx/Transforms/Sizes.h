//===- Sizes.h - dimensions known only at run time --------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A payload on memref<?x?xf32> runs at sizes given at run time (tirx-run
// --size). Each `?` of the payload function's buffer arguments belongs to a
// named size; dimensions that the payload's linalg ops iterate with the same
// loop share one (x + y: x's, y's and the result's rows are one size). The
// names live on the arguments, `tirx.dims = ["s0", ""]` ("" where static),
// so that every version, the reference and the bundle's manifest name them
// alike; the bounds check uses them to know that two buffers' rows agree,
// the export to write the manifest's `sizes` and expressions of them.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_DIALECT_TIRX_TRANSFORMS_SIZES_H
#define TIRX_DIALECT_TIRX_TRANSFORMS_SIZES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace mlir {
namespace tirx {

/// The argument attribute naming each dimension's size.
inline constexpr llvm::StringLiteral kDimsAttrName = "tirx.dims";

/// The default extent a bundle records for a size (what `tirx run`, tune
/// and bench use without --size).
inline constexpr int64_t kDefaultDynamicSize = 4096;

/// Names the dynamic dimensions of every public function's memref
/// arguments that have no `tirx.dims` yet: s0, s1, ... in signature order,
/// one name for the dimensions its linalg ops walk with one loop. Run on
/// the payload as bufferized (its linalg ops on the arguments themselves).
void nameDynamicSizes(ModuleOp module);

/// The size dimension `dim` of `func`'s argument `arg` belongs to ("" when
/// static or unnamed).
std::string sizeName(FunctionOpInterface func, unsigned arg, unsigned dim);

/// The size dimension `dim` of `memref` is: a named dimension of a function
/// argument (through casts), or of a `memref.collapse_shape` of one (the
/// product of the sizes it collapses, "(s0 * s1)", one opaque size for the
/// analyses); none when static or unnamed.
std::optional<std::string> sizeOfBufferDim(Value memref, unsigned dim);

/// The size `v` is, when it is `memref.dim` of a dimension sizeOfBufferDim
/// names.
std::optional<std::string> sizeOfDim(Value v);

/// `v` (an index or integer computed on the host from sizes and constants:
/// memref.dim, arith and affine.apply) as an expression of the named sizes
/// ("ceildiv(s0, 1024)"), or none.
std::optional<std::string> sizeExpression(Value v);

/// Replaces `linalg.copy ins(%alloc) outs(%out)` (what bufferization leaves
/// for a result of dynamic shape) by computing into the out-parameter
/// %out itself, where %out is a function argument used by nothing else and
/// %alloc a local allocation nothing reads after the copy.
void forwardResultCopies(ModuleOp module);

} // namespace tirx
} // namespace mlir

#endif // TIRX_DIALECT_TIRX_TRANSFORMS_SIZES_H
