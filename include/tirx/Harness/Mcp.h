//===- Mcp.h - the Model Context Protocol over a workspace ------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The MCP server's logic (JSON-RPC 2.0): protocol version negotiation, the
// tools (each a Session call), refusals as tool results with isError and
// the structured refusal in structuredContent. The transport (a line per
// message on stdio) is the front door's.
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
  McpServer(std::string workspace, Identity who)
      : workspace(std::move(workspace)), who(std::move(who)) {}

  /// The protocol versions the server speaks, newest first.
  static llvm::ArrayRef<const char *> protocolVersions();
  /// The tools and their schemas (tools/list).
  static llvm::json::Array tools();

  /// The resources (resources/list): tirx://report, the report page.
  static llvm::json::Object resources();

  /// Answers one message (a line of text); nullopt for a notification.
  std::optional<llvm::json::Value> handle(llvm::StringRef message);

private:
  llvm::json::Object callTool(llvm::StringRef name,
                              const llvm::json::Object &args);
  /// resources/read's result, or nullopt with `error` the JSON-RPC error.
  std::optional<llvm::json::Object> readResource(llvm::StringRef uri,
                                                 llvm::json::Object &error);
  std::string workspace;
  Identity who;
};

} // namespace tirx
} // namespace mlir

#endif // TIRX_HARNESS_MCP_H
