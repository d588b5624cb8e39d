//===- Serve.cpp - tirx serve: JSON-RPC 2.0 / MCP over stdio ----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// The Model Context Protocol over stdio: one JSON-RPC message per line.
// Every tool is a harness command (runCommand), so the server adds no
// behaviour of its own: the same checks, refusals, audit lines.
//
//===----------------------------------------------------------------------===//

#include "Actions.h"
#include "Commands.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <optional>

#include <unistd.h>
#include <string>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {
constexpr size_t kMaxMessageBytes = 8 << 20;
const char *kProtocolVersion = "2025-06-18";

json::Object tool(const char *name, const char *description,
                  json::Object properties, json::Array required) {
  return json::Object{
      {"name", name},
      {"description", description},
      {"inputSchema", json::Object{{"type", "object"},
                                   {"properties", std::move(properties)},
                                   {"required", std::move(required)}}}};
}

json::Object versionProp() {
  return json::Object{{"type", "string"}, {"pattern", "^v[0-9]+$"},
                      {"description", "a version id, e.g. v3"}};
}

json::Array tools() {
  json::Object viewWhat{{"type", "string"},
                        {"enum", json::Array{"loop_structure", "thread_binding",
                                             "memory_footprint", "access_pattern",
                                             "call_graph", "roofline", "summary",
                                             "all"}}};
  return json::Array{
      tool("read_ir", "The payload text of a version (digest verified).",
           json::Object{{"version", versionProp()}}, json::Array{"version"}),
      tool("commit_ir", "Record a payload (MLIR text) as a new version: the "
                        "root of a new workspace when the workspace is empty, "
                        "else a child of `parent`.",
           json::Object{{"ir", json::Object{{"type", "string"}}},
                        {"parent", versionProp()},
                        {"message", json::Object{{"type", "string"}}}},
           json::Array{"ir"}),
      tool("view", "A structured view of a version (docs/views.md).",
           json::Object{{"version", versionProp()}, {"what", std::move(viewWhat)}},
           json::Array{"version", "what"}),
      tool("summarize", "A compact text of a version for a prompt.",
           json::Object{{"version", versionProp()}}, json::Array{"version"}),
      tool("action_schema", "The JSON Schema of every action.", json::Object{},
           json::Array{}),
      tool("apply", "Apply an action (or a transform script) to a version; "
                    "returns the new version or a structured refusal.",
           json::Object{{"version", versionProp()},
                         {"action", actionsSchema()},
                         {"script", json::Object{{"type", "string"}}},
                         {"policy", json::Object{{"enum", json::Array{"strict", "open"}}}},
                         {"message", json::Object{{"type", "string"}}}},
           json::Array{"version"}),
      tool("run", "Lower, bundle and run a version against its seed's "
                  "reference; returns the feedback.",
           json::Object{{"version", versionProp()},
                        {"samples", json::Object{{"type", "integer"}, {"minimum", 1}}},
                        {"timeout", json::Object{{"type", "integer"}, {"minimum", 1}}}},
           json::Array{"version"}),
      tool("diff", "Structural summary and unified diff of two versions.",
           json::Object{{"from", versionProp()}, {"to", versionProp()}},
           json::Array{"from", "to"}),
      tool("log", "The version tree.", json::Object{}, json::Array{}),
      tool("checkout", "Set the head version.",
           json::Object{{"version", versionProp()}}, json::Array{"version"}),
      tool("export_session", "Write session.json and return it.",
           json::Object{{"path", json::Object{{"type", "string"}}}},
           json::Array{"path"}),
  };
}

json::Object rpcError(int code, const std::string &message,
                      json::Value data = nullptr) {
  json::Object error{{"code", code}, {"message", message}};
  if (data.kind() != json::Value::Null)
    error["data"] = std::move(data);
  return error;
}

/// Runs one tool as a harness command. Returns the MCP result.
/// A refused call: its JSON-RPC error (the harness's rejection as data).
struct Refusal {
  int code = 0;
  std::string message;
  json::Object data;
};

