//===- Actions.h - actions, their schema, script policy ---------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// An action is data: {"transform": NAME, "params": {...}, "target": {"op":
// OPNAME, "index": N}}. The transforms, their parameters and defaults come
// from the transform.tirx ops' ODS definitions: an action becomes the op of
// that name with its parameters as the op's attributes, checked by the op's
// own verifier. The script it makes, like any an agent sends, passes the
// policy check before it runs.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_ACTIONS_H
#define TIRX_HARNESS_ACTIONS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir {
class MLIRContext;
namespace tirx {

/// The JSON Schema (draft 2020-12) of every action.
llvm::json::Object actionsSchema();

/// An action made into a transform script.
struct ActionScript {
  std::string script;    // a transform module with @__transform_main
  std::string canonical; // the action as canonical JSON text
  std::string targetOp;  // the payload op kind it targets
  std::optional<int64_t> targetIndex;
};

/// Builds the transform script of `action` in `context` (which must have the
/// transform dialect and TIRx's extension registered). Refusals: bad_action,
/// unknown_transform, invalid_parameter (the op's verifier, as data).
llvm::Expected<ActionScript> buildActionScript(MLIRContext &context,
                                               const llvm::json::Value &action);

/// Checks the order of a recipe (a JSON array of actions) before anything
/// runs: each transform after the stages it works on (tile_to_threads and
/// use_mma after tile_to_blocks, vectorize after tile_to_threads, ...).
/// Refuses with bad_order: "stage N (<transform>): <unmet condition>".
llvm::Error checkRecipeOrder(const llvm::json::Array &recipe);

/// The script policies. Strict allows transform.tirx.* and a vetted list of
/// upstream ops; open allows any transform. Neither allows an op that reads
/// or writes files, links outside code or prints to the process's output.
enum class ScriptPolicy { Strict, Open };
std::optional<ScriptPolicy> policyNamed(llvm::StringRef name);
llvm::StringRef policyName(ScriptPolicy policy);

/// Checks a transform script against `policy`; refuses with policy_refused,
/// naming the op and its location.
llvm::Error checkScriptPolicy(ModuleOp script, ScriptPolicy policy);

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_ACTIONS_H
