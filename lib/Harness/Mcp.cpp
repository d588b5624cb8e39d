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

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;

namespace {

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
                                         "seconds before a launch is killed"}}},
               {"counters",
                json::Object{{"type", "boolean"},
                             {"description",
                              "also profile it with Nsight Compute: achieved "
                              "occupancy, DRAM/SM throughput, stall reasons"}}}},
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

namespace {
/// Arguments outside the tool's input schema, of the wrong JSON type, or
/// missing: a usage refusal naming them (the schema says
/// additionalProperties: false; a client that ignores it learns why).
llvm::Error checkArguments(llvm::StringRef name, const json::Object &args) {
  json::Array known = McpServer::tools();
  const json::Object *schema = nullptr;
  for (const json::Value &t : known)
    if (t.getAsObject()->getString("name") == name)
      schema = t.getAsObject()->getObject("inputSchema");
  const json::Object *properties = schema->getObject("properties");
  std::string accepted;
  for (const auto &[key, value] : *properties)
    accepted += (accepted.empty() ? "" : ", ") + key.str();
  for (const auto &[key, value] : args) {
    const json::Object *property = properties->getObject(key);
    if (!property)
      return refuse(RefusalCode::usage,
                    name.str() + " has no argument \"" + key.str() + "\"",
                    accepted.empty() ? name.str() + " takes no arguments"
                                     : name.str() + " takes " + accepted);
    auto type = property->getString("type");
    bool fits = !type ||
                (*type == "string" && value.getAsString()) ||
                (*type == "integer" && value.getAsInteger()) ||
                (*type == "object" && value.getAsObject()) ||
                (*type == "boolean" && value.getAsBoolean());
    if (!fits)
      return refuse(RefusalCode::usage, name.str() + ": argument \"" +
                                            key.str() + "\" must be " +
                                            (*type == "integer" ? "an " : "a ") +
                                            type->str());
    // The rest of the property's schema: a client may skip validation, so
    // the bounds, the enum and the pattern it advertises are held here too.
    auto outside = [&](const std::string &why) {
      return refuse(RefusalCode::usage,
                    name.str() + ": argument \"" + key.str() + "\" " + why);
    };
    if (std::optional<int64_t> n = value.getAsInteger()) {
      std::optional<int64_t> lo = property->getInteger("minimum");
      std::optional<int64_t> hi = property->getInteger("maximum");
      if ((lo && *n < *lo) || (hi && *n > *hi))
        return outside("is " + std::to_string(*n) + ", outside [" +
                       (lo ? std::to_string(*lo) : "") + ", " +
                       (hi ? std::to_string(*hi) : "") + "]");
    }
    if (const json::Array *allowed = property->getArray("enum")) {
      if (llvm::find(*allowed, value) == allowed->end()) {
        std::string names;
        for (const json::Value &a : *allowed)
          if (std::optional<llvm::StringRef> s = a.getAsString())
            names += (names.empty() ? "" : ", ") + s->str();
        return outside("is none of " + names);
      }
    }
    if (std::optional<llvm::StringRef> pattern = property->getString("pattern"))
      if (std::optional<llvm::StringRef> s = value.getAsString())
        if (!llvm::Regex(*pattern).match(*s))
          return outside("does not match " + pattern->str());
  }
  for (const json::Value &required : *schema->getArray("required"))
    if (!args.get(*required.getAsString()))
      return refuse(RefusalCode::usage,
                    name.str() + " needs the argument \"" +
                        required.getAsString()->str() + "\"");
  return llvm::Error::success();
}
} // namespace

json::Object McpServer::callTool(llvm::StringRef name,
                                 const json::Object &args) {
  if (llvm::Error e = checkArguments(name, args))
    return toolResult(std::move(e));
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
  s.limits() = limits;
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
    options.counters = args.getBoolean("counters").value_or(false);
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

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

namespace {
std::string text(const json::Value &value) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << value;
  return out;
}

/// An answer line: the id first, as the request wrote it.
std::string answerText(const std::string &id, const char *key,
                       json::Value value) {
  return "{\"id\":" + id + "," +
         text(json::Object{{"jsonrpc", "2.0"}, {key, std::move(value)}})
             .substr(1);
}

json::Object rpcError(int code, const std::string &message) {
  return json::Object{{"code", code}, {"message", message}};
}

std::string errorText(const std::string &id, int code,
                      const std::string &message) {
  return answerText(id, "error",
                    json::Object{{"code", code}, {"message", message}});
}
} // namespace

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

