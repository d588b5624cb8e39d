//===- Structure.h - what a payload is made of ------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// A compact structural description of a payload: op counts, the loop nest
// with its GPU mapping, vector widths, barriers, memory spaces and launch
// configurations. `tirx diff` compares two of them in words.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_ANALYSIS_STRUCTURE_H
#define TIRX_ANALYSIS_STRUCTURE_H

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

struct LoopInfo {
  std::string kind;       // scf.forall, scf.for, scf.parallel, gpu.launch
  std::string mapping;    // "block x", "thread x", "" when none
  int64_t iterations = -1; // static trip count (product over dims), -1 unknown
  unsigned depth = 0;
};

struct StructureSummary {
  std::map<std::string, int> opCounts;
  std::vector<LoopInfo> loops; // pre-order
  std::set<int64_t> vectorWidths; // elements per vector access; empty: none
  int barriers = 0;
  std::map<std::string, int> buffersBySpace; // allocations: global, workgroup, private
  std::vector<std::string> launches; // "grid 65536x1x1, block 256x1x1"
};

StructureSummary summarizeStructure(ModuleOp module);

/// The differences from `before` to `after`, one line each, e.g.
/// "forall#1 (thread x): 1024 -> 256 iterations", "vector width 1 -> 4",
/// "barriers 1 -> 0", "ops: +2 vector.transfer_read, -1 linalg.generic".
std::vector<std::string> describeChanges(const StructureSummary &before,
                                         const StructureSummary &after);

/// A unified diff (3 lines of context) of two texts, "" when equal.
std::string unifiedDiff(llvm::StringRef before, llvm::StringRef after,
                        llvm::StringRef beforeName, llvm::StringRef afterName);

} // namespace tirx
} // namespace mlir

#endif // TIRX_ANALYSIS_STRUCTURE_H
