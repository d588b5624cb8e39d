//===- Commands.cpp - the tirx CLI's commands -------------------*- C++ -*-===//
//
// Part of TIRx, an open compiler harness for agentic GPU programming.
//
// Anything that parses or transforms IR runs in a child process: a crash
// of the interpreter (Debian's LLVM has no assertions) becomes a refusal,
// never a dead harness or a half-written workspace. The parent only reads
// and appends under the workspace lock.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "Actions.h"

#include "tirx/Analysis/Structure.h"
#include "tirx/Dialect/TIRx/IR/TIRxOps.h"
#include "tirx/InitAllTIRx.h"
#include "tirx/Runtime/Files.h"
#include "tirx/Runtime/Feedback.h"
#include "tirx/Dialect/TIRx/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <functional>
#include <map>

#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tirx;
namespace json = llvm::json;
namespace rt = ::tirx::runtime;

namespace {
//===----------------------------------------------------------------------===//
// MLIR work, isolated in a child process
//===----------------------------------------------------------------------===//

struct ChildResult {
  bool ok = false;
  std::string code;    // when !ok
  std::string message; // when !ok
  std::string text;    // canonical text, when ok
  // A refusal from a transform: "<code>: <message>" with notes
  // "payload op: <path>" (at the payload op's location) and "hint: ...".
  std::string hint, payloadOp, payloadLoc;
};

std::string locText(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return text;
}

DialectRegistry &registry() {
  static DialectRegistry r = [] {
    DialectRegistry reg;
    registerTIRxToolDialects(reg);
    // Scripts under the open policy may run registered passes by name.
    registerAllPasses();
    registerAllTIRxPasses();
    return reg;
  }();
  return r;
}

/// Runs `work` in a forked child with its own MLIRContext (single-threaded,
/// so fork is safe); the child's diagnostics become the message.
ChildResult isolated(const std::function<ChildResult(MLIRContext &)> &work) {
  if (std::getenv("TIRX_DEBUG_NO_FORK")) { // for debuggers only
    MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
    return work(context);
  }
  char path[] = "/tmp/tirx-child-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return {false, "internal", "cannot create a temporary file", ""};
  ::close(fd);
  std::string resultPath = path;
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = fork();
  if (pid < 0) {
    std::remove(path);
    return {false, "internal", "fork() failed", ""};
  }
  if (pid == 0) {
    MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
    context.printOpOnDiagnostic(false);
    std::string diagnostics;
    std::optional<ChildResult> refusal;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return;
      if (!diagnostics.empty())
        diagnostics += "\n";
      diagnostics += locText(diag.getLocation()) + ": " + diag.str();
      for (const Diagnostic &note : diag.getNotes())
        diagnostics += "\n" + locText(note.getLocation()) + ": note: " +
                       note.str();
      // The first "<code>: <message>" error is a transform's refusal (or a
      // verifier's: "'transform.tirx.vectorize' op <code>: <message>").
      std::string storage = diag.str();
      llvm::StringRef text = storage;
      if (text.starts_with("'")) {
        size_t op = text.find("' op ");
        if (op != llvm::StringRef::npos)
          text = text.drop_front(op + 5);
      }
      auto [code, rest] = text.split(": ");
      if (refusal || rest.empty() || code.empty() ||
          !llvm::all_of(code, [](char c) { return llvm::isLower(c) || c == '_'; }))
        return;
      ChildResult r;
      r.code = code.str();
      r.message = rest.str();
      r.payloadLoc = locText(diag.getLocation());
      for (const Diagnostic &note : diag.getNotes()) {
        std::string noteText = note.str();
        llvm::StringRef n = noteText;
        if (n.consume_front("hint: "))
          r.hint = n.str();
        else if (n.consume_front("payload op: ")) {
          r.payloadOp = n.str();
          r.payloadLoc = locText(note.getLocation());
        }
      }
      refusal = r;
    });
    ChildResult r = work(context);
    if (!r.ok && refusal) {
      r.code = refusal->code;
      r.message = refusal->message;
      r.hint = refusal->hint;
      r.payloadOp = refusal->payloadOp;
      r.payloadLoc = refusal->payloadLoc;
    } else if (!r.ok && !diagnostics.empty()) {
      r.message += r.message.empty() ? diagnostics : ":\n" + diagnostics;
    }
    json::Object o{{"ok", r.ok}, {"code", r.code}, {"message", r.message},
                   {"text", r.text}, {"hint", r.hint},
                   {"payload_op", r.payloadOp}, {"payload_loc", r.payloadLoc}};
    std::string out;
    llvm::raw_string_ostream os(out);
    os << json::Value(std::move(o));
    std::string error;
    rt::writeFileAtomically(resultPath, out, error);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string text, error;
  bool read = rt::readFile(resultPath, text, error);
  std::remove(resultPath.c_str());
  if (WIFSIGNALED(status))
    return {false, "interpreter_crashed",
            std::string("the MLIR process died of signal ") +
                strsignal(WTERMSIG(status)) +
                " (Debian's LLVM has no assertions: bad input can crash "
                "upstream code); no version was made",
            ""};
  auto parsed = read ? json::parse(text) : json::Value(nullptr);
  if (!parsed || !parsed->getAsObject()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return {false, "internal", "the MLIR process left no result", ""};
  }
  const json::Object &o = *parsed->getAsObject();
  ChildResult r;
  r.ok = o.getBoolean("ok").value_or(false);
  r.code = o.getString("code").value_or("").str();
  r.message = o.getString("message").value_or("").str();
  r.text = o.getString("text").value_or("").str();
  r.hint = o.getString("hint").value_or("").str();
  r.payloadOp = o.getString("payload_op").value_or("").str();
  r.payloadLoc = o.getString("payload_loc").value_or("").str();
  return r;
}

OwningOpRef<ModuleOp> parseModule(MLIRContext &ctx, const std::string &text,
                                  const std::string &name) {
  ParserConfig config(&ctx);
  return parseSourceString<ModuleOp>(text, config, name);
}

/// Parses and verifies a payload; returns its canonical text.
ChildResult canonicalize(MLIRContext &ctx, const std::string &text,
                         const std::string &name) {
  OwningOpRef<ModuleOp> module = parseModule(ctx, text, name);
  if (!module)
    return {false, "parse_error", name + " does not parse as MLIR", ""};
  if (failed(verify(*module)))
    return {false, "verify_error", name + " does not verify", ""};
  return {true, "", "", canonicalText(*module)};
}

