//===- Mcp.cpp - the Model Context Protocol over a workspace ----*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
//===----------------------------------------------------------------------===//

#include "tirx/Harness/Mcp.h"

#include "tirx/Harness/Actions.h"
#include "tirx/Harness/Report.h"
#include "tirx/Version.h"
#include "tirx/Support/JSON.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {

json::Object rpcError(int code, const std::string &message) {
  return json::Object{{"code", code}, {"message", message}};
}

json::Object param(const char *type, const char *description) {
  return json::Object{{"type", type}, {"description", description}};
}

json::Object versionParam(const char *what) {
  return json::Object{{"type", "string"},
                      {"pattern", "^v[0-9]+$"},
                      {"description", what}};
}

struct Hints {
  bool readOnly, destructive, idempotent;
};

json::Object tool(const char *name, const char *title, const char *description,
                  json::Object properties, json::Array required, Hints hints) {
  return json::Object{
      {"name", name},
      {"title", title},
      {"description", description},
      {"inputSchema", json::Object{{"type", "object"},
                                   {"properties", std::move(properties)},
                                   {"required", std::move(required)},
                                   {"additionalProperties", false}}},
      {"outputSchema",
       json::Object{{"type", "object"},
                    {"properties",
                     json::Object{{"ok", param("boolean",
                                               "whether the request was "
                                               "accepted")},
                                  {"error",
                                   param("object",
                                         "the refusal: code, message, hint, "
                                         "payload_op, location")}}},
                    {"required", json::Array{"ok"}}}},
      {"annotations", json::Object{{"title", title},
                                   {"readOnlyHint", hints.readOnly},
                                   {"destructiveHint", hints.destructive},
                                   {"idempotentHint", hints.idempotent},
                                   {"openWorldHint", false}}}};
}

/// The tool's result: the outcome's JSON as structured content and as text.
json::Object toolResult(llvm::Expected<Result> result) {
  Outcome outcome = outcomeOf(std::move(result));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << json::Value(json::Object(outcome.json));
  return json::Object{
      {"content", json::Array{json::Object{{"type", "text"}, {"text", text}}}},
      {"structuredContent", std::move(outcome.json)},
      {"isError", !outcome.ok}};
}
} // namespace

