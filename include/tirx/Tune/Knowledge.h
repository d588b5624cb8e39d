//===- Knowledge.h - what helps which bottleneck ----------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The knowledge base of a tuner: for each bottleneck the runner's
// classifier names, the actions that address it and why. The search
// policies draw from it first; the LLM policy puts it into its prompt.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TUNE_KNOWLEDGE_H
#define TIRX_TUNE_KNOWLEDGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace mlir::tirx {

struct Remedy {
  const char *action; // a transform of `tirx schema`
  const char *change; // which parameter to move, and which way
  const char *why;
};

/// The remedies of a bottleneck (memory_bound, narrow_global_access,
/// uncoalesced_access, too_few_blocks, launch_bound, compute_bound); empty
/// for an unknown one.
llvm::ArrayRef<Remedy> remediesFor(llvm::StringRef bottleneck);

/// The whole table, and the device profile when given, as JSON.
llvm::json::Object knowledgeJSON(const llvm::json::Object *device = nullptr);

} // namespace mlir::tirx

#endif // TIRX_TUNE_KNOWLEDGE_H