McpServer::Message McpServer::read(llvm::StringRef line) {
  Message m;
  // A number id is kept as written: llvm::json would turn
  // 12345678901234567890123 into a double and 1e400 into inf (not JSON).
  // The parser sees a 0 in its place.
  std::string parseable = line.str();
  std::optional<std::string> rawId;
  if (auto span = numberMember(line, "id")) {
    rawId = line.slice(span->first, span->second).str();
    parseable.replace(span->first, span->second - span->first, "0");
  }
  auto parsed = parseJSON(parseable);
  if (!parsed) {
    m.error = errorText("null", -32700,
                        "parse error: " + llvm::toString(parsed.takeError()));
    return m;
  }


  const json::Object *request = parsed->getAsObject();
  if (!request || request->getString("jsonrpc") != llvm::StringRef("2.0") ||
      !request->getString("method")) {
    m.error = errorText("null", -32600,
                        "invalid request: expected a JSON-RPC 2.0 object "
                        "with a method");
    return m;
  }
  m.method = request->getString("method")->str();
  if (const json::Object *params = request->getObject("params"))
    m.params = *params;
  const json::Value *id = request->get("id");
  if (!id) // a notification: nothing to answer
    return m;
  if (id->kind() == json::Value::Number && rawId)
    m.id = *rawId;
  else if (id->kind() == json::Value::String)
    m.id = text(*id);
  else
    m.error = errorText("null", -32600,
                        "invalid request: id must be a string or a number");
  return m;
}

std::optional<std::string> McpServer::handle(llvm::StringRef line) {
  return answer(read(line));
}