json::Object callTool(const std::string &workspace, const std::string &actor,
                      const std::string &session, llvm::StringRef name,
                      const json::Object &args, bool &unknown,
                      std::optional<Refusal> &refusal) {
  Invocation inv;
  inv.workspace = workspace;
  inv.actor = actor;
  inv.session = session;
  inv.json = true;
  auto str = [&](const char *key) {
    return args.getString(key).value_or("").str();
  };
  std::string tempFile;
  if (name == "read_ir") {
    inv.command = "show";
    inv.positional = {str("version")};
  } else if (name == "commit_ir") {
    char path[] = "/tmp/tirx-serve-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) {
      std::string ir = str("ir");
      (void)!write(fd, ir.data(), ir.size());
      close(fd);
    }
    tempFile = path;
    std::string parent = str("parent");
    inv.command = parent.empty() ? "init" : "commit";
    inv.positional = {tempFile};
    if (!parent.empty())
      inv.options["--parent"] = parent;
    if (args.getString("message"))
      inv.options["-m"] = str("message");
  } else if (name == "view" || name == "summarize") {
    inv.command = "view";
    inv.positional = {str("version")};
    inv.options["--what"] = name == "view" ? str("what") : "summary";
  } else if (name == "action_schema") {
    inv.command = "schema";
  } else if (name == "apply") {
    inv.command = "apply";
    inv.positional = {str("version")};
    if (const json::Value *action = args.get("action")) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << *action;
      inv.options["--action"] = text;
    }
    if (args.getString("script")) {
      char path[] = "/tmp/tirx-serve-XXXXXX";
      int fd = mkstemp(path);
      if (fd >= 0) {
        std::string script = str("script");
        (void)!write(fd, script.data(), script.size());
        close(fd);
      }
      tempFile = path;
      inv.options["--script"] = tempFile;
    }
    if (args.getString("policy"))
      inv.options["--policy"] = str("policy");
    if (args.getString("message"))
      inv.options["-m"] = str("message");
  } else if (name == "run") {
    inv.command = "run";
    inv.positional = {str("version")};
    if (auto n = args.getInteger("samples"))
      inv.options["--samples"] = std::to_string(*n);
    if (auto n = args.getInteger("timeout"))
      inv.options["--timeout"] = std::to_string(*n);
  } else if (name == "diff") {
    inv.command = "diff";
    inv.positional = {str("from"), str("to")};
  } else if (name == "log") {
    inv.command = "log";
  } else if (name == "checkout") {
    inv.command = "checkout";
    inv.positional = {str("version")};
  } else if (name == "export_session") {
    inv.command = "export";
    inv.options["--session"] = str("path");
  } else {
    unknown = true;
    return {};
  }
  Outcome out = runCommand(inv);
  if (!tempFile.empty())
    std::remove(tempFile.c_str());
  json::Object result = std::move(out.data);
  result["ok"] = out.exit == kOk;
  if (!out.code.empty())
    result["error"] = rejectionJSON(out);
  if (out.exit != kOk) {
    // -32602 for a malformed call, -32001 for a harness refusal, -32003 for
    // a damaged workspace; the data is the rejection.
    Refusal r;
    r.code = out.exit == kUsage ? -32602 : out.exit == kDamaged ? -32003 : -32001;
    r.message = out.code + ": " + out.reason;
    r.data = std::move(result);
    refusal = std::move(r);
    return {};
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(json::Object(result));
  return json::Object{
      {"content", json::Array{json::Object{{"type", "text"}, {"text", text}}}},
      {"structuredContent", std::move(result)},
      {"isError", false}};
}

void send(const json::Object &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(json::Object(message));
  std::cout << text << "\n";
  std::cout.flush();
}
} // namespace

int mlir::tirx::serve(const std::string &workspace, const std::string &actor,
                      const std::string &session) {
  std::string line;
  while (true) {
    line.clear();
    // Read one line, refusing to buffer more than the limit.
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
      send(json::Object{{"jsonrpc", "2.0"}, {"id", nullptr},
                        {"error", rpcError(-32600, "request larger than " +
                                                       std::to_string(kMaxMessageBytes) +
                                                       " bytes")}});
      continue;
    }
    if (llvm::StringRef(line).trim().empty())
      continue;
    auto parsed = json::parse(line);
    if (!parsed) {
      std::string message = llvm::toString(parsed.takeError());
      send(json::Object{{"jsonrpc", "2.0"}, {"id", nullptr},
                        {"error", rpcError(-32700, "parse error: " + message)}});
      continue;
    }
    const json::Object *request = parsed->getAsObject();
    if (!request || request->getString("jsonrpc") != llvm::StringRef("2.0") ||
        !request->getString("method")) {
      send(json::Object{{"jsonrpc", "2.0"}, {"id", nullptr},
                        {"error", rpcError(-32600, "invalid request: expected "
                                                   "a JSON-RPC 2.0 object with "
                                                   "a method")}});
      continue;
    }
    const json::Value *id = request->get("id");
    bool notification = !id;
    llvm::StringRef method = *request->getString("method");
    json::Object empty;
    const json::Object *params = request->getObject("params");
    if (!params)
      params = &empty;
    auto reply = [&](json::Object result) {
      if (!notification)
        send(json::Object{{"jsonrpc", "2.0"}, {"id", *id}, {"result", std::move(result)}});
    };
    auto fail = [&](int code, const std::string &message, json::Value data = nullptr) {
      if (!notification)
        send(json::Object{{"jsonrpc", "2.0"}, {"id", *id},
                          {"error", rpcError(code, message, std::move(data))}});
    };
    if (method == "initialize") {
      reply(json::Object{
          {"protocolVersion",
           params->getString("protocolVersion").value_or(kProtocolVersion)},
          {"capabilities", json::Object{{"tools", json::Object{{"listChanged", false}}}}},
          {"serverInfo", json::Object{{"name", "tirx"}, {"version", "0.1.0"}}},
          {"instructions", "TIRx: versioned GPU payloads, legal transforms as "
                           "actions (see action_schema), views and runs."}});
    } else if (method == "notifications/initialized" ||
               method.starts_with("notifications/")) {
      // Notifications need no answer.
    } else if (method == "ping") {
      reply(json::Object{});
    } else if (method == "tools/list") {
      reply(json::Object{{"tools", tools()}});
    } else if (method == "tools/call") {
      auto name = params->getString("name");
      json::Object noArgs;
      const json::Object *args = params->getObject("arguments");
      if (!args)
        args = &noArgs;
      if (!name) {
        fail(-32602, "tools/call needs params.name");
        continue;
      }
      bool unknown = false;
      std::optional<Refusal> refusal;
      json::Object result =
          callTool(workspace, actor, session, *name, *args, unknown, refusal);
      if (unknown)
        fail(-32602, "unknown tool '" + name->str() + "'");
      else if (refusal)
        fail(refusal->code, refusal->message, std::move(refusal->data));
      else
        reply(std::move(result));
    } else {
      fail(-32601, "method not found: " + method.str());
    }
  }
}