/// Applies `script` to `payload` (texts); returns the child's canonical text.
/// The payload ops an action targets: its target.op, and target.index.
struct ActionTarget {
  std::string op;
  std::optional<int64_t> index;
};

/// The target of a canonical action, if `action` is one.
std::optional<ActionTarget> targetOf(const std::string &action) {
  auto parsed = json::parse(action);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  const json::Object *target =
      parsed->getAsObject() ? parsed->getAsObject()->getObject("target")
                            : nullptr;
  if (!target || !target->getString("op"))
    return std::nullopt;
  return ActionTarget{target->getString("op")->str(),
                      target->getInteger("index")};
}

ChildResult applyScript(MLIRContext &ctx, const std::string &payloadText,
                        const std::string &payloadName,
                        const std::string &scriptText,
                        const std::string &scriptName,
                        llvm::StringRef policy = "open",
                        std::optional<ActionTarget> target = std::nullopt) {
  OwningOpRef<ModuleOp> payload = parseModule(ctx, payloadText, payloadName);
  if (!payload)
    return {false, "parse_error", payloadName + " does not parse", ""};
  OwningOpRef<ModuleOp> script = parseModule(ctx, scriptText, scriptName);
  if (!script)
    return {false, "script_invalid", scriptName + " does not parse as MLIR",
            ""};
  if (!(*script)->hasAttr(
          transform::TransformDialect::kWithNamedSequenceAttrName))
    return {false, "script_invalid",
            scriptName + ": the script module needs the attribute "
                         "transform.with_named_sequence",
            ""};
  Location policyLoc = UnknownLoc::get(&ctx);
  std::string refusedBy = checkScriptPolicy(*script, policy, policyLoc);
  if (!refusedBy.empty()) {
    ChildResult r{false, "policy_refused", refusedBy, ""};
    r.payloadLoc = locText(policyLoc);
    r.hint = "use transform.tirx.* and the vetted upstream ops (docs/actions.md), "
             "or ask for the open policy";
    return r;
  }
  if (target) {
    // An action's target must exist before its script runs (its parameters
    // were checked as the script parsed): an empty match would change
    // nothing, an index past the ops would fail deep in the interpreter.
    int64_t count = 0;
    payload->walk([&](Operation *op) {
      count += op->getName().getStringRef() == target->op;
    });
    ChildResult refused{false, "no_such_target", "", ""};
    if (count == 0) {
      refused.message = payloadName + " has no " + target->op + " op";
      refused.hint = "target an op the payload has (tirx view " +
                     payloadName + " shows its loops and ops)";
      return refused;
    }
    if (target->index && *target->index >= count) {
      refused.message = "target.index " + std::to_string(*target->index) +
                        ", but " + payloadName + " has " +
                        std::to_string(count) + " " + target->op + " op" +
                        (count == 1 ? "" : "s");
      refused.hint = "use an index from 0 to " + std::to_string(count - 1);
      return refused;
    }
  }
  // The interpreter pass loads the dialects transforms generate ops of
  // (vector, ub, gpu, ...) before it runs; running the interpreter
  // directly, so must we, or new ops would be of unloaded dialects.
  ctx.loadAllAvailableDialects();
  transform::TransformOpInterface entry =
      transform::detail::findTransformEntryPoint(
          script.get(), *script,
          transform::TransformDialect::kTransformEntryPointSymbolName);
  if (!entry)
    return {false, "script_invalid",
            scriptName + " has no transform.named_sequence @__transform_main",
            ""};
  if (failed(transform::applyTransformNamedSequence(
          payload.get(), entry, *script, transform::TransformOptions())))
    return {false, "script_failed",
            "the transform script failed on " + payloadName, ""};
  if (failed(verify(*payload)))
    return {false, "verify_error",
            "the transformed payload does not verify", ""};
  // Every access a kernel of the result makes must be proven in bounds.
  PassManager bounds(&ctx);
  bounds.addPass(createTIRxCheckBounds());
  if (failed(bounds.run(*payload)))
    return {false, "unsafe_bounds",
            "the result has an access that cannot be proven in bounds", ""};
  return {true, "", "", canonicalText(*payload)};
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Outcome refuse(int exit, std::string code, std::string reason) {
  Outcome o;
  o.exit = exit;
  o.code = std::move(code);
  o.reason = std::move(reason);
  return o;
}

/// A refusal from the MLIR child, with its hint and payload op.
Outcome refusal(const ChildResult &r) {
  Outcome o = refuse(kRefused, r.code, r.message);
  o.hint = r.hint;
  o.payloadOp = r.payloadOp;
  o.payloadLoc = r.payloadLoc;
  return o;
}

/// Damage found while reading: exit 3, code "workspace_damaged".
Outcome damaged(std::string reason) {
  return refuse(kDamaged, "workspace_damaged", std::move(reason));
}

std::string readInput(const std::string &path, std::string &text) {
  std::string error;
  if (!rt::readFile(path, text, error))
    return error;
  return "";
}

json::Object entryJSON(const VersionEntry &e, const std::string &head) {
  json::Object o = e.toJSON();
  o["head"] = e.id == head;
  return o;
}

std::string shortDigest(const std::string &digest) {
  return digest.substr(std::strlen("sha256:"), 12);
}

/// Commits `text` as a child of `parent` under the lock: writes the object,
/// appends the index line and the request record. The caller holds the
/// lock and has checked for duplicates.
Outcome commitVersion(const Workspace &ws, std::vector<VersionEntry> &entries,
                      VersionEntry entry, const std::string &text,
                      const std::string &signature) {
  std::string error;
  if (!ws.writeObject(text, entry.digest, error))
    return damaged(error);
  entry.id = "v" + std::to_string(entries.size() + 1);
  entry.time = nowUtc();
  if (!ws.appendVersion(entry, error))
    return refuse(kRefused, "io_error", error);
  if (!signature.empty() &&
      !ws.appendRequest({signature, "accepted", entry.id, "", ""}, error))
    return refuse(kRefused, "io_error", error);
  entries.push_back(entry);
  Outcome out;
  out.version = entry.id;
  out.data = json::Object{{"version", entryJSON(entry, ws.head())}};
  out.text = entry.id + " " + shortDigest(entry.digest) + " (" + entry.kind +
             (entry.parent.empty() ? "" : " from " + entry.parent) + ")\n";
  return out;
}

const RequestRecord *findRequest(const std::vector<RequestRecord> &records,
                                 const std::string &signature) {
  for (const RequestRecord &r : records)
    if (r.signature == signature)
      return &r;
  return nullptr;
}

/// The earlier outcome of a repeated request.
Outcome repeated(const RequestRecord &r,
                 const std::vector<VersionEntry> &entries,
                 const std::string &head) {
  if (r.outcome == "accepted") {
    Outcome out;
    out.version = r.version;
    for (const VersionEntry &e : entries)
      if (e.id == r.version)
        out.data = json::Object{{"version", entryJSON(e, head)},
                                {"deduplicated", true}};
    out.text = r.version + " (the same request was made before: its "
                           "earlier result, nothing re-run)\n";
    out.code = "";
    return out;
  }
  Outcome out = refuse(kRefused, r.code, r.reason + " (refused before: the "
                                                    "earlier refusal, nothing "
                                                    "re-run)");
  out.hint = r.hint;
  out.payloadOp = r.payloadOp;
  out.payloadLoc = r.payloadLoc;
  out.data = json::Object{{"deduplicated", true}};
  return out;
}

//===----------------------------------------------------------------------===//
// Commands
//===----------------------------------------------------------------------===//

/// Reads version `id` (index checked, object digest verified). On failure
/// the returned outcome says why (unknown id, damage); else exit is kOk.
Outcome loadVersion(const Workspace &ws, const std::string &id,
                    VersionEntry &entry, std::string &text) {
  std::vector<VersionEntry> entries;
  std::string error;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  const VersionEntry *e = Workspace::find(entries, id, error);
  if (!e)
    return refuse(kRefused, "unknown_version", error);
  entry = *e;
  if (!ws.readObject(e->digest, text, error))
    return damaged(error);
  return Outcome();
}


Outcome cmdInit(const Invocation &inv) {
  if (inv.positional.size() != 1)
    return refuse(kUsage, "usage", "init takes one payload file");
  std::string text;
  std::string error = readInput(inv.positional[0], text);
  if (!error.empty())
    return refuse(kRefused, "not_found", error);
  std::string name = inv.positional[0];
  ChildResult r = isolated(
      [&](MLIRContext &ctx) { return canonicalize(ctx, text, name); });
  if (!r.ok)
    return refuse(kRefused, r.code, r.message);
  std::optional<Workspace> ws =
      Workspace::create(inv.workspace, inv.option("--target", "sm_90"),
                        inv.option("--task"), error);
  if (!ws)
    return refuse(kRefused, "workspace_exists", error);
  Workspace::Lock lock = ws->lock(error);
  if (!lock.held())
    return refuse(kRefused, "io_error", error);
  std::vector<VersionEntry> entries;
  VersionEntry e;
  e.kind = "init";
  e.message = inv.option("-m", "seed: " + name);
  e.actor = inv.actor;
  e.session = inv.session;
  Outcome out = commitVersion(*ws, entries, e, r.text, "");
  if (out.exit == kOk && !ws->setHead(out.version, error))
    return refuse(kRefused, "io_error", error);
  return out;
}

Outcome cmdCommit(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 1 || !inv.has("--parent"))
    return refuse(kUsage, "usage", "commit takes FILE.mlir --parent vN");
  std::string text;
  std::string error = readInput(inv.positional[0], text);
  if (!error.empty())
    return refuse(kRefused, "not_found", error);
  std::vector<VersionEntry> entries;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  const VersionEntry *parent =
      Workspace::find(entries, inv.option("--parent"), error);
  if (!parent)
    return refuse(kRefused, "unknown_version", error);
  std::string name = inv.positional[0];
  ChildResult r = isolated(
      [&](MLIRContext &ctx) { return canonicalize(ctx, text, name); });
  if (!r.ok)
    return refuse(kRefused, r.code, r.message);
  Workspace::Lock lock = ws.lock(error);
  if (!lock.held())
    return refuse(kRefused, "io_error", error);
  if (!ws.readIndex(entries, error))
    return damaged(error);
  parent = Workspace::find(entries, inv.option("--parent"), error);
  if (digestOf(r.text) == parent->digest)
    return refuse(kRefused, "no_change",
                  name + " is the same payload as " + parent->id);
  VersionEntry e;
  e.parent = parent->id;
  e.kind = "commit";
  e.message = inv.option("-m", "commit " + name);
  e.actor = inv.actor;
  e.session = inv.session;
  return commitVersion(ws, entries, e, r.text, "");
}

