//===- Actions.h - actions, their schema, script policy ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// An action is data: {"transform": NAME, "params": {...}, "target": {"op":
// OPNAME}}. Its schema comes from the transform ops' ODS definitions; it is
// turned into a transform script, and that script, like any an agent sends,
// passes the policy check before it runs.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TOOLS_TIRX_ACTIONS_H
#define TIRX_TOOLS_TIRX_ACTIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir {
namespace tirx {

/// The JSON Schema (draft 2020-12) of every action.
llvm::json::Object actionsSchema();

struct ActionError {
  std::string code, message, hint;
};

/// Builds the transform script of `action` (JSON text). On failure fills
/// `error` (codes: bad_action, unknown_transform, invalid_parameter) and
/// returns false.
bool buildActionScript(const std::string &action, std::string &script,
                       std::string &canonicalAction, ActionError &error);

/// Checks the order of a recipe (a JSON array of actions) before anything
/// runs: tile_to_threads and use_mma after tile_to_blocks, reduce_in_block
/// after tile_to_blocks or fuse_into, vectorize after tile_to_threads,
/// map_to_gpu after tile_to_threads, use_mma or reduce_in_block, unroll not
/// before map_to_gpu. Returns "" or "stage N (<transform>): <unmet condition>".
std::string checkRecipeOrder(const llvm::json::Array &recipe);

/// Checks a transform script against `policy` ("strict" or "open"):
/// strict allows transform.tirx.* and a vetted list of upstream ops and
/// refuses anything that reads or writes files, links outside code or runs
/// passes. Returns "" or the refusal naming the op; `loc` gets its location.
std::string checkScriptPolicy(ModuleOp script, llvm::StringRef policy,
                              Location &loc);

} // namespace tirx
} // namespace mlir

#endif // TIRX_TOOLS_TIRX_ACTIONS_H
