//===- Commands.h - the tirx CLI's commands ---------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_TOOLS_TIRX_COMMANDS_H
#define TIRX_TOOLS_TIRX_COMMANDS_H

#include "tirx/Harness/Store.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
namespace tirx {

/// Exit statuses of the tirx CLI.
enum CliExit {
  kOk = 0,
  kRefused = 1,  // the request was refused (bad id, failing script, ...)
  kUsage = 2,    // the command line is wrong
  kDamaged = 3,  // the workspace is damaged (tampered object, broken index)
};

/// A parsed command line: the command, positional arguments and options.
struct Invocation {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> options; // "--script" -> value
  bool json = false;
  std::string workspace;
  std::string actor;
  std::string session;

  std::string option(const std::string &name,
                     const std::string &fallback = "") const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
  }
  bool has(const std::string &name) const { return options.count(name); }
};

/// What a command produced: the exit status, text for people, JSON for
/// programs, and what the audit line records.
struct Outcome {
  int exit = kOk;
  std::string text;
  llvm::json::Object data;
  std::string code;   // refusal code: not_found, script_failed, ...
  std::string reason; // refusal message
  std::string hint;   // what would be accepted instead
  std::string payloadOp, payloadLoc; // the payload op a refusal concerns
  std::string version;
};

/// The rejection of a refused outcome as JSON: {code, message, hint?,
/// payload_op?, location?}.
llvm::json::Object rejectionJSON(const Outcome &out);

/// Runs `inv`; never exits the process.
Outcome runCommand(const Invocation &inv);

/// `tirx serve`: MCP (JSON-RPC 2.0) over stdin/stdout until EOF.
int serve(const std::string &workspace, const std::string &actor,
          const std::string &session);

} // namespace tirx
} // namespace mlir

#endif // TIRX_TOOLS_TIRX_COMMANDS_H