/// Applies a script to a version, deduplicating by (parent digest, script
/// digest). Used by `apply`.
Outcome applyToVersion(const Workspace &ws, const std::string &parentId,
                       const std::string &scriptText,
                       const std::string &scriptName,
                       const std::string &message, const Invocation &inv,
                       const std::string &action = "") {
  std::string policy = inv.option("--policy", "strict");
  if (policy != "strict" && policy != "open")
    return refuse(kUsage, "usage", "--policy is strict or open");
  std::string error;
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> requests;
  if (!ws.readIndex(entries, error) || !ws.readRequests(requests, error))
    return damaged(error);
  const VersionEntry *found = Workspace::find(entries, parentId, error);
  if (!found)
    return refuse(kRefused, "unknown_version", error);
  // A copy: `entries` is read again under the lock below.
  const VersionEntry parentEntry = *found;
  const VersionEntry *parent = &parentEntry;
  std::string scriptDigest = digestOf(scriptText);
  // The policy is part of the request: the same script may be refused
  // under strict and run under open.
  std::string signature = parent->digest + " " + scriptDigest +
                          (policy == "open" ? " open" : "");
  if (const RequestRecord *earlier = findRequest(requests, signature))
    return repeated(*earlier, entries, ws.head());

  std::string parentText;
  if (!ws.readObject(parent->digest, parentText, error))
    return damaged(error);
  std::string parentName = parent->id;
  std::optional<ActionTarget> target = targetOf(action);
  ChildResult r = isolated([&](MLIRContext &ctx) {
    return applyScript(ctx, parentText, parentName, scriptText, scriptName,
                       policy, target);
  });

  Workspace::Lock lock = ws.lock(error);
  if (!lock.held())
    return refuse(kRefused, "io_error", error);
  if (!ws.readIndex(entries, error) || !ws.readRequests(requests, error))
    return damaged(error);
  // Another writer may have made the same request meanwhile.
  if (const RequestRecord *earlier = findRequest(requests, signature))
    return repeated(*earlier, entries, ws.head());
  if (r.ok && digestOf(r.text) == parent->digest) {
    r.ok = false;
    r.code = "no_change";
    r.message = "the script did not change " + parent->id;
  }
  if (!r.ok) {
    if (!ws.appendRequest({signature, "rejected", "", r.code, r.message,
                           r.hint, r.payloadOp, r.payloadLoc},
                          error))
      return refuse(kRefused, "io_error", error);
    return refusal(r);
  }
  std::string stored;
  if (!ws.writeObject(scriptText, stored, error))
    return damaged(error);
  VersionEntry e;
  e.parent = parent->id;
  e.kind = "apply";
  e.script = scriptDigest;
  e.action = action;
  e.message = message;
  e.actor = inv.actor;
  e.session = inv.session;
  return commitVersion(ws, entries, e, r.text, signature);
}

