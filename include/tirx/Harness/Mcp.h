//===- Mcp.h - the Model Context Protocol over a workspace ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The MCP server (JSON-RPC 2.0 over a line per message): protocol version
// negotiation, the tools (each a Session call, each tools/call in a worker
// process so that the server keeps answering and can cancel), refusals as
// tool results with isError and the structured refusal in
// structuredContent, ids echoed exactly. `tirx serve` runs it on stdio.
//
//===----------------------------------------------------------------------===//

#ifndef TIRX_HARNESS_MCP_H
#define TIRX_HARNESS_MCP_H

#include "tirx/Harness/Session.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir {
namespace tirx {

class McpServer {
public:
  McpServer(std::string workspace, Identity who, ChildLimits limits = {})
      : workspace(std::move(workspace)), who(std::move(who)),
        limits(limits) {}

  /// The protocol versions the server speaks, newest first.
  static llvm::ArrayRef<const char *> protocolVersions();
  /// The tools and their schemas (tools/list).
  static llvm::json::Array tools();

  /// The resources (resources/list): tirx://report, the report page.
  static llvm::json::Object resources();

  /// Answers one message (a line of text): the answer's text, one line of
  /// JSON whose id is the request's id as it was written (a number id such
  /// as 12345678901234567890123 or 1e400 is echoed byte for byte); nullopt
  /// for a notification.
  std::optional<std::string> handle(llvm::StringRef message);

  /// Serves the messages read from `in` (one per line) until it ends,
  /// writing the answers to `out`. tools/call requests run in worker
  /// processes, at most `workers` at once (the others wait in order), so
  /// ping, tools/list and notifications/cancelled are answered while a long
  /// request runs; a cancelled request's worker and its children are
  /// killed, no answer is sent and its audit line says `cancelled`.
  /// Returns 0 once `in` ends and every answer is written, 1 when `out`
  /// fails.
  int serve(int in, int out, unsigned workers = 4);

private:
  /// A message, read: its id as text ("" for a notification), its method
  /// and params, or the error answer it gets.
  struct Message {
    std::string id;
    std::string method;
    llvm::json::Object params;
    std::optional<std::string> error;
  };
  static Message read(llvm::StringRef line);
  std::optional<std::string> answer(const Message &message);
  llvm::json::Object callTool(llvm::StringRef name,
                              const llvm::json::Object &args);
  /// resources/read's result, or nullopt with `error` the JSON-RPC error.
  std::optional<llvm::json::Object> readResource(llvm::StringRef uri,
                                                 llvm::json::Object &error);
  /// Records the audit line of a request cancelled by the client.
  void recordCancelled(const std::string &tool, const std::string &id);

  std::string workspace;
  Identity who;
  ChildLimits limits;
};

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_MCP_H
