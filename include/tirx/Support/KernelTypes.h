//===- KernelTypes.h - how elements are laid out in kernels -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// One answer, for every pass that sizes a buffer (shared-memory budgets,
// workgroup allocations, constants copied into kernels), to how many bytes
// an element takes once lowered.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_SUPPORT_KERNELTYPES_H
#define TIRX_SUPPORT_KERNELTYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace tirx {

/// The width of `index` in the kernels: upstream's default, set explicitly
/// in the NVVM pipeline, 64 bits as NVPTX64's pointers.
constexpr int64_t kKernelIndexBits = 64;

/// The bytes an element of `type` takes in a kernel's buffer: an index
/// kKernelIndexBits, an integer or float its width rounded up to bytes (an
/// i1 one byte); none for other types (vectors). reduce_in_block's argmax
/// keeps its positions in an index buffer.
inline std::optional<int64_t> kernelElementBytes(Type type) {
  if (type.isIndex())
    return kKernelIndexBits / 8;
  if (type.isIntOrFloat())
    return int64_t(llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  return std::nullopt;
}

} // namespace tirx
} // namespace mlir

#endif // TIRX_SUPPORT_KERNELTYPES_H