/// A recipe: a JSON array of actions, order-checked, then applied one by
/// one, each a child of the last.
Outcome applyRecipe(const Workspace &ws, const Invocation &inv) {
  std::string path = inv.option("--recipe"), text, error;
  if (!llvm::StringRef(path).ends_with(".json") &&
      llvm::sys::fs::exists(ws.path("recipes/" + path + ".json")))
    path = ws.path("recipes/" + path + ".json");
  if (!rt::readFile(path, text, error))
    return refuse(kRefused, "not_found", error);
  auto parsed = json::parse(text);
  if (!parsed || !parsed->getAsArray()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return refuse(kRefused, "bad_action", path + ": a recipe is a JSON array "
                                                 "of actions");
  }
  std::string order = checkRecipeOrder(*parsed->getAsArray());
  if (!order.empty()) {
    Outcome out = refuse(kRefused, "bad_order", order);
    out.hint = "reorder the recipe; tirx schema lists each transform's "
               "preconditions";
    return out;
  }
  std::string at = inv.positional[0];
  Outcome last;
  json::Array versions;
  std::string text2;
  for (const json::Value &step : *parsed->getAsArray()) {
    std::string action;
    llvm::raw_string_ostream os(action);
    os << step;
    std::string script, canonical;
    ActionError actionError;
    if (!buildActionScript(action, script, canonical, actionError)) {
      Outcome out = refuse(kRefused, actionError.code, actionError.message);
      out.hint = actionError.hint;
      return out;
    }
    last = applyToVersion(ws, at, script, "action",
                          "recipe " + llvm::sys::path::filename(path).str() +
                              ": " + canonical,
                          inv, canonical);
    if (last.exit != kOk) {
      last.reason = "stage " + std::to_string(versions.size()) + ": " +
                    last.reason;
      last.data["versions"] = std::move(versions);
      return last;
    }
    versions.push_back(last.version);
    text2 += last.text;
    at = last.version;
  }
  last.text = text2;
  last.data["versions"] = std::move(versions);
  return last;
}

Outcome cmdApply(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() == 1 && inv.has("--recipe"))
    return applyRecipe(ws, inv);
  if (inv.positional.size() == 1 && inv.has("--action") &&
      !inv.has("--script")) {
    std::string script, canonical;
    ActionError error;
    if (!buildActionScript(inv.option("--action"), script, canonical, error)) {
      Outcome out = refuse(kRefused, error.code, error.message);
      out.hint = error.hint;
      return out;
    }
    return applyToVersion(ws, inv.positional[0], script, "action",
                          inv.option("-m", "action " + canonical), inv,
                          canonical);
  }
  if (inv.positional.size() != 1 || !inv.has("--script"))
    return refuse(kUsage, "usage",
                  "apply takes vN and --script SCRIPT.mlir or --action JSON");
  std::string scriptText;
  std::string error = readInput(inv.option("--script"), scriptText);
  if (!error.empty())
    return refuse(kRefused, "not_found", error);
  return applyToVersion(ws, inv.positional[0], scriptText,
                        inv.option("--script"),
                        inv.option("-m", "apply " + inv.option("--script")),
                        inv);
}

Outcome cmdLog(const Workspace &ws, const Invocation &) {
  std::vector<VersionEntry> entries;
  std::string error;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  std::string head = ws.head();
  Outcome out;
  json::Array list;
  std::map<std::string, std::vector<const VersionEntry *>> children;
  for (const VersionEntry &e : entries) {
    list.push_back(entryJSON(e, head));
    children[e.parent].push_back(&e);
  }
  out.data = json::Object{{"head", head}, {"versions", std::move(list)}};
  std::function<void(const VersionEntry &, const std::string &, bool, bool)>
      print = [&](const VersionEntry &e, const std::string &prefix, bool last,
                  bool root) {
        out.text += prefix + (root ? "" : last ? "└─ " : "├─ ") + e.id + "  " +
                    shortDigest(e.digest) + "  " + e.kind + ": " + e.message +
                    (e.id == head ? "  [HEAD]" : "") + "\n";
        const auto &kids = children[e.id];
        for (size_t i = 0; i < kids.size(); ++i)
          print(*kids[i], prefix + (root ? "" : last ? "   " : "│  "),
                i + 1 == kids.size(), false);
      };
  for (const VersionEntry *root : children[""])
    print(*root, "", true, true);
  return out;
}

Outcome cmdShow(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 1)
    return refuse(kUsage, "usage", "show takes one version id");
  VersionEntry e;
  std::string text;
  Outcome out = loadVersion(ws, inv.positional[0], e, text);
  if (out.exit != kOk)
    return out;
  out.text = text;
  out.data = json::Object{{"version", entryJSON(e, ws.head())}, {"ir", text}};
  return out;
}

