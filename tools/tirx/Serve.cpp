//===- Serve.cpp - tirx serve: MCP over stdio -------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The transport only: one JSON-RPC message per line in, one answer per line
// out. The protocol and the tools are the harness library's (McpServer).
//
//===----------------------------------------------------------------------===//

#include "Serve.h"

#include "tirx/Harness/Mcp.h"

#include "llvm/Support/raw_ostream.h"

#include <iostream>

using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
constexpr size_t kMaxMessageBytes = 8 << 20;

void send(const json::Value &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << message;
  std::cout << text << "\n";
  std::cout.flush();
}
} // namespace

int mlir::tirx::serve(const std::string &workspace, const Identity &who) {
  McpServer server(workspace, who);
  std::string line;
  while (true) {
    line.clear();
    bool tooLarge = false;
    int c;
    while ((c = std::cin.get()) != EOF && c != '\n') {
      if (line.size() < kMaxMessageBytes)
        line.push_back(char(c));
      else
        tooLarge = true;
    }
    if (c == EOF && line.empty())
      return 0;
    if (tooLarge) {
      send(json::Object{
          {"jsonrpc", "2.0"},
          {"id", nullptr},
          {"error", json::Object{{"code", -32600},
                                 {"message", "request larger than " +
                                                 std::to_string(kMaxMessageBytes) +
                                                 " bytes"}}}});
      continue;
    }
    if (llvm::StringRef(line).trim().empty())
      continue;
    if (std::optional<json::Value> answer = server.handle(line))
      send(*answer);
  }
}