llvm::ArrayRef<const char *> McpServer::protocolVersions() {
  static const char *versions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

json::Array McpServer::tools() {
  json::Object viewWhat{
      {"type", "string"},
      {"description",
       "which view: loop_structure (loops and their mapping), thread_binding "
       "(grid and block sizes), memory_footprint (bytes per memory space), "
       "access_pattern (coalescing, vector widths), call_graph, roofline "
       "(flops, bytes, the bound), summary (all in a short text), all"},
      {"enum", json::Array{"loop_structure", "thread_binding",
                           "memory_footprint", "access_pattern", "call_graph",
                           "roofline", "summary", "all"}}};
  json::Object action = actionsSchema();
  action["description"] =
      "the action: {transform, params, target}; action_schema lists every "
      "transform with its parameters and preconditions";
  return json::Array{
      tool("read_ir", "Read IR",
           "The MLIR text of a payload version (its digest is verified).",
           json::Object{{"version", versionParam("the version to read, e.g. v3")}},
           json::Array{"version"}, {true, false, true}),
      tool("commit_ir", "Commit IR",
           "Record an MLIR payload as a new version: the seed (v1) of the "
           "workspace when it has none yet, else a child of `parent`. The "
           "payload is parsed and verified first.",
           json::Object{
               {"ir", param("string", "the payload, MLIR text")},
               {"parent", versionParam("the version the payload derives from "
                                       "(omit only for the seed)")},
               {"message", param("string", "a note recorded with the version")}},
           json::Array{"ir"}, {false, false, false}),
      tool("view", "View a version",
           "A structured analysis of a version: loops, thread binding, memory "
           "footprint, access pattern, call graph or roofline.",
           json::Object{{"version", versionParam("the version to analyze")},
                        {"what", std::move(viewWhat)}},
           json::Array{"version", "what"}, {true, false, true}),
      tool("summarize", "Summarize a version",
           "A compact text describing a version's kernels, loops, mapping and "
           "bound, for a prompt.",
           json::Object{{"version", versionParam("the version to summarize")}},
           json::Array{"version"}, {true, false, true}),
      tool("action_schema", "Action schema",
           "The JSON Schema of every action: each legal transform, its "
           "parameters and preconditions.",
           json::Object{}, json::Array{}, {true, false, true}),
      tool("apply", "Apply a transform",
           "Apply an action (or a transform script) to a version. Returns the "
           "new version, or a refusal with a code, a message, the payload op "
           "it concerns and a hint. A repeated request returns the earlier "
           "outcome without re-running it.",
           json::Object{
               {"version", versionParam("the version to transform")},
               {"action", std::move(action)},
               {"script", param("string",
                                "a transform-dialect module with "
                                "@__transform_main, instead of an action")},
               {"policy",
                json::Object{{"type", "string"},
                             {"enum", json::Array{"strict", "open"}},
                             {"description",
                              "for scripts: strict (transform.tirx.* and "
                              "vetted upstream ops, the default) or open "
                              "(any transform without side effects)"}}},
               {"message", param("string", "a note recorded with the version")}},
           json::Array{"version"}, {false, false, true}),
      tool("run", "Run a version on the GPU",
           "Lower and bundle a version and its reference (its chain's seed), "
           "then check it against the reference on random inputs and time "
           "it. Returns the feedback: correctness, median time, bandwidth, "
           "bottleneck.",
           json::Object{
               {"version", versionParam("the version to run")},
               {"samples", json::Object{{"type", "integer"},
                                        {"minimum", 1},
                                        {"maximum", 10000},
                                        {"description", "timed launches"}}},
               {"timeout", json::Object{{"type", "integer"},
                                        {"minimum", 1},
                                        {"maximum", 3600},
                                        {"description",
                                         "seconds before a launch is killed"}}}},
           json::Array{"version"}, {false, false, false}),
      tool("diff", "Diff two versions",
           "The structural changes (loops, mapping, memory) and the unified "
           "diff from one version to another.",
           json::Object{{"from", versionParam("the older version")},
                        {"to", versionParam("the newer version")}},
           json::Array{"from", "to"}, {true, false, true}),
      tool("log", "Version tree",
           "Every version with its parent, kind, message and the head.",
           json::Object{}, json::Array{}, {true, false, true}),
      tool("checkout", "Set the head",
           "Make a version the head an agent continues from.",
           json::Object{{"version", versionParam("the version to continue from")}},
           json::Array{"version"}, {false, false, true}),
      tool("export_session", "Export the session",
           "The session as JSON: task, target, versions and every step with "
           "its action and feedback deltas.",
           json::Object{}, json::Array{}, {true, false, true}),
  };
}

json::Object McpServer::callTool(llvm::StringRef name,
                                 const json::Object &args) {
  auto str = [&](const char *key) {
    return args.getString(key).value_or("").str();
  };
  if (name == "commit_ir" && str("parent").empty())
    return toolResult([&]() -> llvm::Expected<Result> {
      llvm::Expected<Initialized> made =
          Session::init(workspace, str("ir"), "commit_ir", {}, who);
      if (!made)
        return made.takeError();
      return std::move(made->seed);
    }());
  if (name == "action_schema") {
    Result schema;
    schema.data = actionsSchema();
    return toolResult(std::move(schema));
  }
  llvm::Expected<Session> session = Session::open(workspace, who);
  if (!session)
    return toolResult(session.takeError());
  Session &s = *session;
  if (name == "read_ir")
    return toolResult(s.show(str("version")));
  if (name == "commit_ir")
    return toolResult(s.commit(str("parent"), str("ir"), "commit_ir",
                               str("message")));
  if (name == "view")
    return toolResult(s.view(str("version"), str("what")));
  if (name == "summarize")
    return toolResult(s.view(str("version"), "summary"));
  if (name == "apply") {
    ApplyOptions options;
    options.message = str("message");
    if (args.get("policy")) {
      std::optional<ScriptPolicy> policy = policyNamed(str("policy"));
      if (!policy)
        return toolResult(refuse(RefusalCode::usage,
                                 "policy is \"strict\" or \"open\""));
      options.policy = *policy;
    }
    if (const json::Value *action = args.get("action"))
      return toolResult(s.applyAction(str("version"), *action, options));
    if (args.getString("script"))
      return toolResult(
          s.applyScript(str("version"), str("script"), "script", options));
    return toolResult(refuse(RefusalCode::usage,
                             "apply takes an action or a script"));
  }
  if (name == "run") {
    RunOptions options;
    options.samples = args.getInteger("samples");
    options.timeout = args.getInteger("timeout");
    return toolResult(s.run(str("version"), options));
  }
  if (name == "diff")
    return toolResult(s.diff(str("from"), str("to")));
  if (name == "log")
    return toolResult(s.log());
  if (name == "checkout")
    return toolResult(s.checkout(str("version")));
  return toolResult(s.exportSession());
}

/// The resources: the workspace's report page (docs/report.md).
static const char *kReportUri = "tirx://report";

json::Object McpServer::resources() {
  return json::Object{
      {"resources",
       json::Array{json::Object{
           {"uri", kReportUri},
           {"name", "report"},
           {"title", "Session report"},
           {"description",
            "One self-contained HTML page: the version tree with times and "
            "speed-ups over the seed, the roofline, kernel time shares, "
            "refusals and the best schedule as actions."},
           {"mimeType", "text/html"}}}}};
}

std::optional<json::Object> McpServer::readResource(llvm::StringRef uri,
                                                    json::Object &error) {
  if (uri != kReportUri) {
    error = rpcError(-32002, "resource not found: " + uri.str());
    error["data"] = json::Object{{"uri", uri}};
    return std::nullopt;
  }
  llvm::Expected<Session> session = Session::open(workspace, who);
  llvm::Expected<Result> page =
      session ? report(*session, {}) : session.takeError();
  if (!page) {
    Outcome out = outcomeOf(std::move(page));
    error = rpcError(-32603, out.refusal ? out.refusal->message : "refused");
    error["data"] = std::move(out.json);
    return std::nullopt;
  }
  return json::Object{
      {"contents", json::Array{json::Object{{"uri", kReportUri},
                                            {"mimeType", "text/html"},
                                            {"text", page->text}}}}};
}

std::optional<json::Value> McpServer::handle(llvm::StringRef line) {
  auto answer = [](json::Value id, const char *key, json::Value value) {
    return json::Value(json::Object{
        {"jsonrpc", "2.0"}, {"id", std::move(id)}, {key, std::move(value)}});
  };
  auto parsed = parseJSON(line);
  if (!parsed)
    return answer(nullptr, "error",
                  rpcError(-32700, "parse error: " +
                                       llvm::toString(parsed.takeError())));
  const json::Object *request = parsed->getAsObject();
  if (!request || request->getString("jsonrpc") != llvm::StringRef("2.0") ||
      !request->getString("method"))
    return answer(nullptr, "error",
                  rpcError(-32600, "invalid request: expected a JSON-RPC 2.0 "
                                   "object with a method"));
  const json::Value *idValue = request->get("id");
  if (!idValue) // a notification: nothing to answer
    return std::nullopt;
  json::Value id = *idValue;
  if (id.kind() != json::Value::String && id.kind() != json::Value::Number)
    return answer(nullptr, "error",
                  rpcError(-32600, "invalid request: id must be a string or "
                                   "a number"));
  llvm::StringRef method = *request->getString("method");
  json::Object empty;
  const json::Object *params = request->getObject("params");
  if (!params)
    params = &empty;
  if (method == "initialize") {
    // The client's version if the server speaks it, else the newest.
    auto asked = params->getString("protocolVersion");
    const char *version = protocolVersions().front();
    for (const char *v : protocolVersions())
      if (asked && *asked == v)
        version = v;
    return answer(
        id, "result",
        json::Object{
            {"protocolVersion", version},
            {"capabilities",
             json::Object{{"tools", json::Object{{"listChanged", false}}},
                          {"resources",
                           json::Object{{"listChanged", false},
                                        {"subscribe", false}}}}},
            {"serverInfo",
             json::Object{{"name", "tirx"}, {"version", TIRX_VERSION_STRING}}},
            {"instructions",
             "TIRx: a workspace of versioned GPU payloads (MLIR). Read a "
             "version (read_ir, view, summarize), change it only through "
             "legal transforms (apply with an action from action_schema), "
             "measure it (run), compare (diff, log). A refusal comes back as "
             "a result with isError and a structured error: code, message, "
             "payload_op, hint."}});
  }
  if (method == "ping")
    return answer(id, "result", json::Object{});
  if (method == "tools/list")
    return answer(id, "result", json::Object{{"tools", tools()}});
  if (method == "resources/list")
    return answer(id, "result", resources());
  if (method == "resources/read") {
    auto uri = params->getString("uri");
    if (!uri)
      return answer(id, "error",
                    rpcError(-32602, "resources/read needs params.uri"));
    json::Object error;
    if (std::optional<json::Object> read = readResource(*uri, error))
      return answer(id, "result", std::move(*read));
    return answer(id, "error", std::move(error));
  }
  if (method == "tools/call") {
    auto name = params->getString("name");
    if (!name)
      return answer(id, "error",
                    rpcError(-32602, "tools/call needs params.name"));
    json::Array known = tools();
    bool exists = llvm::any_of(known, [&](const json::Value &t) {
      return t.getAsObject()->getString("name") == *name;
    });
    if (!exists)
      return answer(id, "error",
                    rpcError(-32602, "unknown tool '" + name->str() + "'"));
    json::Object noArgs;
    const json::Object *args = params->getObject("arguments");
    if (params->get("arguments") && !args)
      return answer(id, "error",
                    rpcError(-32602, "tools/call: arguments must be an "
                                     "object"));
    return answer(id, "result", callTool(*name, args ? *args : noArgs));
  }
  return answer(id, "error",
                rpcError(-32601, "method not found: " + method.str()));
}