Outcome cmdDiff(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 2)
    return refuse(kUsage, "usage", "diff takes two version ids");
  VersionEntry va, vb;
  std::string a, b;
  Outcome loaded = loadVersion(ws, inv.positional[0], va, a);
  if (loaded.exit == kOk)
    loaded = loadVersion(ws, inv.positional[1], vb, b);
  if (loaded.exit != kOk)
    return loaded;
  const VersionEntry *ea = &va, *eb = &vb;
  std::vector<std::string> summary;
  {
    MLIRContext ctx(registry(), MLIRContext::Threading::DISABLED);
    ctx.printOpOnDiagnostic(false);
    ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) {});
    OwningOpRef<ModuleOp> ma = parseModule(ctx, a, ea->id);
    OwningOpRef<ModuleOp> mb = parseModule(ctx, b, eb->id);
    if (ma && mb)
      summary = describeChanges(summarizeStructure(*ma), summarizeStructure(*mb));
    else
      summary.push_back("(structure unknown: a version does not parse)");
  }
  std::string unified = unifiedDiff(a, b, ea->id, eb->id);
  Outcome out;
  out.text = "structure " + ea->id + " -> " + eb->id + ":\n";
  for (const std::string &line : summary)
    out.text += "  " + line + "\n";
  if (summary.empty())
    out.text += "  (no structural change)\n";
  out.text += unified;
  json::Array lines;
  for (const std::string &line : summary)
    lines.push_back(line);
  out.data = json::Object{{"from", ea->id}, {"to", eb->id},
                          {"summary", std::move(lines)},
                          {"unified", unified}};
  return out;
}

Outcome cmdCheckout(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 1)
    return refuse(kUsage, "usage", "checkout takes one version id");
  std::vector<VersionEntry> entries;
  std::string error;
  Workspace::Lock lock = ws.lock(error);
  if (!lock.held())
    return refuse(kRefused, "io_error", error);
  if (!ws.readIndex(entries, error))
    return damaged(error);
  const VersionEntry *e = Workspace::find(entries, inv.positional[0], error);
  if (!e)
    return refuse(kRefused, "unknown_version", error);
  if (!ws.setHead(e->id, error))
    return refuse(kRefused, "io_error", error);
  Outcome out;
  out.version = e->id;
  out.text = "HEAD is now " + e->id + "\n";
  out.data = json::Object{{"head", e->id}};
  return out;
}

/// The history as a tirx.session module.
Outcome buildHistory(const Workspace &ws, std::string &text) {
  std::vector<VersionEntry> entries;
  std::string error;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  std::map<std::string, std::string> payloads, scripts;
  for (const VersionEntry &e : entries) {
    if (!ws.readObject(e.digest, payloads[e.id], error))
      return damaged(error);
    if (!e.script.empty() && !ws.readObject(e.script, scripts[e.id], error))
      return damaged(error);
  }
  ChildResult r = isolated([&](MLIRContext &ctx) -> ChildResult {
    ctx.getOrLoadDialect<TIRxDialect>(); // ops are created, not parsed, here
    OpBuilder b(&ctx);
    Location loc = UnknownLoc::get(&ctx);
    OwningOpRef<ModuleOp> top = ModuleOp::create(loc);
    b.setInsertionPointToEnd(top->getBody());
    auto session = SessionOp::create(b, loc, b.getStringAttr("session"));
    if (!ws.task().empty())
      session->setAttr("task", b.getStringAttr(ws.task()));
    session->setAttr("target", b.getStringAttr(ws.target()));
    Block *body = new Block();
    session.getBody().push_back(body);
    b.setInsertionPointToEnd(body);
    for (const VersionEntry &e : entries) {
      OwningOpRef<ModuleOp> payload = parseModule(ctx, payloads[e.id], e.id);
      if (!payload)
        return {false, "parse_error", e.id + " does not parse", ""};
      auto snapshot = SnapshotOp::create(
          b, loc, b.getStringAttr(e.id),
          e.parent.empty() ? FlatSymbolRefAttr()
                           : FlatSymbolRefAttr::get(&ctx, e.parent),
          b.getStringAttr(e.digest),
          e.message.empty() ? StringAttr() : b.getStringAttr(e.message));
      Block *inner = new Block();
      snapshot.getBody().push_back(inner);
      inner->push_back(payload.release());
    }
    for (const VersionEntry &e : entries) {
      if (e.parent.empty())
        continue;
      auto step = StepOp::create(
          b, loc, FlatSymbolRefAttr::get(&ctx, e.parent),
          FlatSymbolRefAttr::get(&ctx, e.id),
          b.getStringAttr(e.kind == "apply" ? "apply" : "commit"),
          e.kind == "apply" ? b.getStringAttr(scripts[e.id]) : StringAttr(),
          e.action.empty() ? StringAttr() : b.getStringAttr(e.action));
      (void)step;
    }
    if (failed(verify(*top)))
      return {false, "verify_error", "the history does not verify", ""};
    std::string out;
    llvm::raw_string_ostream os(out);
    top->print(os, OpPrintingFlags().enableDebugInfo(false));
    return {true, "", "", out};
  });
  if (!r.ok)
    return refuse(kDamaged, r.code, r.message);
  text = r.text;
  return Outcome();
}