std::optional<std::string> McpServer::answer(const Message &m) {
  if (m.error)
    return m.error;
  if (m.id.empty())
    return std::nullopt;
  const std::string &id = m.id;
  const json::Object &params = m.params;
  if (m.method == "initialize") {
    // The client's version if the server speaks it, else the newest (the
    // client then decides whether it can go on).
    auto asked = params.getString("protocolVersion");
    const char *version = protocolVersions().front();
    for (const char *v : protocolVersions())
      if (asked && *asked == v)
        version = v;
    return answerText(
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
  if (m.method == "ping")
    return answerText(id, "result", json::Object{});
  if (m.method == "tools/list")
    return answerText(id, "result", json::Object{{"tools", tools()}});
  if (m.method == "resources/list")
    return answerText(id, "result", resources());
  if (m.method == "resources/read") {
    auto uri = params.getString("uri");
    if (!uri)
      return answerText(id, "error",
                        rpcError(-32602, "resources/read needs params.uri"));
    json::Object error;
    if (std::optional<json::Object> read = readResource(*uri, error))
      return answerText(id, "result", std::move(*read));
    return answerText(id, "error", std::move(error));
  }
  if (m.method == "tools/call") {
    auto name = params.getString("name");
    if (!name)
      return errorText(id, -32602, "tools/call needs params.name");
    json::Array known = tools();
    bool exists = llvm::any_of(known, [&](const json::Value &t) {
      return t.getAsObject()->getString("name") == *name;
    });
    if (!exists)
      return errorText(id, -32602, "unknown tool '" + name->str() + "'");
    json::Object noArgs;
    const json::Object *args = params.getObject("arguments");
    if (params.get("arguments") && !args)
      return errorText(id, -32602, "tools/call: arguments must be an object");
    return answerText(id, "result", callTool(*name, args ? *args : noArgs));
  }
  return errorText(id, -32601, "method not found: " + m.method);
}

void McpServer::recordCancelled(const std::string &tool,
                                const std::string &id) {
  llvm::Expected<Session> session = Session::open(workspace, who);
  if (!session) {
    llvm::consumeError(session.takeError());
    return;
  }
  llvm::consumeError(session->recordRefusal(
      tool, json::Object{{"request", id}},
      refuse(RefusalCode::cancelled,
             "cancelled by the client (notifications/cancelled); what the "
             "request had not committed was not made")));
}

//===----------------------------------------------------------------------===//
// Serving: the transport
//===----------------------------------------------------------------------===//

namespace {
constexpr size_t kMaxMessageBytes = size_t(8) << 20;
/// Reading stops while this much output waits for the client.
constexpr size_t kMaxBacklog = size_t(64) << 20;
/// tools/call requests waiting for a worker; more are refused.
constexpr size_t kMaxWaiting = 256;

/// A tools/call request, waiting or running in a worker process.
struct Job {
  std::string line, id, tool;
  pid_t pid = -1;
  int fd = -1;
  std::string answer;
  bool cancelled = false;
};

bool writeAll(int fd, llvm::StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes = bytes.drop_front(size_t(n));
  }
  return true;
}
} // namespace

int McpServer::serve(int in, int out, unsigned workers) {
  std::signal(SIGPIPE, SIG_IGN);
  std::string input, output;
  bool inputEnded = false, skipping = false;
  std::deque<Job> waiting;
  std::vector<Job> running;
  pid_t self = getpid();

  auto send = [&](const std::string &line) { output += line + "\n"; };
  auto start = [&]() {
    while (running.size() < std::max(1u, workers) && !waiting.empty()) {
      Job job = std::move(waiting.front());
      waiting.pop_front();
      int fds[2];
      if (pipe2(fds, O_CLOEXEC) != 0) {
        send(errorText(job.id, -32603,
                       std::string("internal error: pipe() failed: ") +
                           strerror(errno)));
        continue;
      }
      pid_t pid = fork();
      if (pid == 0) {
        // The worker: its own process group (a cancel kills it and its
        // children at once), dead with the server, nothing on the
        // server's output but what the server writes.
        ::close(fds[0]);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self)
          _exit(1);
        int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
          dup2(null, out);
          dup2(null, in);
          ::close(null);
        }
        std::optional<std::string> a = answer(read(job.line));
        _exit(a && writeAll(fds[1], *a) ? 0 : 1);
      }
      ::close(fds[1]);
      if (pid < 0) {
        ::close(fds[0]);
        send(errorText(job.id, -32603,
                       std::string("internal error: fork() failed: ") +
                           strerror(errno)));
        continue;
      }
      setpgid(pid, pid);
      job.pid = pid;
      job.fd = fds[0];
      running.push_back(std::move(job));
    }
  };
  auto cancel = [&](const json::Value *requestId) {
    if (!requestId)
      return;
    std::string id = text(*requestId);
    for (Job &job : running)
      if (job.id == id && !job.cancelled) {
        // SIGTERM, not SIGKILL: a worker in the middle of an append ends
        // after it (the workspace lock defers the signal); its MLIR child
        // dies with it.
        job.cancelled = true;
        kill(-job.pid, SIGTERM);
      }
    for (auto it = waiting.begin(); it != waiting.end();)
      if (it->id == id) {
        recordCancelled(it->tool, it->id);
        it = waiting.erase(it);
      } else {
        ++it;
      }
  };
  auto onLine = [&](llvm::StringRef line) {
    if (line.trim().empty())
      return;
    Message m = read(line);
    if (!m.error && !m.id.empty() && m.method == "tools/call") {
      if (waiting.size() >= kMaxWaiting) {
        send(errorText(m.id, -32000,
                       "server busy: " + std::to_string(kMaxWaiting) +
                           " requests wait already; send it again later"));
        return;
      }
      Job job;
      job.line = line.str();
      job.id = m.id;
      job.tool = m.params.getString("name").value_or("tools/call").str();
      waiting.push_back(std::move(job));
      start();
      return;
    }
    if (!m.error && m.method == "notifications/cancelled") {
      cancel(m.params.get("requestId"));
      return;
    }
    if (std::optional<std::string> a = answer(m))
      send(*a);
  };
  auto finish = [&](Job &job) {
    // Whatever the worker left behind in its group goes with it, before it
    // is reaped (while its pid, the group's id, cannot be reused).
    siginfo_t info;
    while (waitid(P_PID, id_t(job.pid), &info, WEXITED | WNOWAIT) < 0 &&
           errno == EINTR) {
    }
    kill(-job.pid, SIGKILL);
    int status = 0;
    while (waitpid(job.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (job.cancelled) {
      recordCancelled(job.tool, job.id);
      return;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !job.answer.empty())
      send(job.answer);
    else
      send(errorText(job.id, -32603,
                     WIFSIGNALED(status)
                         ? std::string("internal error: the request's "
                                       "process died of signal ") +
                               strsignal(WTERMSIG(status))
                         : std::string("internal error: the request's "
                                       "process gave no answer")));
  };

  std::vector<char> buffer(1 << 16);
  while (true) {
    if (inputEnded && running.empty() && waiting.empty() && output.empty())
      return 0;
    std::vector<pollfd> fds;
    bool reading = !inputEnded && output.size() < kMaxBacklog;
    fds.push_back({in, short(reading ? POLLIN : 0), 0});
    fds.push_back({out, short(output.empty() ? 0 : POLLOUT), 0});
    for (const Job &job : running)
      fds.push_back({job.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR)
        continue;
      return 1;
    }
    if (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)) {
      // At most a page: a pipe that polls writable takes that much
      // without blocking.
      ssize_t n = ::write(out, output.data(), std::min<size_t>(output.size(), 4096));
      if (n < 0 && errno != EINTR && errno != EAGAIN) {
        for (Job &job : running)
          kill(-job.pid, SIGTERM);
        return 1;
      }
      if (n > 0)
        output.erase(0, size_t(n));
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (!fds[2 + i].revents)
        continue;
      Job &job = running[i];
      ssize_t n = ::read(job.fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n > 0) {
        job.answer.append(buffer.data(), size_t(n));
        continue;
      }
      ::close(job.fd);
      finish(job);
      running.erase(running.begin() + i);
      start();
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = ::read(in, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        inputEnded = true;
        if (!input.empty() && !skipping)
          onLine(input);
        input.clear();
        continue;
      }
      for (llvm::StringRef chunk(buffer.data(), size_t(n)); !chunk.empty();) {
        size_t newline = chunk.find('\n');
        llvm::StringRef part = chunk.take_front(newline);
        chunk = newline == llvm::StringRef::npos ? llvm::StringRef()
                                                 : chunk.drop_front(newline + 1);
        if (!skipping && input.size() + part.size() > kMaxMessageBytes) {
          skipping = true;
          input.clear();
          send(errorText("null", -32600,
                         "request larger than " +
                             std::to_string(kMaxMessageBytes) + " bytes"));
        }
        if (!skipping)
          input.append(part.data(), part.size());
        if (newline == llvm::StringRef::npos)
          break;
        if (!skipping)
          onLine(input);
        input.clear();
        skipping = false;
      }
    }
  }
}
