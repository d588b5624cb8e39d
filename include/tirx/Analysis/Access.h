//===- Access.h - memory accesses and their index functions -----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Every load and store of a memref, with its index written as a linear
// function of thread ids, block ids and loop variables where it is one. The
// stride along thread x decides coalescing (global memory) and bank
// conflicts (shared memory). Used by the views and by the bundle export.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_ANALYSIS_ACCESS_H
#define TIRX_ANALYSIS_ACCESS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// sum(coefficient * term) + constant, terms named "tid.x", "bid.y",
/// "bdim.x", "iv0" (loop variables), "arg1" (function arguments).
struct LinearIndex {
  std::map<std::string, int64_t> terms;
  int64_t constant = 0;
  std::string str() const;
  int64_t coefficient(const std::string &term) const {
    auto it = terms.find(term);
    return it == terms.end() ? 0 : it->second;
  }
};

/// The index value as a linear function, or nothing when it is not one.
std::optional<LinearIndex> linearize(Value index);

/// Floating-point operations one execution of `op` performs: 1 per lane of
/// an add, sub, mul, div, max or min, 2 per lane of an FMA or contraction,
/// n - 1 for a vector.reduction of n lanes (n with an accumulator),
/// 0 for anything else. An nvgpu.mma.sync is a warp's m x n x k multiply-add
/// (`threads` = 32: each of its 32 threads executes a 32nd of it), an
/// nvgpu.warpgroup.mma a warpgroup's (`threads` = 128).
struct OpFlops {
  int64_t flops = 0;
  /// The threads that execute one instance together.
  int64_t threads = 1;
};
OpFlops opFlops(Operation *op);

/// A warpgroup MMA written as inline PTX (an llvm.inline_asm whose text holds
/// `wgmma.mma_async...m<M>n<N>k<K>.<dtype>.<atype>.<btype>`, as use_wgmma
/// writes the form with A in registers): its shape and A's PTX type; none
/// for a shape wgmma does not have (M 64, N and K 8 to 256).
struct InlineWgmma {
  int64_t m = 0, n = 0, k = 0;
  std::string typeA;
};
std::optional<InlineWgmma> inlineWgmma(Operation *op);

struct AccessInfo {
  Operation *op = nullptr;
  Value base;             // the memref accessed
  Value root;             // base, seen through views and casts
  bool isStore = false;
  unsigned width = 1;     // elements per access
  unsigned elementBytes = 4;
  unsigned alignment = 0; // the op's alignment attribute, or element bytes
  std::string space;      // global, workgroup, private
  std::optional<LinearIndex> offset; // linearized element offset
  std::optional<int64_t> strideX;    // elements between neighbouring threads
  std::string pattern;    // contiguous, strided, broadcast, unknown
  std::string bankConflictRisk; // shared memory: none, low, high, unknown
};

/// Every memref load/store under `scope` (memref.load/store,
/// vector.load/store, vector.transfer_read/write, nvgpu.ldmatrix: a 16-byte
/// row per lane, nvgpu.device_async_copy: its read, then its write).
std::vector<AccessInfo> collectAccesses(Operation *scope);

/// The memref `value` is a view of (through subview, cast, reinterpret,
/// assume_alignment, ...).
Value accessRoot(Value value);

/// "block x" for #gpu.block<x>, "thread y" for #gpu.thread<y>, ...
std::string mappingName(Attribute mapping);

/// "global", "workgroup", "private" or "other".
std::string memorySpaceName(Type memrefType);

/// "func @saxpy / gpu.launch / scf.for#0 / vector.load": the ops from the
/// function down to `op`, loops numbered among their siblings of one kind.
std::string irPath(Operation *op);

/// "file:line:col" of a location (through names, fusions and call sites),
/// "" when it has none.
std::string locationText(Location loc);

} // namespace tirx
} // namespace mlir

#endif // TIRX_ANALYSIS_ACCESS_H