Outcome cmdExport(const Workspace &ws, const Invocation &inv) {
  std::string error;
  if (inv.has("--mlir")) {
    std::string text;
    Outcome out = buildHistory(ws, text);
    if (out.exit != kOk)
      return out;
    if (!rt::writeFileAtomically(inv.option("--mlir"), text, error))
      return refuse(kRefused, "io_error", error);
    out.text = "wrote " + inv.option("--mlir") + "\n";
    out.data = json::Object{{"mlir", inv.option("--mlir")}};
    return out;
  }
  if (!inv.has("--session"))
    return refuse(kUsage, "usage", "export takes --session FILE or --mlir FILE");
  std::vector<VersionEntry> entries;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  json::Array steps;
  for (const VersionEntry &e : entries) {
    if (e.parent.empty())
      continue;
    json::Object step{{"from", e.parent}, {"to", e.id}, {"kind", e.kind},
                      {"message", e.message}, {"time", e.time},
                      {"actor", e.actor}};
    if (!e.script.empty())
      step["script"] = e.script;
    if (!e.action.empty()) {
      auto action = json::parse(e.action);
      if (action)
        step["action"] = std::move(*action);
      else
        llvm::consumeError(action.takeError());
    }
    // Feedback deltas, where both versions were measured.
    std::string fa, fb, ignored;
    if (rt::readFile(ws.path("feedback/" + e.parent + ".json"), fa, ignored) &&
        rt::readFile(ws.path("feedback/" + e.id + ".json"), fb, ignored)) {
      auto pa = json::parse(fa), pb = json::parse(fb);
      if (pa && pb && pa->getAsObject() && pb->getAsObject()) {
        json::Object delta;
        for (const char *key : {"duration_us", "bandwidth_utilization"}) {
          auto x = pa->getAsObject()->getNumber(key);
          auto y = pb->getAsObject()->getNumber(key);
          if (x && y)
            delta[key] = *y - *x;
        }
        step["feedback_delta"] = std::move(delta);
      }
      if (!pa)
        llvm::consumeError(pa.takeError());
      if (!pb)
        llvm::consumeError(pb.takeError());
    }
    steps.push_back(std::move(step));
  }
  std::string head = ws.head();
  json::Object session{{"task", ws.task()},
                       {"target", ws.target()},
                       {"initial_ir_version", entries.empty() ? "" : entries.front().id},
                       {"final_ir_version", head},
                       {"versions", int64_t(entries.size())},
                       {"steps", std::move(steps)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", json::Value(std::move(session))) << "\n";
  if (!rt::writeFileAtomically(inv.option("--session"), text, error))
    return refuse(kRefused, "io_error", error);
  Outcome out;
  out.text = "wrote " + inv.option("--session") + "\n";
  out.data = json::Object{{"session", inv.option("--session")}};
  return out;
}

/// Re-applies `script` to `parentText` and compares with `digest`.
std::string replayStep(const std::string &id, const std::string &parentText,
                       const std::string &script, const std::string &digest) {
  ChildResult r = isolated([&](MLIRContext &ctx) {
    return applyScript(ctx, parentText, "parent of " + id, script,
                       "script of " + id);
  });
  if (!r.ok)
    return r.code + ": " + r.message;
  std::string actual = digestOf(r.text);
  if (actual != digest)
    return "digest mismatch: recorded " + digest + ", replay gives " + actual;
  return "";
}

Outcome cmdReplay(const Workspace *ws, const Invocation &inv) {
  struct Step {
    std::string id, parentText, script, digest, kind;
  };
  std::vector<Step> steps;
  std::string error;
  if (inv.has("--mlir")) {
    // The history as MLIR: verify it (digests, parents, cycles), then
    // re-derive every apply step.
    std::string text;
    if (!rt::readFile(inv.option("--mlir"), text, error))
      return refuse(kRefused, "not_found", error);
    std::string name = inv.option("--mlir");
    ChildResult r = isolated([&](MLIRContext &ctx) -> ChildResult {
      OwningOpRef<ModuleOp> top = parseModule(ctx, text, name);
      if (!top)
        return {false, "parse_error", name + " does not parse or verify", ""};
      if (failed(verify(*top)))
        return {false, "verify_error", name + " does not verify", ""};
      json::Array list;
      top->walk([&](StepOp step) {
        auto session = step->getParentOfType<SessionOp>();
        auto from = SymbolTable::lookupSymbolIn(session, step.getFromAttr());
        auto to = SymbolTable::lookupSymbolIn(session, step.getToAttr());
        auto fromSnap = cast<SnapshotOp>(from), toSnap = cast<SnapshotOp>(to);
        list.push_back(json::Object{
            {"id", toSnap.getSymName()},
            {"parent_text", canonicalText(fromSnap.getPayload())},
            {"script", step.getScript().value_or("")},
            {"digest", toSnap.getDigest()},
            {"kind", step.getKind()}});
      });
      std::string out;
      llvm::raw_string_ostream os(out);
      os << json::Value(std::move(list));
      return {true, "", "", out};
    });
    if (!r.ok)
      return refuse(kRefused, r.code, r.message);
    auto parsed = json::parse(r.text);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return refuse(kRefused, "internal", "replay list unreadable");
    }
    for (const json::Value &v : *parsed->getAsArray()) {
      const json::Object &o = *v.getAsObject();
      steps.push_back({o.getString("id")->str(),
                       o.getString("parent_text")->str(),
                       o.getString("script")->str(),
                       o.getString("digest")->str(),
                       o.getString("kind")->str()});
    }
  } else {
    std::vector<VersionEntry> entries;
    if (!ws->readIndex(entries, error))
      return damaged(error);
    for (const VersionEntry &e : entries) {
      std::string text;
      if (!ws->readObject(e.digest, text, error)) // every object verified
        return damaged(error);
      if (e.parent.empty())
        continue;
      Step s{e.id, "", "", e.digest, e.kind};
      const VersionEntry *parent = Workspace::find(entries, e.parent, error);
      if (!ws->readObject(parent->digest, s.parentText, error))
        return damaged(error);
      if (e.kind == "apply" && !ws->readObject(e.script, s.script, error))
        return damaged(error);
      steps.push_back(std::move(s));
    }
  }
  Outcome out;
  json::Array results;
  int failedCount = 0, replayed = 0;
  for (const Step &s : steps) {
    std::string problem;
    std::string status = "reproduced";
    if (s.kind != "apply") {
      status = "checked";
    } else {
      problem = replayStep(s.id, s.parentText, s.script, s.digest);
      ++replayed;
      if (!problem.empty()) {
        status = "failed";
        ++failedCount;
      }
    }
    out.text += s.id + ": " + status +
                (s.kind != "apply" ? " (a hand commit: digest checked, nothing "
                                     "to re-derive)"
                                   : "") +
                (problem.empty() ? "" : ": " + problem) + "\n";
    json::Object o{{"version", s.id}, {"status", status}};
    if (!problem.empty())
      o["problem"] = problem;
    results.push_back(std::move(o));
  }
  out.text += std::to_string(replayed - failedCount) + " of " +
              std::to_string(replayed) + " steps reproduced\n";
  out.data = json::Object{{"steps", std::move(results)},
                          {"reproduced", replayed - failedCount},
                          {"failed", failedCount}};
  if (failedCount) {
    out.exit = kRefused;
    out.code = "replay_mismatch";
    out.reason = std::to_string(failedCount) + " step(s) did not reproduce";
  }
  return out;
}


/// Lowers `text` and writes its bundle into `dir`; maps it first when it is
/// an unscheduled seed (the reference).
ChildResult exportBundle(MLIRContext &ctx, const std::string &text,
                         const std::string &name, const std::string &dir,
                         const std::string &chip) {
  OwningOpRef<ModuleOp> module = parseModule(ctx, text, name);
  if (!module)
    return {false, "parse_error", name + " does not parse", ""};
  bool mapped = module->walk([](Operation *op) {
                        return isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op)
                                   ? WalkResult::interrupt()
                                   : WalkResult::advance();
                      }).wasInterrupted();
  PassManager pm(&ctx);
  if (!mapped)
    pm.addPass(createTIRxMapReference());
  TIRxExportBundleOptions options;
  options.dir = dir;
  options.chip = chip;
  options.irVersion = name;
  pm.addPass(createTIRxExportBundle(options));
  if (failed(pm.run(*module)))
    return {false, "compile_error", "lowering " + name + " failed", ""};
  return {true, "", "", ""};
}

/// tirx-run beside this program, else on PATH.
std::string findRunner() {
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  SmallString<256> beside(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(beside, "tirx-run");
  if (llvm::sys::fs::can_execute(beside))
    return beside.str().str();
  if (auto onPath = llvm::sys::findProgramByName("tirx-run"))
    return *onPath;
  return "";
}

Outcome cmdRun(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 1)
    return refuse(kUsage, "usage", "run takes one version id");
  std::vector<VersionEntry> entries;
  std::string error;
  if (!ws.readIndex(entries, error))
    return damaged(error);
  const VersionEntry *found = Workspace::find(entries, inv.positional[0], error);
  if (!found)
    return refuse(kRefused, "unknown_version", error);
  const VersionEntry version = *found;
  // The reference: the root of the version's chain (its seed), unless named.
  std::string refId = inv.option("--reference");
  if (refId.empty()) {
    const VersionEntry *at = found;
    while (!at->parent.empty())
      at = Workspace::find(entries, at->parent, error);
    refId = at->id;
  }
  const VersionEntry *refFound = Workspace::find(entries, refId, error);
  if (!refFound)
    return refuse(kRefused, "unknown_version", error);
  const VersionEntry reference = *refFound;

  std::string text, refText;
  if (!ws.readObject(version.digest, text, error) ||
      !ws.readObject(reference.digest, refText, error))
    return damaged(error);
  std::string bundle = ws.path("bundles/" + version.id);
  std::string refBundle = ws.path("bundles/" + reference.id + "-reference");
  std::string feedbackFile = ws.path("feedback/" + version.id + ".json");
  llvm::sys::fs::create_directories(ws.path("feedback"));
  std::string chip = ws.target().empty() ? "sm_90" : ws.target();

  ChildResult r = isolated([&](MLIRContext &ctx) {
    ChildResult a = exportBundle(ctx, text, version.id, bundle, chip);
    if (!a.ok)
      return a;
    return exportBundle(ctx, refText, reference.id, refBundle, chip);
  });
  if (!r.ok) {
    // A version that does not compile is feedback too.
    rt::Feedback f;
    f.irVersion = version.id;
    f.compileStatus = "error";
    f.error = r.message;
    rt::writeFileAtomically(feedbackFile, rt::serializeFeedback(f), error);
    Outcome out = refuse(kRefused, r.code, r.message);
    out.data = json::Object{{"feedback", feedbackFile}};
    return out;
  }

  std::string runner = findRunner();
  if (runner.empty())
    return refuse(kRefused, "no_runner",
                  "tirx-run was found neither beside tirx nor on PATH");
  std::vector<std::string> args = {runner, bundle, "--reference", refBundle,
                                   "-o", feedbackFile, "--ir-version",
                                   version.id};
  for (const char *flag : {"--timeout", "--samples", "--seed", "--inputs"})
    if (inv.has(flag)) {
      args.push_back(flag);
      args.push_back(inv.option(flag));
    }
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(runner, argRefs, std::nullopt, {}, 0,
                                         0, &message);
  std::string feedbackText;
  if (!rt::readFile(feedbackFile, feedbackText, error))
    return refuse(kRefused, "runner_failed",
                  "tirx-run exited with " + std::to_string(status) +
                      (message.empty() ? "" : " (" + message + ")") +
                      " and wrote no feedback");
  rt::Feedback f;
  rt::parseFeedback(feedbackText, f, error);
  Outcome out;
  out.version = version.id;
  auto parsed = json::parse(feedbackText);
  if (parsed && parsed->getAsObject())
    out.data = json::Object{{"feedback", std::move(*parsed->getAsObject())}};
  else if (!parsed)
    llvm::consumeError(parsed.takeError());
  out.text = version.id + ": compile " + f.compileStatus + ", launch " +
             f.launchStatus + ", correctness " + f.correctness +
             " (reference: " + reference.id + ")" +
             (f.duration ? ", median " + std::to_string(f.duration->median) +
                               " us over " +
                               std::to_string(f.duration->count) + " samples"
                         : "") +
             (f.bottleneck != "unknown" ? ", bottleneck " + f.bottleneck : "") +
             "\n  feedback: " + feedbackFile + "\n";
  if (status == 3) {
    out.exit = kRefused;
    out.code = "no_device";
    out.reason = "no CUDA device here: the bundle is compiled and ready (" +
                 bundle + ")";
  } else if (status != 0) {
    out.exit = kRefused;
    out.code = f.launchStatus != "ok" ? "launch_" + f.launchStatus
                                      : "correctness_fail";
    out.reason = f.error.empty() ? f.correctnessDetail : f.error;
  }
  return out;
}

Outcome cmdView(const Workspace &ws, const Invocation &inv) {
  if (inv.positional.size() != 1)
    return refuse(kUsage, "usage", "view takes one version id and --what VIEW");
  std::string what = inv.option("--what", "summary");
  VersionEntry e;
  std::string text;
  Outcome loaded = loadVersion(ws, inv.positional[0], e, text);
  if (loaded.exit != kOk)
    return loaded;
  std::string id = e.id;
  std::string bundle = ws.path("bundles/" + id);
  bool compiled = llvm::sys::fs::exists(bundle + "/manifest.json");
  std::string chip = ws.target().empty() ? "sm_90" : ws.target();
  std::string device = inv.option("--device");
  ChildResult r = isolated([&](MLIRContext &ctx) -> ChildResult {
    OwningOpRef<ModuleOp> module = parseModule(ctx, text, id);
    if (!module)
      return {false, "parse_error", id + " does not parse", ""};
    char path[] = "/tmp/tirx-view-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
      return {false, "internal", "cannot create a temporary file", ""};
    ::close(fd);
    TIRxViewOptions options;
    options.what = what;
    options.chip = chip;
    options.device = device;
    options.bundle = compiled ? bundle : "";
    options.output = path;
    PassManager pm(&ctx);
    pm.addPass(createTIRxView(options));
    LogicalResult ok = pm.run(*module);
    std::string json, ignored;
    rt::readFile(path, json, ignored);
    std::remove(path);
    if (failed(ok))
      return {false, "view_failed", "the view could not be built", ""};
    return {true, "", "", json};
  });
  if (!r.ok)
    return refuse(kRefused, r.code, r.message);
  auto parsed = json::parse(r.text);
  if (!parsed || !parsed->getAsObject()) {
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    return refuse(kRefused, "internal", "the view is not JSON");
  }
  Outcome out;
  out.version = id;
  const json::Object &view = *parsed->getAsObject();
  if (what == "summary")
    out.text = view.getString("text").value_or("").str();
  else
    out.text = r.text;
  out.data = json::Object{{"version", id}, {"view", json::Object(view)}};
  return out;
}

Outcome cmdFsck(const Workspace &ws, const Invocation &) {
  std::vector<VersionEntry> entries;
  std::vector<RequestRecord> requests;
  std::string error;
  std::vector<std::string> problems;
  if (!ws.readIndex(entries, error))
    problems.push_back(error);
  if (!ws.readRequests(requests, error))
    problems.push_back(error);
  for (const VersionEntry &e : entries) {
    std::string text;
    if (!ws.readObject(e.digest, text, error))
      problems.push_back(e.id + ": " + error);
    if (!e.script.empty() && !ws.readObject(e.script, text, error))
      problems.push_back(e.id + " (script): " + error);
  }
  Outcome out;
  json::Array list;
  for (const std::string &p : problems) {
    out.text += p + "\n";
    list.push_back(p);
  }
  out.text += std::to_string(entries.size()) + " versions, " +
              std::to_string(problems.size()) + " problem(s)\n";
  out.data = json::Object{{"versions", int64_t(entries.size())},
                          {"problems", std::move(list)}};
  if (!problems.empty()) {
    out.exit = kDamaged;
    out.code = "workspace_damaged";
    out.reason = problems.front();
  }
  return out;
}
} // namespace

json::Object mlir::tirx::rejectionJSON(const Outcome &out) {
  json::Object error{{"code", out.code}, {"message", out.reason}};
  if (!out.hint.empty())
    error["hint"] = out.hint;
  if (!out.payloadOp.empty())
    error["payload_op"] = out.payloadOp;
  if (!out.payloadLoc.empty())
    error["location"] = out.payloadLoc;
  return error;
}

Outcome mlir::tirx::runCommand(const Invocation &inv) {
  auto started = std::chrono::steady_clock::now();
  Outcome out;
  std::optional<Workspace> ws;
  std::string error;
  if (inv.command == "schema") {
    Outcome out;
    out.data = actionsSchema();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << llvm::formatv("{0:2}", json::Value(json::Object(out.data))) << "\n";
    out.text = text;
    return out;
  }
  bool needsWorkspace = inv.command != "init" &&
                        !(inv.command == "replay" && inv.has("--mlir"));
  static const std::set<std::string> known = {
      "init", "commit", "apply", "log", "show", "diff", "checkout",
      "export", "replay", "fsck", "run", "view"};
  if (needsWorkspace) {
    ws = Workspace::open(inv.workspace, error);
    if (!ws)
      return known.count(inv.command)
                 ? refuse(kRefused, "no_workspace", error)
                 : refuse(kUsage, "usage", "unknown command '" + inv.command +
                                               "' (tirx --help lists them)");
  }
  if (!known.count(inv.command))
    out = refuse(kUsage, "usage", "unknown command '" + inv.command +
                                      "' (tirx --help lists them)");
  else if (inv.command == "init")
    out = cmdInit(inv);
  else if (inv.command == "commit")
    out = cmdCommit(*ws, inv);
  else if (inv.command == "apply")
    out = cmdApply(*ws, inv);
  else if (inv.command == "log")
    out = cmdLog(*ws, inv);
  else if (inv.command == "show")
    out = cmdShow(*ws, inv);
  else if (inv.command == "diff")
    out = cmdDiff(*ws, inv);
  else if (inv.command == "checkout")
    out = cmdCheckout(*ws, inv);
  else if (inv.command == "export")
    out = cmdExport(*ws, inv);
  else if (inv.command == "replay")
    out = cmdReplay(ws ? &*ws : nullptr, inv);
  else if (inv.command == "run")
    out = cmdRun(*ws, inv);
  else if (inv.command == "view")
    out = cmdView(*ws, inv);
  else
    out = cmdFsck(*ws, inv);

  // Every request to a workspace, accepted or not, is one audit line.
  if (!ws && inv.command == "init")
    ws = Workspace::open(inv.workspace, error);
  if (ws) {
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - started)
                    .count();
    json::Array args;
    for (const std::string &p : inv.positional)
      args.push_back(p);
    json::Object options;
    for (auto &[k, v] : inv.options)
      options[k] = v;
    json::Object line{{"time", nowUtc()},
                      {"actor", inv.actor},
                      {"session", inv.session},
                      {"command", inv.command},
                      {"args", std::move(args)},
                      {"options", std::move(options)},
                      {"outcome", out.exit == kOk ? "accepted" : "rejected"},
                      {"duration_ms", ms}};
    if (!out.version.empty())
      line["version"] = out.version;
    if (!out.code.empty())
      line["code"] = out.code;
    if (!out.reason.empty())
      line["reason"] = out.reason;
    if (!out.hint.empty())
      line["hint"] = out.hint;
    if (!out.payloadOp.empty())
      line["payload_op"] = out.payloadOp;
    if (out.data.get("deduplicated"))
      line["deduplicated"] = true;
    std::string auditError;
    Workspace::Lock lock = ws->lock(auditError);
    if ((!lock.held() || !ws->appendAudit(line, auditError)) &&
        out.exit == kOk) {
      out.exit = kRefused;
      out.code = "io_error";
      out.reason = auditError;
    }
  }
  return out;
}
